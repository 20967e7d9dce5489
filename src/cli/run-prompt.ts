/** `mcp-beaver prompt <url> <name> [args]`: get one prompt of a remote MCP server. */
import { UsageError } from '../client/options.js';
import { formatPromptMessages } from '../client/print-resources-prompts.js';
import { PROMPT_COMMAND } from './commands/prompt-command.js';
import { parseRemote } from './operands.js';
import { argumentsOf, stringArguments } from './word-arguments.js';
import { requestOrExit } from './remote-request.js';
import { commandMessages } from './output.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

const { badValue } = commandMessages(PROMPT_COMMAND);

export async function runPrompt(argv: string[]): Promise<number> {
  const parsed = parseRemote(PROMPT_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, options } = parsed;
  const [, name, ...argTexts] = parsed.operands;
  let args: Record<string, unknown>;
  try {
    // Prompt arguments are strings: name=value words as given, or one JSON object.
    args = await argumentsOf(argTexts, stringArguments);
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
    throw err;
  }
  // Values are sent as given (a JSON number too): the server names an argument it refuses.
  const asked = await requestOrExit(options, (c) =>
    c.client.getPrompt({ name, arguments: args as Record<string, string> }, c.request),
  );
  if (typeof asked === 'number') return asked;
  const result = asked.answer;
  process.stdout.write(
    escapeTerminalControls(
      values.json ? `${JSON.stringify(result, null, 2)}\n` : formatPromptMessages(result.messages),
    ),
  );
  return 0;
}
