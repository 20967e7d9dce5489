// What bench/call-instructions.mjs and bench/mcp-call-instructions.mjs share: a gateway
// started under `valgrind --tool=callgrind --separate-threads=yes` is sent warm calls,
// its counters are zeroed, the counted calls are sent, and each thread's dump is read.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `n` calls of `request`, `connections` at a time, each answer checked by `accept(status, text)`. */
export async function sendCalls(pool, request, n, connections, accept) {
  const { pathname } = new URL(request.url);
  let sent = 0;
  const worker = async () => {
    while (sent < n) {
      sent++;
      const res = await pool.request({
        path: pathname,
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      const text = await res.body.text();
      if (!accept(res.statusCode, text))
        throw new Error(`unexpected answer ${res.statusCode} ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

/** The instructions of each thread's dump in `dir` (cg.out.1-NN), main thread first. */
export function threadTotals(dir) {
  return readdirSync(dir)
    .filter((f) => /^cg\.out\.1-\d+$/.test(f))
    .sort()
    .map((f) => Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'))[1]));
}

/**
 * Instructions a call of the gateway `pid` (dumping into `work`): `warm` calls, then the
 * counters zeroed, `calls` calls, a dump. Main thread and all threads, per call.
 */
export async function instructionsPerCall({
  pid,
  pool,
  request,
  warm,
  calls,
  connections,
  accept,
  work,
  what,
}) {
  await sendCalls(pool, request, warm, connections, accept);
  spawnSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
  await sendCalls(pool, request, calls, connections, accept);
  spawnSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  const threads = threadTotals(work);
  if (threads.length === 0) throw new Error(`${what}: no callgrind dump`);
  return {
    mainThread: Math.round(threads[0] / calls),
    allThreads: Math.round(threads.reduce((a, b) => a + b, 0) / calls),
  };
}
