/** `mcp-beaver read <url> <uri>`: read one resource of a remote MCP server. */
import { readOutput } from '../client/print-resources-prompts.js';
import { READ_COMMAND } from './commands/read-command.js';
import { parseRemote } from './operands.js';
import { requestOrExit } from './remote-request.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

export async function runRead(argv: string[]): Promise<number> {
  const parsed = parseRemote(READ_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, operands, options } = parsed;
  const uri = operands[1];
  const asked = await requestOrExit(options, (c) =>
    // A read is fetched each time: a CLI run has no earlier answer worth serving.
    c.client.readResource({ uri }, { ...c.request, cacheMode: 'bypass' }),
  );
  if (typeof asked === 'number') return asked;
  const result = asked.answer;
  const terminal = process.stdout.isTTY === true;
  if (values.json)
    process.stdout.write(escapeTerminalControls(`${JSON.stringify(result, null, 2)}\n`));
  // Redirected, the resource is written as it is (a file gets its exact text); on a
  // terminal its control characters are made visible.
  else if (terminal)
    process.stdout.write(escapeTerminalControls(readOutput(result.contents, true).toString()));
  else process.stdout.write(readOutput(result.contents, false));
  return 0;
}
