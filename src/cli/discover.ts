/** `mcp-beaver discover <url>`: what a remote MCP server says about itself. */
import { parseArgs } from 'node:util';
import { withConnection } from '../client/connect.js';
import {
  REMOTE_ARG_OPTIONS,
  UsageError,
  isRemoteTarget,
  remoteOptions,
} from '../client/options.js';
import { clientErrorLine } from '../client/errors.js';
import { DISCOVER_HELP } from './help.js';
import { commandMessages, readableError } from './output.js';

const { usage, badValue } = commandMessages('discover', DISCOVER_HELP);

export async function runDiscover(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...REMOTE_ARG_OPTIONS, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return usage(readableError(err));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(DISCOVER_HELP);
    return 0;
  }
  const target = positionals[0];
  if (target === undefined || positionals.length > 1) return usage('name exactly one server URL');
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  let options;
  try {
    options = remoteOptions(target, values);
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
    throw err;
  }
  let result: unknown;
  try {
    result = await withConnection(options, async (c) => c.handshake());
  } catch (err) {
    process.stderr.write(`${clientErrorLine(options.url, err, options.timeoutMs)}\n`);
    return 2;
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
}
