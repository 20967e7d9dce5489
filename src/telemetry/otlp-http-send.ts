/**
 * One OTLP/HTTP POST to a collector, with the SDK's retries (issue 40): what
 * `createOtlpHttpExportDelegate` of @opentelemetry/otlp-exporter-base/node-http does for
 * an uncompressed export, at about half its CPU (bench/span-export-post.mjs). The SDK's
 * transport parses the URL and awaits its agent and headers on every POST, and pipes the
 * body through a Readable into the request, so it goes out chunked; here the URL, the
 * agent and the headers are made once, and the body is written with a Content-Length.
 * The body's bytes, the headers (the configured ones, then Content-Type and the SDK's
 * User-Agent, which win) and every rule below are the SDK's (otlp-exporter-base 0.223:
 * http-transport-utils.js, retrying-transport.js, is-export-retryable.js):
 *
 * - a 2xx is success, with the answer's bytes; 429, 502, 503 and 504 are retryable, at
 *   the time Retry-After gives; any other status fails at once, with the answer's text;
 *   an answer over 4 MB fails and its connection is closed;
 * - a refused, reset or unreachable connection (the codes below) is retryable, any other
 *   error of the request fails;
 * - a socket idle for the timeout ends the attempt (retryable);
 * - at most 5 retries after the first attempt, waiting 1 s, then × 1.5 each time, at most
 *   5 s, each ± 20 % at random, unless Retry-After says otherwise; no retry whose wait
 *   would end after the export's deadline (its timeout from the first attempt), and a
 *   retry's idle timeout is what was left of the deadline before the wait.
 *
 * https collectors: the agent trusts OTEL_EXPORTER_OTLP_CERTIFICATE and presents
 * _CLIENT_KEY/_CLIENT_CERTIFICATE (telemetry-config.ts reads the paths); a file that
 * cannot be read is left out with a warning on the OpenTelemetry diag logger, as the SDK
 * does.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { resolve } from 'node:path';
import { urlToHttpOptions } from 'node:url';
import { diag } from '@opentelemetry/api';
import { OTLPExporterError, type ExportResponse } from '@opentelemetry/otlp-exporter-base';
import type { TlsFiles } from './telemetry-config.js';

/**
 * The SDK's transport's User-Agent, `OTel-OTLP-Exporter-JavaScript/<otlp-exporter-base
 * version>`: the package does not export its version, so it is written here, and
 * test/telemetry/otlp-http-send.test.ts compares it with what the SDK's transport sends.
 */
export const USER_AGENT = 'OTel-OTLP-Exporter-JavaScript/0.223.0';

/** The SDK's bound on a collector's answer: beyond it the export fails, not retried. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

const RETRIES = 5;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5_000;
const BACKOFF_MULTIPLIER = 1.5;
const JITTER = 0.2;

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_NETWORK_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

export interface OtlpHttpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly contentType: string;
  readonly tls?: Readonly<TlsFiles> | undefined;
}

/**
 * Retry-After in milliseconds, read as the SDK reads it: whole seconds (parseInt, so
 * `1.5` is 1 s; zero or less is -1, at once), else an HTTP date (its distance from now,
 * 0 when past); absent, undefined (the backoff decides).
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number.parseInt(value, 10);
  if (Number.isInteger(seconds)) return seconds > 0 ? seconds * 1000 : -1;
  const delay = new Date(value).getTime() - now;
  // A date that does not parse is NaN: neither a delay nor past, so 0 as the SDK has it.
  return delay >= 0 ? delay : 0;
}

function readTlsFile(path: string | undefined, what: string): Buffer | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(resolve(process.cwd(), path));
  } catch {
    diag.warn(`Failed to read ${what}`);
    return undefined;
  }
}

/** The https agent's options of the configured files (the SDK's agent options). */
export function tlsOptions(tls: Readonly<TlsFiles> | undefined): https.AgentOptions {
  return {
    ca: readTlsFile(tls?.certificate, 'root certificate file'),
    key: readTlsFile(tls?.clientKey, 'client certificate private key file'),
    cert: readTlsFile(tls?.clientCertificate, 'client certificate chain file'),
  };
}

function agentFor(protocol: string, tls: Readonly<TlsFiles> | undefined): http.Agent {
  if (protocol === 'http:') return new http.Agent({ keepAlive: true });
  return new https.Agent({ keepAlive: true, ...tlsOptions(tls) });
}

const wait = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** -20 % … +20 %. */
const jitter = (): number => Math.random() * (2 * JITTER) - JITTER;

export class OtlpHttpSender {
  private readonly request: typeof http.request;
  private readonly agent: http.Agent;
  private readonly options: http.RequestOptions;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(target: OtlpHttpTarget) {
    const url = new URL(target.url);
    this.request = url.protocol === 'https:' ? https.request : http.request;
    this.agent = agentFor(url.protocol, target.tls);
    this.options = { ...urlToHttpOptions(url), method: 'POST', agent: this.agent };
    // Spelled as the SDK spells them: a configured content-type or user-agent loses.
    this.headers = {
      ...target.headers,
      'Content-Type': target.contentType,
      'User-Agent': USER_AGENT,
    };
    this.timeoutMs = target.timeoutMs;
  }

  /**
   * POSTs the body, `parts` written one after the other (the caller may keep them until
   * the promise settles: the last attempt has ended then), retrying as the SDK does.
   */
  async send(parts: readonly Uint8Array[]): Promise<ExportResponse> {
    let length = 0;
    for (const part of parts) length += part.length;
    const deadline = Date.now() + this.timeoutMs;
    let result = await this.attempt(parts, length, this.timeoutMs);
    let backoff = FIRST_BACKOFF_MS;
    for (let retry = 0; result.status === 'retryable' && retry < RETRIES; retry++) {
      const jittered = Math.max(Math.min(backoff * (1 + jitter()), MAX_BACKOFF_MS), 0);
      backoff *= BACKOFF_MULTIPLIER;
      const delay = result.retryInMillis ?? jittered;
      const left = deadline - Date.now();
      if (delay > left) return result;
      await wait(delay);
      result = await this.attempt(parts, length, left);
    }
    return result;
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private attempt(
    parts: readonly Uint8Array[],
    length: number,
    timeoutMs: number,
  ): Promise<ExportResponse> {
    return new Promise((settle) => {
      const req = this.request(
        { ...this.options, headers: { ...this.headers, 'Content-Length': String(length) } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) {
              // Settled first: destroying the socket makes the request emit ECONNRESET.
              settle({
                status: 'failure',
                error: new Error(
                  `OTLP export response body exceeded size limit of ${MAX_ANSWER_BYTES} bytes`,
                ),
              });
              res.destroy();
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status > 0 && status <= 299)
              settle({ status: 'success', data: Buffer.concat(chunks) });
            else if (RETRYABLE_STATUS.has(status))
              settle({ status: 'retryable', retryInMillis: retryAfterOf(res) });
            else
              settle({
                status: 'failure',
                error: new OTLPExporterError(
                  res.statusMessage,
                  res.statusCode,
                  Buffer.concat(chunks).toString(),
                ),
              });
          });
          // 'end' may follow: the first settle counts.
          res.on('error', (error) => {
            const status = res.statusCode ?? 0;
            // The body was sent and answered 2xx: a broken answer is still success.
            if (status > 0 && status <= 299) settle({ status: 'success' });
            else if (RETRYABLE_STATUS.has(status))
              settle({ status: 'retryable', error, retryInMillis: retryAfterOf(res) });
            else settle({ status: 'failure', error });
          });
        },
      );
      req.setTimeout(timeoutMs, () => {
        req.destroy();
        settle({ status: 'retryable', error: new Error('Request timed out') });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        const retryable =
          typeof error.code === 'string' && RETRYABLE_NETWORK_ERRORS.has(error.code);
        settle({ status: retryable ? 'retryable' : 'failure', error });
      });
      const last = parts.length - 1;
      for (let i = 0; i < last; i++) req.write(parts[i]);
      req.end(last >= 0 ? parts[last] : undefined);
    });
  }
}

function retryAfterOf(res: http.IncomingMessage): number | undefined {
  return retryAfterMs(res.headers['retry-after']);
}
