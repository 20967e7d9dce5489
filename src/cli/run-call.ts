/** `mcp-beaver call <url> <tool> [args]`: call one tool of a remote MCP server. */
import { withConnection, type Connection } from '../client/connect.js';
import { UsageError } from '../client/options.js';
import { clientErrorLine } from '../client/errors.js';
import { formatCallResult } from '../client/print.js';
import type { ToolCallResult } from '../mcp-wire/tool-call-result.js';
import { CALL_COMMAND } from './commands/call-command.js';
import { parseRemote } from './operands.js';
import { commandMessages } from './output.js';
import { argumentsOf, isJsonArgument, splitWords, typedArguments } from './word-arguments.js';
import { escapeTerminalControls } from '../client/terminal-text.js';
import { answerElicitation } from '../client/elicitation.js';
import { approvalRequired } from '../client/approval-result.js';

/** The exit code of a call that waits for someone's approval: repeat it once approved. */
export const APPROVAL_EXIT = 3;

const { badValue } = commandMessages(CALL_COMMAND);

export async function runCall(argv: string[]): Promise<number> {
  const parsed = parseRemote(CALL_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, options } = parsed;
  const [, tool, ...argTexts] = parsed.operands;
  let args: Record<string, unknown> | undefined;
  try {
    // name=value words are typed by the tool's schema, read once connected; JSON now.
    if (argTexts.length === 0 || isJsonArgument(argTexts))
      args = await argumentsOf(argTexts, () => ({}));
    else splitWords(argTexts);
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
    throw err;
  }
  // A question of the server (confirm, approval) is asked on the terminal: stdin and
  // stderr, so that stdout keeps only the result.
  const io = {
    input: process.stdin,
    output: process.stderr,
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    yes: values.yes === true,
  };
  let result: ToolCallResult;
  try {
    result = (await withConnection(
      options,
      async (c) => {
        const given = args ?? typedArguments(splitWords(argTexts), await propertiesOf(c, tool));
        // --timeout bounds each request, not the flow: the SDK's maxTotalTimeout would
        // count the time a person takes to answer the confirmation as well.
        return c.client.callTool({ name: tool, arguments: given }, { timeout: c.request.timeout });
      },
      (params) => answerElicitation(params, io),
    )) as ToolCallResult;
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
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
  const approval = approvalRequired(result);
  if (approval) {
    process.stderr.write(
      `\nWaiting for approval by someone else. It is at:\n  ${escapeTerminalControls(approval.url)}\n` +
        `Run the same command again once it is approved (exit ${APPROVAL_EXIT} until then).\n`,
    );
    return APPROVAL_EXIT;
  }
  return result.isError ? 1 : 0;
}

/** The tool's input schema properties, from tools/list; none when it is not listed. */
async function propertiesOf(c: Connection, tool: string): Promise<Record<string, unknown>> {
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const list = await c.client.listTools(cursor === undefined ? undefined : { cursor }, c.request);
    const found = list.tools.find((t) => t.name === tool);
    if (found) return (found.inputSchema.properties ?? {}) as Record<string, unknown>;
    cursor = list.nextCursor;
    if (cursor === undefined) break;
  }
  return {};
}
