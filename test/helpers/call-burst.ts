/**
 * A burst of concurrent calls of `get_slow` (a grant taking `n`), each on a connection of
 * its own, as the reliability tests send it to see what the gateway serves and what it
 * sheds. Each answer says what happened to call `n`: its status (or the socket error's
 * code), the catalogue code, the `n` the upstream echoed and the Retry-After it was told.
 */
import { Agent, request } from 'undici';

export interface BurstAnswer {
  n: number;
  status: number | string;
  code?: string | undefined;
  message?: string | undefined;
  echoed?: string | undefined;
  retryAfter?: string | string[] | undefined;
}

export interface BurstOptions {
  /** The first call's `n`; the others count up from it. */
  readonly from: number;
  readonly count: number;
  /** How long a call may wait for its connection, its headers and its body. */
  readonly timeoutMs: number;
  /** Connections beyond one a call, for the machine's own retries. */
  readonly spareConnections: number;
}

export async function burstOfCalls(url: string, opts: BurstOptions): Promise<BurstAnswer[]> {
  const agent = new Agent({
    connections: opts.count + opts.spareConnections,
    connect: { timeout: opts.timeoutMs },
  });
  try {
    return await Promise.all(
      Array.from({ length: opts.count }, async (_, i): Promise<BurstAnswer> => {
        const n = opts.from + i;
        try {
          const res = await request(`${url}/api/get_slow`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ n: String(n) }),
            headersTimeout: opts.timeoutMs,
            bodyTimeout: opts.timeoutMs,
          });
          const body = (await res.body.json()) as {
            result?: { n: string };
            error?: { code: string; message: string };
          };
          return {
            n,
            status: res.statusCode,
            code: res.statusCode === 200 ? 'ok' : body.error?.code,
            echoed: body.result?.n,
            message: body.error?.message,
            retryAfter: res.headers['retry-after'],
          };
        } catch (err) {
          return { n, status: (err as { code?: string }).code ?? String(err) };
        }
      }),
    );
  } finally {
    await agent.close();
  }
}
