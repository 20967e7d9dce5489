/**
 * A worker of `serve --workers N`: the CLI's own `serve`, forked by the primary
 * (primary.ts) with the same arguments. What differs from a lone process is here: it
 * names itself on every log line, seals with the primary's consent key, reports
 * "listening" or its start-up refusal to the primary, reloads when the primary says so
 * (the primary alone watches the file), and answers GET /metrics with the sum over every
 * worker, which only the primary can collect.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { consentKeyFrom } from '../../engine/consent/consent-key.js';
import { adoptProcessKey } from '../../engine/consent/consent-services.js';
import {
  isPrimaryMessage,
  WORKER_INDEX_ENV,
  WORKER_KEY_ENV,
  type WorkerMessage,
} from './worker-messages.js';

/** How long a worker waits for the primary's sum before /metrics fails. */
const SCRAPE_TIMEOUT_MS = 10_000;

export interface WorkerSide {
  /** 1..N. */
  readonly index: number;
  /** Bound on every log line of this worker. */
  readonly bindings: { readonly worker: number; readonly pid: number };
  listening(url: string): void;
  /** Resolves once the message is on its way: the worker exits right after. */
  startFailed(message: string): Promise<void>;
  /** Calls `reload` each time the primary asks for a reload. */
  onReload(reload: (why: string) => void): void;
  /** Lets the primary collect `registry`, and returns what GET /metrics serves here. */
  shareMetrics(registry: Registry): () => Promise<string>;
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

/** This process's worker side, or undefined when it is not a worker of `serve --workers`. */
export function joinWorkerSet(): WorkerSide | undefined {
  if (!cluster.isWorker) return undefined;
  const { [WORKER_KEY_ENV]: keyHex, [WORKER_INDEX_ENV]: indexText } = process.env;
  const index = Number(indexText);
  // Nothing this process starts (an upstream's stdio child) inherits the key.
  Reflect.deleteProperty(process.env, WORKER_KEY_ENV);
  if (keyHex !== undefined) {
    const key = consentKeyFrom(WORKER_KEY_ENV, keyHex);
    if (key.ok) adoptProcessKey(key.key);
  }
  const scrapes = new Map<number, (text: string | undefined) => void>();
  let scrapeIds = 0;
  const reloads: ((why: string) => void)[] = [];
  process.on('message', (m: unknown) => {
    if (!isPrimaryMessage(m)) return;
    if (m.type === 'mcp-beaver:reload') for (const r of reloads) r(m.why);
    else if (m.type === 'mcp-beaver:scraped') scrapes.get(m.id)?.(m.text);
  });
  return {
    index,
    bindings: { worker: index, pid: process.pid },
    listening: (url) => send({ type: 'mcp-beaver:listening', url }),
    startFailed: (message) =>
      new Promise<void>((resolve) => {
        if (!process.send?.({ type: 'mcp-beaver:start-failed', message }, () => resolve()))
          resolve();
      }),
    onReload: (reload) => void reloads.push(reload),
    shareMetrics(registry) {
      // prom-client answers the primary's collection requests from these registries.
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([registry]);
      return () =>
        new Promise<string>((resolve, reject) => {
          const id = ++scrapeIds;
          const timer = setTimeout(() => {
            scrapes.delete(id);
            reject(new Error('the primary did not answer'));
          }, SCRAPE_TIMEOUT_MS);
          scrapes.set(id, (text) => {
            clearTimeout(timer);
            scrapes.delete(id);
            if (text === undefined) reject(new Error('the primary could not collect metrics'));
            else resolve(text);
          });
          send({ type: 'mcp-beaver:scrape', id });
        });
    },
  };
}
