/**
 * `npm run soak`: a bounded reliability soak of the real gateway process (issue 11,
 * docs/reliability.md). Loopback only.
 *
 * It starts a fault-injecting upstream (soak/fault-upstream.mjs) and, for the sql
 * grants, a fresh schema in a throwaway Postgres cluster it starts (or the server
 * DATABASE_URL / PG* name; test/helpers/test-services.ts), writes a spec,
 * spawns `node bin/mcp-beaver.js serve` as its own process, and drives it at a set
 * concurrency through both surfaces (POST /mcp and POST /api) with HTTP and sql
 * grants. Every request carries its own id, which the upstream or the database echoes
 * back, so each request is checked to get exactly one answer, and every outcome is
 * compared with the fault the upstream injected for that very request.
 *
 * It exits non-zero when a request got no answer (or two), the gateway died, an
 * outcome's share differs from the injected share by more than 1 point, a request's
 * outcome is not the one its fault calls for, the upstream saw something it must not
 * (off-prefix path, undeclared field, a retry), or RSS or open file descriptors grew
 * by more than 10% after warm-up (the first third of the run): the median of the
 * second half of what follows against the median of the first half.
 *
 * Run it through npm (`node --import tsx`): it shares test/helpers/postgres.ts with the
 * sql tests, the server's lock included.
 *
 *   npm run soak -- --duration 60s --concurrency 64
 *   npm run soak -- --mix 500=5,reset=3,hang=2,oversized=1 --sql-share 0.3
 *   npm run soak -- --pg-restart          (restart its own Postgres cluster mid-run)
 *   npm run soak -- --no-sql              (HTTP grants only; Postgres not needed)
 *   npm run soak -- --json out.json       (the figures as JSON too)
 *   npm run soak -- --overload            (burst figures instead: soak/overload.mjs)
 */
// The parts, one module each: soak-config (the options), soak-spec, gateway-process,
// traffic (the callers), watch (sampling, the Postgres restart), checks, report.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { freePort } from '../bench/lib/free-port.mjs';
import { sleep } from '../bench/lib/sleep.mjs';
import {
  createTestSchema,
  lockSharedPostgres,
  restartSkipReason,
} from '../test/helpers/postgres.ts';
import { startTestServices } from '../test/helpers/test-services.ts';
import {
  checkAnswers,
  checkGrowth,
  checkHttpOutcomes,
  checkPostgresRestart,
  checkSqlOutcomes,
  checkWrites,
} from './checks.mjs';
import { startFaultUpstream } from './fault-upstream.mjs';
import { GatewayProcess } from './gateway-process.mjs';
import { report, soakFigures } from './report.mjs';
import { soakConfig } from './soak-config.mjs';
import { SEED_SQL, soakSpec } from './soak-spec.mjs';
import { runLoad } from './traffic.mjs';
import { procStats, restartPostgresMidway, startSampling } from './watch.mjs';

// `--overload`: the burst figures (shedding, health probes, upstream admission) instead
// of the soak; see soak/overload.mjs.
if (process.argv.includes('--overload')) {
  const { runOverload } = await import('./overload.mjs');
  process.exit(await runOverload(process.argv.slice(2).filter((a) => a !== '--overload')));
}

const TOKEN = 'soak_upstream_token_7c1e';
/** A request not answered within this is counted as unanswered. */
const CLIENT_TIMEOUT_MS = 15_000;

const config = soakConfig(process.argv.slice(2));
if (config.help) {
  process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}

/** The fault upstream, the spec, the gateway process and the client agent; each pushes its clean-up. */
async function startHarness(cfg, withSql, schema, cleanups) {
  const upstream = await startFaultUpstream({
    mix: cfg.mix,
    seed: cfg.seed,
    latencyMs: [cfg.latencyMs[0], cfg.latencyMs[1]],
    token: TOKEN,
    hangMaxMs: 20_000,
  });
  cleanups.push(() => upstream.close());

  const dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-soak-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const specFile = join(dir, 'soak.mcp.kdl');
  writeFileSync(specFile, soakSpec(upstream.url, withSql, cfg.grantTimeout));
  const gw = new GatewayProcess(
    specFile,
    await freePort(),
    { SOAK_TOKEN: TOKEN, ...(schema && { DATABASE_URL: schema.url }) },
    cfg,
  );
  await gw.start();
  cleanups.push(async () => {
    if (!gw.stopping) await gw.stop();
  });

  const agent = new Agent({
    connections: cfg.concurrency + 8,
    keepAliveTimeout: 30_000,
    headersTimeout: CLIENT_TIMEOUT_MS,
    bodyTimeout: CLIENT_TIMEOUT_MS,
  });
  cleanups.push(() => agent.close());

  return { upstream, gw, agent };
}

async function main(cfg) {
  const withSql = cfg.sqlShare > 0;
  const cleanups = [];
  const results = { ok: true, failures: [] };
  const fail = (why) => {
    results.ok = false;
    results.failures.push(why);
  };
  let unlock;
  let schema;
  let services;
  try {
    if (withSql) {
      services = await startTestServices(process.env, { redis: false });
      Object.assign(process.env, services.vars);
      for (const note of services.notes) process.stdout.write(`soak: ${note}\n`);
      const notOurs = cfg.pgRestart && restartSkipReason();
      if (notOurs) throw new Error(`--pg-restart: ${notOurs}`);
      // Nobody restarts the server under the soak, and the soak restarts its own cluster
      // only while holding the same lock as the sql tests.
      process.stdout.write('soak: taking the Postgres lock…\n');
      unlock = await lockSharedPostgres(180_000);
      schema = await createTestSchema(SEED_SQL);
      cleanups.push(() => schema.drop());
    }
    const { upstream, gw, agent } = await startHarness(cfg, withSql, schema, cleanups);
    const firstPid = gw.pid;

    const startStats = procStats(gw.pid);
    process.stdout.write(
      `soak: gateway pid ${gw.pid} at ${gw.url}; ${cfg.concurrency} concurrent callers for ${cfg.durationMs / 1000} s; ` +
        `mix ${JSON.stringify(cfg.mix)}; sql share ${cfg.sqlShare}; mcp share ${cfg.mcpShare}\n`,
    );

    const samples = [];
    const lag = [];
    const t0 = Date.now();
    const stopSampling = startSampling(gw, agent, t0, samples, lag);
    const pg = cfg.pgRestart && withSql ? restartPostgresMidway(cfg, gw, agent, t0) : undefined;
    const records = await runLoad(cfg, gw, agent, t0);
    stopSampling();
    const loadEnd = Date.now();
    // Idle: keep-alive connections close; the descriptor count should fall back.
    await sleep(6_000);
    const idleStats = procStats(gw.pid);
    const health = await request(`${gw.url}/healthz`, { dispatcher: agent })
      .then(async (r) => (await r.body.text(), r.statusCode))
      .catch(() => 0);
    const stopped = await gw.stop();

    // ------------------------------------------------------------ checks
    const answers = checkAnswers(records, gw, firstPid, stopped, health, fail);
    const http = checkHttpOutcomes(cfg, records, upstream, fail);
    const sql = checkSqlOutcomes(records, pg, fail);
    const writes = await checkWrites(schema, sql.sqlRecs, pg, fail);
    if (pg) checkPostgresRestart(pg, sql.sqlWindow, fail);
    const growth = checkGrowth(cfg, samples, fail);

    const watched = { startStats, idleStats, samples, lag };
    const run = { t0, loadEnd, records, gw, stopped, pg, writes, watched };
    Object.assign(results, soakFigures(cfg, run, { answers, http, sql, growth }));
    report(results);
    if (cfg.json) writeFileSync(cfg.json, `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    await unlock?.();
    await services?.stop();
  }
  return results.ok ? 0 : 1;
}

process.exitCode = await main(config).catch((err) => {
  process.stderr.write(`soak: ${err.stack ?? err}\n`);
  return 2;
});
