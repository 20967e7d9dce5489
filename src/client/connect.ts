/**
 * A connection to a remote MCP server (a running gateway or any other) for the
 * `tools <url>`, `call` and `discover` commands, built on the official SDK v2
 * client and its Streamable HTTP transport.
 *
 * The SDK handles negotiation (server/discover probe, initialize fallback), JSON
 * and SSE answers, the legacy session id (kept from initialize and sent back),
 * and the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers. What it leaves
 * to us: ending the session with DELETE on close (its `close()` only aborts),
 * a deadline on every HTTP exchange (the DELETE and a hung body included), and
 * the initialize result as sent, for `discover`.
 */
import { readFile } from 'node:fs/promises';
import {
  Client,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type ElicitRequestParams,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { MODERN_VERSION } from '../mcp-wire/versions.js';
import type { RemoteOptions } from './options.js';

export interface Connection {
  readonly client: Client;
  readonly url: URL;
  /** Options for every request: the SDK's own timeout for the JSON-RPC answer. */
  readonly request: { timeout: number; maxTotalTimeout: number };
  /** The `server/discover` result (modern, every field kept) or the `initialize` result as sent. */
  handshake(): unknown;
  /** Ends the session (DELETE, best effort, bounded) and closes the client. */
  close(): Promise<void>;
}

/** Answers the server's questions to the user (`call`); without it none is declared. */
export type Elicit = (params: ElicitRequestParams) => Promise<ElicitResult>;

export async function connect(o: RemoteOptions, elicit?: Elicit): Promise<Connection> {
  const refusals = refusalRecorder(deadlineFetch(o.timeoutMs));
  const transport = new StreamableHTTPClientTransport(o.url, {
    requestInit: { headers: o.headers },
    fetch: refusals.fetch,
  });
  // The client keeps the discover result whole but only parts of the initialize
  // result; a handler set before connect() sees every answer after negotiation
  // (the SDK chains it), so the initialize result is kept here as the server sent it.
  let initializeResult: unknown;
  transport.onmessage = (message) => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (initializeResult === undefined && isInitializeResult(result)) initializeResult = result;
  };
  const client = new Client(
    { name: 'mcp-beaver', version: await ownVersion() },
    {
      versionNegotiation: {
        mode: o.era === 'modern' ? { pin: MODERN_VERSION } : o.era,
        probe: { timeoutMs: o.timeoutMs },
      },
      // Declared only by a command that can answer: a gateway asks such a client to
      // confirm (form) or shows it the approval (URL) instead of refusing the call.
      ...(elicit && { capabilities: { elicitation: { form: {}, url: {} } } }),
    },
  );
  if (elicit) client.setRequestHandler('elicitation/create', async (req) => elicit(req.params));
  // Transport errors also reject the request they belong to; nothing to add here.
  client.onerror = () => {};
  const request = { timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs };
  const close = async (): Promise<void> => {
    if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  };
  try {
    await client.connect(transport, request);
  } catch (err) {
    await close();
    throw refusals.explain(err);
  }
  return {
    client,
    url: o.url,
    request,
    handshake: () =>
      client.getProtocolEra() === 'modern'
        ? client.getDiscoverResult()
        : (initializeResult ?? {
            protocolVersion: client.getNegotiatedProtocolVersion(),
            capabilities: client.getServerCapabilities(),
            serverInfo: client.getServerVersion(),
            instructions: client.getInstructions(),
          }),
    close,
  };
}

/** Runs `use` on a connection and closes it afterwards, whatever happens. */
export async function withConnection<T>(
  o: RemoteOptions,
  use: (c: Connection) => Promise<T>,
  elicit?: Elicit,
): Promise<T> {
  const c = await connect(o, elicit);
  try {
    return await use(c);
  } finally {
    await c.close();
  }
}

function isInitializeResult(result: Record<string, unknown> | undefined): boolean {
  if (!result || typeof result !== 'object') return false;
  return typeof result.protocolVersion === 'string' && typeof result.serverInfo === 'object';
}

/**
 * fetch with a deadline on each exchange except the standing GET stream (which
 * close() aborts): the SDK's request timeout covers the JSON-RPC answer, not a
 * DELETE on close or a `notifications/cancelled` POST.
 */
function deadlineFetch(timeoutMs: number): typeof fetch {
  return (input, init = {}) => {
    if ((init.method ?? 'GET').toUpperCase() === 'GET') return fetch(input, init);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, signal });
  };
}

/** How much of a refusal's body is kept to explain it: enough for one error line. */
const REFUSAL_TEXT_BYTES = 4096;

/**
 * The last 404 seen while connecting. Pinned to 2026-07-28, the SDK reports a failed
 * server/discover as "the server did not offer" the version, and the 404 that said why
 * (NOT_FOUND for a toolset URL that names none) is lost; `explain` puts it back, in the
 * shape the error line reads. Only a 404: nothing being there is never a matter of
 * versions, while a 400 from a server of the older era is what the SDK's sentence means.
 */
function refusalRecorder(inner: typeof fetch): {
  fetch: typeof fetch;
  explain(err: unknown): unknown;
} {
  let last: { status: number; statusText: string; text: string } | undefined;
  return {
    fetch: async (input, init) => {
      const res = await inner(input, init);
      if (res.status === 404) {
        const text = await res
          .clone()
          .text()
          .then((t) => t.slice(0, REFUSAL_TEXT_BYTES))
          .catch(() => '');
        last = { status: res.status, statusText: res.statusText, text };
      }
      return res;
    },
    explain(err) {
      if (last === undefined) return err;
      if (!(err instanceof SdkError) || err.code !== SdkErrorCode.EraNegotiationFailed) return err;
      // A status the SDK already named (its own HTTP error) needs no second telling.
      if (httpStatusOf(err) !== undefined) return err;
      return new SdkError(SdkErrorCode.EraNegotiationFailed, err.message, last, { cause: err });
    },
  };
}

function httpStatusOf(err: SdkError): number | undefined {
  const status = (err.data as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

let versionText: string | undefined;
async function ownVersion(): Promise<string> {
  if (versionText === undefined) {
    try {
      const pkg = JSON.parse(
        await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
      ) as { version?: string };
      versionText = pkg.version ?? '0.0.0';
    } catch {
      versionText = '0.0.0';
    }
  }
  return versionText;
}
