/**
 * `mcp-beaver approvals <url> [approve|decline <id>]`: the gateway's pending approvals
 * (issue 29), listed and decided through its REST API, with the approver's key.
 */
import { isRemoteTarget, remoteOptionsOr } from '../client/options.js';
import { clientErrorLine, catalogueCode } from '../client/errors.js';
import { escapeTerminalControls } from '../client/terminal-text.js';
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
  const headers = new Headers(options.headers);
  headers.set('accept', 'application/json');
  let status: number;
  let body: unknown;
  try {
    const res = await fetch(url, {
      method: decision === undefined ? 'GET' : 'POST',
      headers: decision === undefined ? headers : withJson(headers),
      ...(decision !== undefined && { body: JSON.stringify({ decision }) }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = res.status;
    const text = await res.text();
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body === undefined) {
      process.stderr.write(
        `mcp-beaver: ${url}: HTTP ${status}: the answer is not JSON (is this a mcp-beaver gateway?)\n`,
      );
      return 2;
    }
  } catch (err) {
    process.stderr.write(`${clientErrorLine(url, err, options.timeoutMs)}\n`);
    return 2;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
  if (status >= 400 || error !== undefined) {
    const code = catalogueCode(error) ?? '';
    const message = typeof error?.message === 'string' ? error.message : '';
    process.stderr.write(
      escapeTerminalControls(
        `mcp-beaver: ${url}: HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}\n`,
      ),
    );
    // A refusal the gateway named is the caller's to fix (exit 1); anything else is 2.
    return code ? 1 : 2;
  }
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

function withJson(headers: Headers): Headers {
  headers.set('content-type', 'application/json');
  return headers;
}

/**
 * The gateway's base from what the user gave: the MCP endpoint, the API's path, an
 * approval's page, or the base itself (with or without a trailing slash).
 */
export function gatewayBase(url: URL): string {
  const path = url.pathname
    .replace(/\/+$/, '')
    .replace(/\/(mcp|api\/approvals(\/[^/]*)?|approvals(\/[^/]*)?)$/, '');
  return `${url.origin}${path}`;
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
