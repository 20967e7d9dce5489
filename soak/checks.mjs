// The soak's verdict: each check compares what the traffic and the watchers recorded
// with what must hold, calls `fail(why)` for each breach, and returns its figures.
import { median } from '../bench/lib/stats.mjs';
import { EXPECTED_OUTCOME, FAULTS } from './fault-upstream.mjs';

const GROWTH_LIMIT = 0.1;
const SHARE_TOLERANCE_POINTS = 1;

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** Counts one more `key` in `counts`. */
const tally = (counts, key) => (counts[key] = (counts[key] ?? 0) + 1);

/** The records of one kind of grant (`http`, `sql`) answered exactly once. */
const answeredOf = (records, kind) =>
  records.filter((r) => r.kind.startsWith(kind) && r.answers === 1);

/** How many records had each outcome, in the order outcomes first occurred. */
function outcomesOf(recs) {
  const counts = {};
  for (const r of recs) tally(counts, r.outcome);
  return counts;
}

/**
 * Every request answered exactly once and by the answer meant for it; the gateway alive
 * throughout (the same process), exiting 0 on SIGTERM, and healthy after the run.
 */
export function checkAnswers(records, gw, firstPid, stopped, health, fail) {
  const unanswered = records.filter((r) => r.answers !== 1);
  const misrouted = records.filter((r) => r.answers === 1 && (!r.echo || !r.sameRequestId));
  if (unanswered.length)
    fail(`${unanswered.length} requests got no answer (first: ${JSON.stringify(unanswered[0])})`);
  if (misrouted.length)
    fail(
      `${misrouted.length} answers did not match their request (first: ${JSON.stringify(misrouted[0])})`,
    );
  if (gw.crashes.length || gw.pid !== firstPid)
    fail(`the gateway died ${gw.crashes.length} time(s): ${JSON.stringify(gw.crashes)}`);
  if (stopped.code !== 0) fail(`the gateway exited ${stopped.code} on SIGTERM`);
  if (health !== 200) fail(`/healthz answered ${health} after the run`);
  return { unanswered, misrouted };
}

/** HTTP grants: every outcome is the one its injected fault calls for, in the injected shares. */
export function checkHttpOutcomes(cfg, records, upstream, fail) {
  const up = upstream.stats();
  const httpRecs = answeredOf(records, 'http');
  const outcomeCounts = outcomesOf(httpRecs);
  const mismatches = {};
  const late = {};
  for (const r of httpRecs) {
    const fault = upstream.faultOf(r.id);
    const expected = fault === undefined ? 'not sent upstream' : EXPECTED_OUTCOME[fault];
    if (r.outcome === expected) continue;
    // A timeout is the right answer when the deadline really passed: on a busy
    // machine an answer the upstream sent in time can still arrive late.
    if (r.outcome === 'UPSTREAM_TIMEOUT' && r.ms >= cfg.grantTimeoutMs) {
      tally(late, fault);
      continue;
    }
    const key = `${fault ?? 'none'} → ${r.outcome} (${r.surface})`;
    tally(mismatches, key);
  }
  const mismatchTotal = Object.values(mismatches).reduce((a, b) => a + b, 0);
  if (mismatchTotal)
    fail(
      `${mismatchTotal} HTTP outcomes differ from their injected fault: ${JSON.stringify(mismatches)}`,
    );
  const shares = [];
  const configured = {
    ok: 100 - cfg.mix.status500 - cfg.mix.reset - cfg.mix.hang - cfg.mix.oversized,
    ...cfg.mix,
  };
  for (const fault of FAULTS) {
    const code = EXPECTED_OUTCOME[fault];
    const observed = (100 * (outcomeCounts[code] ?? 0)) / Math.max(1, httpRecs.length);
    const injected = (100 * up.counts[fault]) / Math.max(1, up.requests);
    shares.push({ fault, code, configured: configured[fault], injected, observed });
    if (Math.abs(observed - configured[fault]) > SHARE_TOLERANCE_POINTS)
      fail(`${code}: ${fmt(observed, 2)}% observed, ${configured[fault]}% injected`);
  }
  if (up.violations.length)
    fail(
      `the upstream saw ${up.violations.length} forbidden request(s): ${up.violations.slice(0, 5).join('; ')}`,
    );
  return { up, httpRecs, outcomeCounts, mismatches, late, shares };
}

/** sql grants: all ok, except clean failures while Postgres restarts. */
export function checkSqlOutcomes(records, pg, fail) {
  const inWindow = (rec) =>
    pg?.restartAt !== undefined &&
    rec.end >= pg.restartAt - 500 &&
    rec.at <= (pg.readyAgainAt ?? pg.backAt ?? Infinity) + 2_000;
  const sqlRecs = answeredOf(records, 'sql');
  const sqlOutcomes = outcomesOf(sqlRecs);
  const sqlOutside = outcomesOf(sqlRecs.filter((r) => !inWindow(r)));
  const sqlWindow = outcomesOf(sqlRecs.filter(inWindow));
  const badOutside = Object.entries(sqlOutside).filter(([k]) => k !== 'ok');
  if (badOutside.length)
    fail(`sql grants failed outside a Postgres restart: ${JSON.stringify(badOutside)}`);
  const unclean = Object.keys(sqlWindow).filter(
    (k) => !['ok', 'DATABASE_UNAVAILABLE', 'SQL_TIMEOUT', 'POOL_EXHAUSTED'].includes(k),
  );
  if (unclean.length)
    fail(`sql calls during the restart failed uncleanly: ${JSON.stringify(sqlWindow)}`);
  return { sqlRecs, sqlOutcomes, sqlWindow };
}

/** Writes: each acknowledged insert is in the table exactly once. */
export async function checkWrites(schema, sqlRecs, pg, fail) {
  let writes;
  if (schema) {
    const acked = sqlRecs
      .filter((r) => r.kind === 'sql-write' && r.outcome === 'ok')
      .map((r) => r.id);
    const { rows } = await schema.pool.query(
      'SELECT tag, count(*)::int AS c FROM hits GROUP BY tag',
    );
    const stored = new Map(rows.map((r) => [r.tag, r.c]));
    const lost = acked.filter((t) => stored.get(t) !== 1);
    const ackedSet = new Set(acked);
    const unacked = rows.filter((r) => !ackedSet.has(r.tag)).length;
    writes = {
      acknowledged: acked.length,
      stored: rows.length,
      lostOrDoubled: lost.length,
      storedButFailed: unacked,
    };
    if (lost.length) fail(`${lost.length} acknowledged writes are missing or doubled`);
    if (unacked && !pg) fail(`${unacked} writes landed although the gateway reported them failed`);
  }
  return writes;
}

/** What readiness said around the Postgres restart, and whether it came back by itself. */
export function checkPostgresRestart(pg, sqlWindow, fail) {
  const { readyz, db } = pg;
  const during = readyz.filter((r) => r.at >= pg.restartAt && r.at <= (pg.backAt ?? Infinity));
  pg.readyz503 = readyz.filter((r) => r.status === 503).length;
  // Run-length readiness timeline from the restart on, e.g. "200×3 503×12 200×1".
  const runs = [];
  for (const r of readyz.filter((x) => x.at >= pg.restartAt)) {
    const last = runs.at(-1);
    if (last && last[0] === r.status) last[1] += 1;
    else runs.push([r.status, 1]);
  }
  pg.readyzTimeline = runs.map(([st, n]) => `${st}×${n}`).join(' ');
  pg.readyzDuring = during.length;
  // While the database itself refused connections, what did readiness say?
  const downs = db.filter((d) => !d.up).map((d) => d.at);
  if (downs.length) {
    const [from, to] = [Math.min(...downs), Math.max(...downs) + 100];
    const probes = readyz.filter((r) => r.at >= from && r.at <= to);
    pg.databaseDownMs = to - from;
    pg.readyzWhileDown = {
      probes: probes.length,
      notReady: probes.filter((r) => r.status !== 200).length,
    };
    if (probes.length && pg.readyzWhileDown.notReady < probes.length / 2)
      fail(
        `readiness said ready for ${probes.length - pg.readyzWhileDown.notReady} of ${probes.length} probes while the database was down`,
      );
  }
  pg.restartCommandMs = (pg.backAt ?? NaN) - pg.restartAt;
  pg.readyAgainAfterMs = (pg.readyAgainAt ?? NaN) - (pg.backAt ?? NaN);
  pg.sqlWindow = sqlWindow;
  if (pg.error) fail(`Postgres restart: ${pg.error}`);
  if (!pg.readyz503) fail('readiness never reported the database outage (no 503 from /readyz)');
  if (!pg.readyAgainAt) fail('readiness did not come back after Postgres did');
  delete pg.readyz;
  delete pg.db;
}

/**
 * RSS and file descriptors: the end of the run against the end of warm-up. V8 grows
 * and shrinks its heap in a sawtooth of tens of MB under this load: compare the median
 * of the first half after warm-up with the median of the second half.
 */
export function checkGrowth(cfg, samples, fail) {
  const half = cfg.warmupMs + (cfg.durationMs - cfg.warmupMs) / 2;
  const warm = samples.filter((s) => s.t >= cfg.warmupMs && s.t < half);
  const tail = samples.filter((s) => s.t >= half && s.t <= cfg.durationMs);
  const rssWarm = median(warm.map((s) => s.rssMb));
  const rssEnd = median(tail.map((s) => s.rssMb));
  const fdWarm = median(warm.map((s) => s.fds));
  const fdEnd = median(tail.map((s) => s.fds));
  if (rssEnd > rssWarm * (1 + GROWTH_LIMIT))
    fail(
      `RSS grew ${fmt(100 * (rssEnd / rssWarm - 1))}% after warm-up (${fmt(rssWarm)} → ${fmt(rssEnd)} MB)`,
    );
  if (fdEnd > fdWarm * (1 + GROWTH_LIMIT))
    fail(
      `open file descriptors grew ${fmt(100 * (fdEnd / fdWarm - 1))}% after warm-up (${fdWarm} → ${fdEnd})`,
    );
  return { rssWarm, rssEnd, fdWarm, fdEnd };
}
