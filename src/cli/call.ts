/** `mcp-beaver call <url> <tool> [args]`: call one tool of a remote MCP server. */
import { withConnection } from '../client/connect.js';
import { UsageError, isRemoteTarget, remoteOptions } from '../client/options.js';
import { clientErrorLine } from '../client/errors.js';
import { formatCallResult, type CallResult } from '../client/print.js';
import { CALL_HELP } from './help.js';
import { parseCommand } from './flags.js';
import { remoteCommand } from './remote-args.js';
import { commandMessages } from './output.js';
import { readArguments } from './json-arguments.js';
import { escapeTerminalControls } from './terminal-text.js';

const { usage, badValue } = commandMessages('call', CALL_HELP);
const CALL_COMMAND = remoteCommand('call', CALL_HELP);

export async function runCall(argv: string[]): Promise<number> {
  const parsed = parseCommand(CALL_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [target, tool, argText, ...extra] = positionals;
  if (target === undefined || tool === undefined || extra.length > 0) {
    return usage('name a server URL, a tool, and at most one argument object');
  }
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  let options;
  let args: Record<string, unknown>;
  try {
    options = remoteOptions(target, values);
    args = await readArguments(argText);
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
    throw err;
  }
  let result: CallResult;
  try {
    result = (await withConnection(options, (c) =>
      c.client.callTool({ name: tool, arguments: args }, c.request),
    )) as CallResult;
  } catch (err) {
    process.stderr.write(`${clientErrorLine(options.url, err, options.timeoutMs)}\n`);
    return 2;
  }
  // The server's text reaches the terminal with its control characters made visible
  // (JSON escapes C0 itself, not DEL and C1; escaping them keeps the JSON valid).
  if (values.json)
    process.stdout.write(escapeTerminalControls(`${JSON.stringify(result, null, 2)}\n`));
  else
    (result.isError ? process.stderr : process.stdout).write(
      escapeTerminalControls(formatCallResult(result)),
    );
  return result.isError ? 1 : 0;
}
