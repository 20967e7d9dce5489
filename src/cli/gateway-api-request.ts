/**
 * One request to a gateway's own REST API for the person at the terminal (`approvals`,
 * `connections`), with their exit codes: the JSON answer, or one line and 1 when the
 * gateway refused with a catalogue code (the caller's to fix), or 2 when it could not be
 * reached or answered something that is not a mcp-beaver answer.
 */
import { clientErrorLine, catalogueCode } from '../client/errors.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

export interface GatewayApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: ConstructorParameters<typeof Headers>[0];
  /** Sent as JSON. */
  readonly json?: unknown;
  readonly timeoutMs: number;
}

/**
 * The gateway's base from what the user gave: the MCP endpoint, one of `paths` (the
 * API's path, a page, with or without an id after it), or the base itself.
 */
export function gatewayBaseOf(url: URL, paths: readonly string[]): string {
  const tail = new RegExp(`/(mcp|(${paths.join('|')})(/[^/]*)?)$`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(tail, '')}`;
}

export async function gatewayApi(
  url: string,
  req: GatewayApiRequest,
): Promise<{ readonly body: unknown } | number> {
  const headers = new Headers(req.headers);
  headers.set('accept', 'application/json');
  if (req.json !== undefined) headers.set('content-type', 'application/json');
  let status: number;
  let body: unknown;
  try {
    const res = await fetch(url, {
      method: req.method,
      headers,
      ...(req.json !== undefined && { body: JSON.stringify(req.json) }),
      signal: AbortSignal.timeout(req.timeoutMs),
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
    process.stderr.write(`${clientErrorLine(url, err, req.timeoutMs)}\n`);
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
  return { body };
}
