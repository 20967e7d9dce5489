/** `mcp-beaver discover <url>`: what a remote MCP server says about itself. */
import { withConnection } from '../client/connect.js';
import { clientErrorLine } from '../client/errors.js';
import { DISCOVER_COMMAND } from './commands/discover-command.js';
import { parseRemote } from './operands.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

export async function runDiscover(argv: string[]): Promise<number> {
  const parsed = parseRemote(DISCOVER_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { options } = parsed;
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
