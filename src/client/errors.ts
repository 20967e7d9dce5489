/**
 * One readable line for a failure talking to a remote MCP server:
 *   mcp-beaver: http://host/mcp: HTTP 500 Internal Server Error: boom
 *   mcp-beaver: http://host/mcp/x: HTTP 404 Not Found: NOT_FOUND: no toolset named x
 *   mcp-beaver: http://host/mcp: JSON-RPC -32602: Unknown tool: nope
 *   mcp-beaver: http://host/mcp: JSON-RPC -32602 DENIED_BY_RESTRICT: id: not allowed
 *   mcp-beaver: http://host/mcp: cannot connect: connect ECONNREFUSED 127.0.0.1:9
 */
import { escapeTerminalControls } from './terminal-text.js';
import {
  InsufficientScopeError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';

const MAX_DETAIL = 300;

export function clientErrorLine(url: URL | string, err: unknown, timeoutMs?: number): string {
  // A server's error message is its text: its control characters are made visible.
  return `mcp-beaver: ${String(url)}: ${escapeTerminalControls(oneLine(describe(err, timeoutMs, url)))}`;
}

function badPort(url: URL | string): string {
  const port = new URL(String(url)).port;
  return `port ${port} is one that fetch refuses (it belongs to another protocol); serve on another port, such as 8080`;
}

function describe(err: unknown, timeoutMs: number | undefined, url: URL | string): string {
  if (err instanceof ProtocolError) return jsonRpc(err.code, err.message, err.data);
  // The SDK reads a 403 step-up challenge into this error and drops the status: said again.
  if (err instanceof InsufficientScopeError) return `HTTP 403 Forbidden: ${err.message}`;
  if (err instanceof SdkError) {
    const status = httpStatus(err.data);
    if (status !== undefined) return http(status, err);
    if (err.code === SdkErrorCode.RequestTimeout) return timedOut(timeoutMs);
  }
  if (!(err instanceof Error)) return String(err);
  const chain = causes(err);
  if (chain.some(isTimeout)) return timedOut(timeoutMs);
  // undici's `fetch failed` says nothing; its cause names the socket error.
  if (chain.some((e) => e instanceof TypeError && e.message === 'fetch failed')) {
    const root = chain.at(-1)!.message;
    // fetch refuses the ports of other protocols (9 discard, 25 SMTP, 6000 X11, ...)
    // before connecting, with these two words only.
    if (root === 'bad port') return `cannot connect: ${badPort(url)}`;
    return `cannot connect: ${root}`;
  }
  const root = chain.at(-1)!;
  return root === err || err.message.includes(root.message)
    ? err.message
    : `${err.message}: ${root.message}`;
}

function http(status: number, err: SdkError): string {
  const data = err.data as { statusText?: unknown; text?: unknown };
  const statusText = typeof data.statusText === 'string' && data.statusText ? data.statusText : '';
  const head = `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  const text = typeof data.text === 'string' ? data.text.trim() : '';
  const rpc = jsonRpcBody(text);
  if (rpc) return `${head}: ${jsonRpc(rpc.code, rpc.message, rpc.data)}`;
  const rest = restErrorBody(text);
  if (rest) return `${head}: ${rest.code}: ${clip(rest.message)}`;
  if (text) return `${head}: ${clip(text)}`;
  // No body: the SDK's own sentence (e.g. the negotiation probe) says where it failed.
  return err.message.includes(String(status)) ? `${head} (${err.message})` : head;
}

function jsonRpc(code: number, message: string, data?: unknown): string {
  const name = catalogueCode(data);
  return `JSON-RPC ${code}${name ? ` ${name}` : ''}: ${clip(message)}`;
}

/**
 * The gateway names its refusals in `error.data.code` (INVALID_ARGUMENTS,
 * DENIED_BY_RESTRICT, UPSTREAM_STATUS, ...): worth a script's grep. Only a word of capitals,
 * so another server's data cannot put arbitrary text in the line.
 */
export function catalogueCode(data: unknown): string | undefined {
  const code = (data as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : undefined;
}

/** A JSON-RPC error object in an HTTP error body, when the body is one. */
function jsonRpcBody(text: string): { code: number; message: string; data?: unknown } | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const body = JSON.parse(text) as {
      error?: { code?: unknown; message?: unknown; data?: unknown };
    };
    const e = body.error;
    if (e && typeof e.code === 'number') {
      return {
        code: e.code,
        message: typeof e.message === 'string' ? e.message : '',
        data: e.data,
      };
    }
  } catch {
    // Not JSON: shown as text.
  }
  return undefined;
}

/**
 * The gateway's own HTTP refusals (an unknown toolset path, an oversized body, ...) carry
 * its REST error body, `{"error":{"code":"NOT_FOUND","message":"..."}}`: read as the code
 * and the sentence, not the raw JSON. Only a catalogue-shaped code (`catalogueCode`).
 */
function restErrorBody(text: string): { code: string; message: string } | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const e = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
    const code = catalogueCode(e);
    if (code !== undefined && typeof e?.message === 'string') return { code, message: e.message };
  } catch {
    // Not JSON: shown as text.
  }
  return undefined;
}

function httpStatus(data: unknown): number | undefined {
  const status = (data as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The error and its causes, outermost first. */
function causes(err: Error): Error[] {
  const chain = [err];
  for (let e = err; chain.length < 10 && e.cause instanceof Error; e = e.cause) chain.push(e.cause);
  return chain;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

function timedOut(timeoutMs: number | undefined): string {
  return timeoutMs === undefined ? 'timed out' : `no answer within ${timeoutMs} ms (--timeout)`;
}

function clip(text: string): string {
  const line = oneLine(text);
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
