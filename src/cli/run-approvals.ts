/**
 * `mcp-beaver approvals <url> [approve|decline <id>]`: the gateway's pending approvals
 * (issue 29), listed and decided through its REST API, with the approver's key.
 */
import { isRemoteTarget, remoteOptionsOr } from '../client/options.js';
import { escapeTerminalControls } from '../client/terminal-text.js';
import { gatewayApi, gatewayBaseOf } from './gateway-api-request.js';
import { APPROVALS_COMMAND } from './commands/approvals-command.js';
import { parseOperands } from './operands.js';
import { commandMessages } from './output.js';

const { usage, badValue } = commandMessages(APPROVALS_COMMAND);

const API_PATH = '/api/approvals';

interface ApprovalJson {
  id: string;
  tool: string;
  message: string;
  requested_by: string;
  expires_at: string;
  own?: boolean;
}

export async function runApprovals(argv: string[]): Promise<number> {
  const parsed = parseOperands(APPROVALS_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const [target, decision, id, ...extra] = parsed.operands;
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  if (decision !== undefined && decision !== 'approve' && decision !== 'decline')
    return usage(`${JSON.stringify(decision)}: say approve <id> or decline <id>`);
  if (decision !== undefined && (id === undefined || id === ''))
    return usage(`${decision}: name the approval's id (as the list shows it)`);
  if (extra.length > 0)
    return usage(`one approval at a time; ${JSON.stringify(extra[0])} is extra`);
  const options = remoteOptionsOr(target, values, badValue);
  if (typeof options === 'number') return options;
  const base = gatewayBase(options.url);
  const url =
    decision === undefined ? base + API_PATH : `${base}${API_PATH}/${encodeURIComponent(id!)}`;
  const answer = await gatewayApi(url, {
    method: decision === undefined ? 'GET' : 'POST',
    headers: options.headers,
    ...(decision !== undefined && { json: { decision } }),
    timeoutMs: options.timeoutMs,
  });
  if (typeof answer === 'number') return answer;
  const { body } = answer;
  if (values.json) {
    process.stdout.write(escapeTerminalControls(`${JSON.stringify(body, null, 2)}\n`));
    return 0;
  }
  if (decision !== undefined) {
    const a = (body as { approval?: ApprovalJson }).approval;
    const what = decision === 'approve' ? 'Approved' : 'Declined';
    process.stdout.write(
      escapeTerminalControls(
        `${what} ${a?.id ?? id}: ${a?.tool ?? ''} (${a?.message ?? ''}), asked by ${a?.requested_by ?? '?'}\n`,
      ),
    );
    if (decision === 'approve')
      process.stdout.write('The same call, repeated by its caller, now runs once.\n');
    return 0;
  }
  const list = (body as { approvals?: ApprovalJson[] }).approvals ?? [];
  process.stdout.write(escapeTerminalControls(formatApprovals(list)));
  return 0;
}

/**
 * The gateway's base from what the user gave: the MCP endpoint, the API's path, an
 * approval's page, or the base itself (with or without a trailing slash).
 */
export function gatewayBase(url: URL): string {
  return gatewayBaseOf(url, ['api/approvals', 'approvals']);
}

/** One aligned row per approval; a short sentence when there is none. */
export function formatApprovals(list: readonly ApprovalJson[]): string {
  if (list.length === 0) return 'No approval is waiting (for the scopes this key holds).\n';
  const rows = [
    ['ID', 'TOOL', 'MESSAGE', 'REQUESTED BY', 'EXPIRES'],
    ...list.map((a) => [
      a.id,
      a.tool,
      a.message,
      `${a.requested_by}${a.own ? ' (yours)' : ''}`,
      a.expires_at,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) => `${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd())
    .map((line) => `${line}\n`)
    .join('');
}
