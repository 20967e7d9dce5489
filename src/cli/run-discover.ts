/** `mcp-beaver discover <url>`: what a remote MCP server says about itself. */
import { withConnection } from '../client/connect.js';
import { isRemoteTarget, remoteOptionsOr } from '../client/options.js';
import { clientErrorLine } from '../client/errors.js';
import { DISCOVER_COMMAND } from './commands/discover-command.js';
import { parseCommand } from './flags.js';
import { commandMessages } from './output.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

const { usage, badValue } = commandMessages(DISCOVER_COMMAND);

export async function runDiscover(argv: string[]): Promise<number> {
  const parsed = parseCommand(DISCOVER_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const target = positionals[0];
  if (target === undefined || positionals.length > 1) return usage('name exactly one server URL');
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  const options = remoteOptionsOr(target, values, badValue);
  if (typeof options === 'number') return options;
  let result: unknown;
  try {
    result = await withConnection(options, async (c) => c.handshake());
  } catch (err) {
    process.stderr.write(`${clientErrorLine(options.url, err, options.timeoutMs)}\n`);
    return 2;
  }
  process.stdout.write(escapeTerminalControls(`${JSON.stringify(result, null, 2)}\n`));
  return 0;
}
