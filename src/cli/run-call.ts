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
import { APPROVAL_EXIT, approvalRequired, approvalWaitText } from '../client/approval-result.js';

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
  // The pages a URL question showed during the call: the approval is then not told again.
  const shownPages = new Set<string>();
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
      (params) => {
        if (params.mode === 'url') shownPages.add(params.url);
        return answerElicitation(params, io);
      },
    )) as ToolCallResult;
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
    process.stderr.write(`${clientErrorLine(options.url, err, options.timeoutMs)}\n`);
    return 2;
  }
  // The server's text reaches the terminal with its control characters made visible
  // (JSON escapes C0 itself, not DEL and C1; escaping them keeps the JSON valid).
  const approval = approvalRequired(result);
  if (values.json)
    process.stdout.write(escapeTerminalControls(`${JSON.stringify(result, null, 2)}\n`));
  else if (!approval)
    (result.isError ? process.stderr : process.stdout).write(
      escapeTerminalControls(formatCallResult(result)),
    );
  if (approval) {
    // Told once, on stderr: the result's text names the same page and message again.
    const shown = shownPages.has(approval.url);
    process.stderr.write(escapeTerminalControls(approvalWaitText(approval, shown)));
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
