/** `mcp-beaver discover <url>`: what a remote MCP server says about itself. */
import { withConnection } from '../client/connect.js';
import { clientErrorLine } from '../client/errors.js';
import { DISCOVER_COMMAND } from './commands/discover-command.js';
import { parseOperands, remoteOptionsOf } from './operands.js';
import { commandMessages } from './output.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

const messages = commandMessages(DISCOVER_COMMAND);

export async function runDiscover(argv: string[]): Promise<number> {
  const parsed = parseOperands(DISCOVER_COMMAND, argv, {
    min: 1,
    max: 1,
    wrong: 'name exactly one server URL',
  });
  if (typeof parsed === 'number') return parsed;
  const options = remoteOptionsOf(parsed.operands[0], parsed.values, messages);
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
