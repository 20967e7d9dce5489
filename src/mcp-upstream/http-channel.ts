/**
 * JSON-RPC over Streamable HTTP to one upstream (spec-language.md, `mcp-server … url=`):
 * each message one POST. A request whose `_meta` claims a 2026-07-28 version carries the
 * mirrored `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers; a 2025-era one
 * carries the session id `initialize` returned and the negotiated version. When the
 * upstream has forgotten that session (404, or a 400 naming it) the channel drops it and
 * moves to a new epoch, so the session above shakes hands again.
 *
 * The headers the caller gives (the spec's `header`s and the upstream credential, the
 * gateway's own) are the only ones of the caller's sent: never the inbound caller's token.
 */
import { Agent, type Dispatcher } from '../outbound/undici.js';
import { CANCELLED, failureClass } from '../outbound/failure-class.js';
import { USER_AGENT } from '../outbound/exchange.js';
import { classifyMessage, messageText, replyOf } from './json-rpc-message.js';
import { postMessage, type PostAnswer } from './http-post.js';
import { encodeHeaderValue, mcpNameOf } from '../mcp-wire/header-values.js';
import { META_PROTOCOL_VERSION } from '../mcp-wire/versions.js';
import type {
  RequestOptions,
  RpcChannel,
  UpstreamReply,
  UpstreamNotification,
} from './rpc-channel.js';
import { capText } from './upstream-outcome.js';

export interface HttpChannelOptions {
  readonly name: string;
  readonly url: URL;
  /** The spec's headers and the upstream credential, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The largest answer read; a larger one fails its call. */
  readonly maxMessageBytes: number;
  readonly redact: (text: string) => string;
  readonly onNotification?: (n: UpstreamNotification) => void;
  /** An undici dispatcher to share (default: an Agent of the channel's own). */
  readonly dispatcher?: Dispatcher;
  /** The dispatcher given is the channel's to close (the server's own proxy or TLS). */
  readonly ownsDispatcher?: boolean;
}

const ACCEPT = 'application/json, text/event-stream';
/** Headers the caller's may not set: undici's framing, and what the protocol needs as it is. */
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
/** The DELETE that ends a 2025-era session on close waits at most this long. */
const CLOSE_TIMEOUT_MS = 2_000;
/** Distinct 2026-07-28 header sets kept (version × method × tool name). */
const MAX_CACHED_HEADERS = 1024;

/** The connection pool of an upstream that was given none (its proxy or TLS would be one). */
export function upstreamAgent(): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 5_000 } });
}

export class HttpChannel implements RpcChannel {
  private sessionId: string | undefined = undefined;
  private version: string | undefined = undefined;
  private nextId = 1;
  private epochs = 1;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly base: Record<string, string>;
  /** The URL's origin and path, made once: a URL's getters build a new string per read. */
  private readonly origin: string;
  private readonly path: string;
  /**
   * Each call's headers, made once: a 2025-era session's for its session id and version,
   * a 2026-07-28 call's by version, method and name (a spec's tools are few). undici
   * only reads them, so concurrent calls share one object.
   */
  private legacyHeaders:
    | {
        sessionId: string | undefined;
        version: string | undefined;
        headers: Record<string, string>;
      }
    | undefined = undefined;
  private readonly modernHeaders = new Map<string, Record<string, string>>();

  constructor(private readonly o: HttpChannelOptions) {
    this.dispatcher = o.dispatcher ?? upstreamAgent();
    this.ownsDispatcher = o.dispatcher === undefined || o.ownsDispatcher === true;
    this.origin = o.url.origin;
    this.path = `${o.url.pathname}${o.url.search}`;
    this.base = {
      'user-agent': USER_AGENT,
      ...Object.fromEntries(
        Object.entries(o.headers)
          .map(([k, v]) => [k.toLowerCase(), v] as const)
          // The protocol's own headers are the channel's to set, per request and era.
          .filter(([k]) => !k.startsWith('mcp-') && !RESERVED.has(k)),
      ),
      // Ours win: the protocol needs them as they are.
      accept: ACCEPT,
      'content-type': 'application/json',
      'accept-encoding': 'identity',
    };
  }

  get epoch(): number {
    return this.epochs;
  }

  legacyVersion(version: string | undefined): void {
    this.version = version;
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    o: RequestOptions,
  ): Promise<UpstreamReply> {
    const id = this.nextId++;
    let body: string;
    try {
      body = messageText({ jsonrpc: '2.0', id, method, params }, o.texts);
    } catch {
      return failed('protocol', `the request ${method} could not be encoded as JSON`);
    }
    const sentSession = this.sessionId;
    const shared = this.headersFor(method, params);
    const answer = await postMessage(this.dispatcher, {
      origin: this.origin,
      path: this.path,
      headers: o.headers && o.headers.length > 0 ? withOwn(shared, o.headers) : shared,
      body,
      id,
      readCap: this.o.maxMessageBytes,
      timeoutMs: o.timeoutMs,
      cancel: o.cancel,
      onOther: (v) => this.other(v),
    });
    if (answer.kind === 'answer' && method === 'initialize' && answer.status < 300)
      this.sessionId = answer.sessionId;
    return this.reply(answer, id, method, sentSession, o);
  }

  async notify(
    method: string,
    params: Record<string, unknown> | undefined,
    o: RequestOptions,
  ): Promise<void> {
    let body: string;
    try {
      body = JSON.stringify({ jsonrpc: '2.0', method, ...(params && { params }) });
    } catch {
      return;
    }
    // Answered 202 with no body; whatever comes back changes nothing.
    await postMessage(this.dispatcher, {
      origin: this.origin,
      path: this.path,
      headers: this.headersFor(method, params ?? {}),
      body,
      id: undefined,
      readCap: 64 * 1024,
      timeoutMs: o.timeoutMs,
    });
  }

  /** Ends a 2025-era session (DELETE, best effort, bounded) and closes our agent. */
  async close(): Promise<void> {
    const sessionId = this.sessionId;
    this.sessionId = undefined;
    if (sessionId !== undefined) {
      await this.dispatcher
        .request({
          origin: this.origin,
          path: this.path,
          method: 'DELETE',
          headers: {
            ...this.base,
            'mcp-session-id': sessionId,
            ...(this.version && { 'mcp-protocol-version': this.version }),
          },
          headersTimeout: CLOSE_TIMEOUT_MS,
          bodyTimeout: CLOSE_TIMEOUT_MS,
        })
        .then((r) => r.body.dump())
        .catch(() => {});
    }
    if (this.ownsDispatcher) await this.dispatcher.close().catch(() => {});
  }

  private headersFor(method: string, params: Record<string, unknown>): Record<string, string> {
    const meta = params._meta as Record<string, unknown> | undefined;
    const claimed = meta?.[META_PROTOCOL_VERSION];
    if (typeof claimed === 'string') {
      // 2026-07-28: stateless, the headers mirror the body (the server checks them).
      const name = mcpNameOf(method, params);
      const key = `${claimed}\n${method}\n${name ?? ''}`;
      let headers = this.modernHeaders.get(key);
      if (!headers) {
        headers = {
          ...this.base,
          'mcp-protocol-version': claimed,
          'mcp-method': method,
          ...(name !== undefined && { 'mcp-name': encodeHeaderValue(name) }),
        };
        // Bounded: names come from the spec, but a cache must not grow without end.
        if (this.modernHeaders.size < MAX_CACHED_HEADERS) this.modernHeaders.set(key, headers);
      }
      return headers;
    }
    const c = this.legacyHeaders;
    if (c && c.sessionId === this.sessionId && c.version === this.version) return c.headers;
    const headers = {
      ...this.base,
      ...(this.sessionId !== undefined && { 'mcp-session-id': this.sessionId }),
      ...(this.version !== undefined && { 'mcp-protocol-version': this.version }),
    };
    this.legacyHeaders = { sessionId: this.sessionId, version: this.version, headers };
    return headers;
  }

  private reply(
    a: PostAnswer,
    id: number,
    method: string,
    sentSession: string | undefined,
    o: RequestOptions,
  ): UpstreamReply {
    const where = `mcp-server ${this.o.name}`;
    // Unsent: the deadline passed before the message could go out.
    const failure = a.kind === 'failed' ? failureClass(a, o.cancel) : undefined;
    if (a.kind === 'unsent' || failure?.kind === 'timeout')
      return failed('timeout', `${where}: no answer to ${method} within ${o.timeoutMs} ms`);
    if (a.kind === 'failed')
      return failed(
        'unavailable',
        failure?.kind === 'unreachable' ? `${where}: ${failure.message}` : CANCELLED,
      );
    if (a.kind === 'too-large')
      return failed(
        'protocol',
        `${where} answered ${method} with more than the cap of ${this.o.maxMessageBytes} bytes`,
      );
    const { status } = a;
    if (status >= 300 && status < 400)
      return failed(
        'protocol',
        `${where} answered with a ${status} redirect, which the gateway does not follow`,
      );
    if (
      sentSession !== undefined &&
      (status === 404 || (status === 400 && /session/i.test(a.text)))
    ) {
      // The upstream forgot the session: a new epoch, a new initialize.
      if (this.sessionId === sentSession) {
        this.sessionId = undefined;
        this.epochs += 1;
      }
      return {
        kind: 'session-lost',
        message: `${where} no longer knows the session (status ${status})`,
      };
    }
    // A token obtained for this call's caller was refused: said apart from any other
    // status, so the call may be sent once more with a fresh token (mcp-backend.ts).
    if (status === 401 && o.headers && o.headers.length > 0)
      return {
        kind: 'failed',
        error: {
          kind: 'protocol',
          message: `${where} answered with status 401: it refused the credential sent for this caller`,
          status: 401,
        },
      };
    const isJson = /^application\/([\w.+-]*\+)?json\b/.test(a.contentType);
    const isSse = a.contentType.startsWith('text/event-stream');
    if (status >= 200 && status < 300) {
      if (a.unanswered)
        return failed(
          'protocol',
          `${where}: the event stream ended without an answer to ${method}`,
        );
      if (!isJson && !isSse)
        return failed(
          'protocol',
          `${where} answered ${method} with ${a.contentType || 'no content type'}, not MCP`,
        );
    }
    const parsed = a.parsed ?? parseJson(a.text);
    const m = parsed === undefined ? undefined : classifyMessage(parsed);
    if (m?.kind === 'response' && (m.id === id || status >= 400)) return m.reply;
    // An error about a request the server could not read says so with id null. A 401 or
    // 403 with a body that is not JSON-RPC is an authorization refusal (RFC 6750's
    // `{"error":"invalid_token"}`): said by its status below, not as a malformed error.
    if (
      status >= 400 &&
      status !== 401 &&
      status !== 403 &&
      m?.kind === 'invalid' &&
      parsed &&
      typeof parsed === 'object' &&
      'error' in parsed
    )
      return replyOf(parsed as Record<string, unknown>);
    if (status >= 200 && status < 300)
      return failed(
        'protocol',
        `${where} answered ${method} with what is not a JSON-RPC response to it`,
      );
    const excerpt = capText(this.o.redact(a.text.trim()), 200);
    const said = excerpt ? `: ${JSON.stringify(excerpt)}` : '';
    if (status >= 500 || status === 429 || status === 408)
      return failed('unavailable', `${where} answered with status ${status}${said}`);
    return failed('protocol', `${where} answered with status ${status}${said}`);
  }

  private other(value: unknown): void {
    const m = classifyMessage(value);
    if (m.kind === 'notification') this.o.onNotification?.({ method: m.method, params: m.params });
  }
}

function failed(kind: 'timeout' | 'unavailable' | 'protocol', message: string): UpstreamReply {
  return { kind: 'failed', error: { kind, message } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The shared headers of a request plus this call's own (a token kind's credential): a
 * copy, since the shared object serves concurrent calls. The protocol's headers stay ours.
 */
function withOwn(
  shared: Record<string, string>,
  own: readonly (readonly [string, string])[],
): Record<string, string> {
  const out = { ...shared };
  for (const [k, v] of own) if (!k.startsWith('mcp-') && !RESERVED.has(k)) out[k] = v;
  return out;
}
