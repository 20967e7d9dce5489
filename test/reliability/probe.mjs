/**
 * A probe in a process of its own, so that the load generator's event loop does not
 * colour what it measures: every `interval` ms it asks GET <url>/healthz (one at a
 * time, each on a new connection like a kubelet when `fresh`, else on one kept-alive
 * connection; a probe waits up to 60 s, so a slow answer is measured, not lost) and
 * reads the resident set of `pid` from /proc. On SIGTERM it prints
 * one JSON line: every probe's latency and status, the RSS samples, and how many times
 * the kept-alive connection was reset under a probe (which was then asked again).
 *
 *   node probe.mjs <url> <pid> <interval-ms> <fresh|keep>
 */
import { Agent, request } from 'undici';
import { statusKb } from '../../bench/lib/proc.mjs';
import { sleep } from '../../bench/lib/sleep.mjs';

const [url, pid, intervalText, mode] = process.argv.slice(2);
const interval = Number(intervalText);
const keep = new Agent({ connections: 1 });
const probes = [];
const rss = [];
let running = true;

const rssBytes = () => (statusKb(pid, 'VmRSS') ?? NaN) * 1024;

/** Resets of the kept-alive connection (see below), reported with the probes. */
let resets = 0;

async function ask(dispatcher) {
  try {
    const res = await request(`${url}/healthz`, {
      dispatcher,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    await res.body.text();
    return res.statusCode;
  } catch (err) {
    return err.code ?? 'error';
  }
}

async function probe() {
  const dispatcher = mode === 'fresh' ? new Agent({ connections: 1, pipelining: 0 }) : keep;
  const started = performance.now();
  let status = await ask(dispatcher);
  // A kept-alive connection idle past the server's keep-alive timeout (a probe process
  // starved for seconds on a busy machine) may be closed just as the next probe reuses
  // it: the usual keep-alive race, not a gateway failure. Ask again once, on a new one.
  if (dispatcher === keep && (status === 'ECONNRESET' || status === 'UND_ERR_SOCKET')) {
    resets += 1;
    status = await ask(keep);
  }
  probes.push({ at: Date.now(), ms: performance.now() - started, status });
  if (dispatcher !== keep) void dispatcher.destroy();
}

process.once('SIGTERM', () => {
  running = false;
});
process.stdout.write('ready\n');
while (running) {
  const next = performance.now() + interval;
  rss.push(rssBytes());
  await probe();
  const wait = next - performance.now();
  if (wait > 0) await sleep(wait);
}
process.stdout.write(`${JSON.stringify({ probes, rss, resets })}\n`);
await keep.close();
