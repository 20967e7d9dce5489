/**
 * What the primary of `serve --workers N` and its workers say to each other over the
 * cluster's IPC channel, and the variables a worker is forked with. One file, so both
 * sides spell them the same.
 */

/** The worker's place in the set (1..N): a replacement takes the index of the one it replaces. */
export const WORKER_INDEX_ENV = 'MCP_BEAVER_WORKER';
/**
 * The consent key the primary made (hex), so that a confirmation state sealed by one
 * worker opens in every other. Read and removed from the environment at the worker's start.
 */
export const WORKER_KEY_ENV = 'MCP_BEAVER_WORKER_KEY';

export type WorkerMessage =
  /** Serving: the socket is bound (shared through the primary). */
  | { readonly type: 'mcp-beaver:listening'; readonly url: string; readonly metricsUrl?: string }
  /** Start-up refused (a StartupError): the primary prints it once and stops. */
  | { readonly type: 'mcp-beaver:start-failed'; readonly message: string }
  /** GET /metrics reached this worker: it asks for the sum over every worker. */
  | { readonly type: 'mcp-beaver:scrape'; readonly id: number };

export type PrimaryMessage =
  | { readonly type: 'mcp-beaver:reload'; readonly why: string }
  | { readonly type: 'mcp-beaver:scraped'; readonly id: number; readonly text?: string };

function isMessage(m: unknown): m is { type: string } {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';
}

export function isWorkerMessage(m: unknown): m is WorkerMessage {
  return isMessage(m) && m.type.startsWith('mcp-beaver:');
}

export function isPrimaryMessage(m: unknown): m is PrimaryMessage {
  return isMessage(m) && m.type.startsWith('mcp-beaver:');
}
