// What watches the gateway while the soak's traffic runs: its memory, descriptors,
// event-loop delay and heap, and, with --pg-restart, what readiness and the database
// said around a Postgres restart halfway through.
import pgLib from 'pg';
import { request } from 'undici';
import { MB, procStatus } from '../bench/lib/proc.mjs';
import { sleep } from '../bench/lib/sleep.mjs';
import { restartPostgres, testDatabaseUrl, waitForPostgres } from '../test/helpers/postgres.ts';

/** The gateway's resident set (MB) and open descriptors, or undefined once it is gone. */
export function procStats(pid) {
  const s = procStatus(pid);
  return s && { rssMb: s.rss / MB, fds: s.fds };
}

/**
 * While the load runs: the gateway's RSS and descriptors every second (/proc), its
 * event-loop delay and heap every 2 s (/metrics). Returns the stop.
 */
export function startSampling(gw, agent, t0, samples, lag) {
  const sampler = setInterval(() => {
    const s = procStats(gw.pid);
    if (s) samples.push({ t: Date.now() - t0, ...s });
  }, 1_000);
  const lagScraper = setInterval(() => {
    void request(`${gw.url}/metrics`, { dispatcher: agent })
      .then((r) => r.body.text())
      .then((text) => {
        const metric = (name) =>
          Number(new RegExp(`^mcp_beaver_${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1]);
        const v = metric('nodejs_eventloop_lag_p99_seconds');
        if (Number.isFinite(v))
          lag.push({
            t: Date.now() - t0,
            p99ms: v * 1000,
            heapUsedMb: metric('nodejs_heap_size_used_bytes') / 2 ** 20,
            heapTotalMb: metric('nodejs_heap_size_total_bytes') / 2 ** 20,
            externalMb: metric('nodejs_external_memory_bytes') / 2 ** 20,
          });
      })
      .catch(() => undefined);
  }, 2_000);
  return () => {
    clearInterval(sampler);
    clearInterval(lagScraper);
  };
}

/**
 * Halfway through the load, restarts Postgres while polling /readyz and the database
 * itself every 100 ms; what it saw is filled into the returned record as it happens.
 */
export function restartPostgresMidway(cfg, gw, agent, t0) {
  const readyz = [];
  const db = [];
  const pg = { readyz, db };
  void (async () => {
    await sleep(cfg.durationMs / 2);
    const poll = setInterval(() => {
      const at = Date.now();
      void request(`${gw.url}/readyz`, { dispatcher: agent })
        .then(async (r) => {
          await r.body.text();
          readyz.push({ at, status: r.statusCode, ms: Date.now() - at });
        })
        .catch(() => readyz.push({ at, status: 0, ms: Date.now() - at }));
    }, 100);
    // The database's own view, for comparison: a fresh connection and SELECT 1 every 100 ms.
    const dbPoll = setInterval(() => {
      const at = Date.now();
      const c = new pgLib.Client({
        connectionString: testDatabaseUrl(),
        connectionTimeoutMillis: 1_000,
      });
      c.on('error', () => undefined);
      void c
        .connect()
        .then(() => c.query('SELECT 1'))
        .then(
          () => db.push({ at, up: true }),
          () => db.push({ at, up: false }),
        )
        .finally(() => void c.end().catch(() => undefined));
    }, 100);
    pg.restartAt = Date.now();
    process.stdout.write(
      `soak: restarting Postgres at t=${((pg.restartAt - t0) / 1000).toFixed(1)} s\n`,
    );
    try {
      await restartPostgres();
    } catch (err) {
      pg.error = String(err);
    }
    await waitForPostgres(30_000);
    pg.backAt = Date.now();
    // Readiness must come back by itself, without a gateway restart.
    for (let i = 0; i < 100; i++) {
      const last = readyz.at(-1);
      if (last && last.at > pg.backAt && last.status === 200) break;
      await sleep(100);
    }
    clearInterval(poll);
    clearInterval(dbPoll);
    pg.readyAgainAt = readyz.find((r) => r.at > pg.backAt && r.status === 200)?.at;
  })().then(
    () => (pg.done = true),
    (err) => (pg.error = String(err)),
  );
  return pg;
}
