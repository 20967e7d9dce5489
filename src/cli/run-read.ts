/** `mcp-beaver read <url> <uri>`: read one resource of a remote MCP server. */
import { isRemoteTarget, remoteOptionsOr } from '../client/options.js';
import { readOutput } from '../client/print-resources-prompts.js';
import { READ_COMMAND } from './commands/read-command.js';
import { parseCommand } from './flags.js';
import { requestOrExit } from './remote-request.js';
import { commandMessages } from './output.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

const { usage, badValue } = commandMessages(READ_COMMAND);

export async function runRead(argv: string[]): Promise<number> {
  const parsed = parseCommand(READ_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [target, uri, ...extra] = positionals;
  if (target === undefined || uri === undefined || extra.length > 0)
    return usage('name a server URL and one resource URI');
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  const options = remoteOptionsOr(target, values, badValue);
  if (typeof options === 'number') return options;
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
