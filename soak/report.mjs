// What the soak prints (and writes with --json): its figures gathered from the traffic,
// the watchers and the checks, and the text report of them.
import { percentile, stats } from '../bench/lib/stats.mjs';
import { fmt } from './checks.mjs';

/**
 * The run's figures, for the report and --json: `run` is what the run recorded, `checked`
 * what each check returned.
 */
export function soakFigures(cfg, run, checked) {
  const { t0, loadEnd, records, gw, stopped, pg, writes } = run;
  const { startStats, idleStats, samples, lag } = run.watched;
  const { unanswered, misrouted } = checked.answers;
  const { up, httpRecs, outcomeCounts, mismatches, late, shares } = checked.http;
  const { sqlRecs, sqlOutcomes } = checked.sql;
  const { growth } = checked;
  const lat = (rs) => {
    const ms = rs.map((r) => r.ms);
    return {
      n: ms.length,
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      p999: percentile(ms, 99.9),
    };
  };
  const answered = records.filter((r) => r.answers === 1);
  const lagP99 = stats(lag.map((l) => l.p99ms));
  return {
    date: new Date(t0).toISOString(),
    node: process.version,
    config: {
      durationS: cfg.durationMs / 1000,
      concurrency: cfg.concurrency,
      mix: cfg.mix,
      latencyMs: [cfg.latencyMs[0], cfg.latencyMs[1]],
      grantTimeout: cfg.grantTimeout,
      sqlShare: cfg.sqlShare,
      mcpShare: cfg.mcpShare,
      maxInFlight: cfg.maxInFlight,
      pgRestart: Boolean(pg),
      logLevel: cfg.logLevel,
      seed: cfg.seed,
    },
    requests: {
      sent: records.length,
      answered: answered.length,
      unanswered: unanswered.length,
      misrouted: misrouted.length,
      perSecond: records.length / ((loadEnd - t0) / 1000),
      bySurface: {
        mcp: records.filter((r) => r.surface === 'mcp').length,
        rest: records.filter((r) => r.surface === 'rest').length,
      },
    },
    outcomes: { http: outcomeCounts, sql: sqlOutcomes },
    shares,
    mismatches,
    lateTimeouts: late,
    upstream: {
      requests: up.requests,
      duplicates: up.duplicates,
      violations: up.violations.length,
      injected: up.counts,
    },
    writes,
    latencyMs: {
      all: lat(answered),
      httpOk: lat(httpRecs.filter((r) => r.outcome === 'ok')),
      httpFaults: lat(httpRecs.filter((r) => r.outcome !== 'ok')),
      sql: lat(sqlRecs),
      mcp: lat(answered.filter((r) => r.surface === 'mcp')),
      rest: lat(answered.filter((r) => r.surface === 'rest')),
    },
    gateway: {
      crashes: gw.crashes.length,
      exit: stopped,
      rssMb: {
        start: startStats?.rssMb,
        warm: growth.rssWarm,
        end: growth.rssEnd,
        peak: Math.max(...samples.map((x) => x.rssMb)),
        idle: idleStats?.rssMb,
      },
      fds: {
        start: startStats?.fds,
        warm: growth.fdWarm,
        end: growth.fdEnd,
        idle: idleStats?.fds,
      },
      eventLoopLagP99Ms: {
        median: lagP99?.median,
        max: lagP99?.max,
        scrapes: lag.length,
      },
      // Every 5 s: RSS and fds from /proc, JS heap in use and external memory from /metrics.
      series: samples
        .filter((x, i) => i % 5 === 4)
        .map((x) => {
          const m = lag.filter((l) => l.t <= x.t).at(-1);
          return {
            t: Math.round(x.t / 1000),
            rssMb: Math.round(x.rssMb),
            fds: x.fds,
            heapUsedMb: m ? Math.round(m.heapUsedMb) : undefined,
            heapTotalMb: m ? Math.round(m.heapTotalMb) : undefined,
            externalMb: m ? Math.round(m.externalMb) : undefined,
          };
        }),
      logLines: gw.logLevels,
      errorLines: gw.errorLines,
    },
    postgresRestart: pg,
  };
}

export function report(r) {
  const L = r.latencyMs;
  const out = [];
  out.push('');
  out.push(`mcp-beaver soak, ${r.date}, node ${r.node}`);
  out.push(`  config: ${JSON.stringify(r.config)}`);
  out.push(
    `  requests: ${r.requests.sent} sent, ${r.requests.answered} answered exactly once, ` +
      `${r.requests.unanswered} unanswered, ${r.requests.misrouted} misrouted ` +
      `(${fmt(r.requests.perSecond)}/s; mcp ${r.requests.bySurface.mcp}, rest ${r.requests.bySurface.rest})`,
  );
  out.push('  HTTP grant outcomes (share observed / injected):');
  for (const s of r.shares)
    out.push(
      `    ${s.code.padEnd(22)} ${fmt(s.observed, 2).padStart(6)}% / ${fmt(s.configured, 2)}%   (${s.fault})`,
    );
  out.push(
    `  answers past the deadline, rightly UPSTREAM_TIMEOUT, by injected fault: ${JSON.stringify(r.lateTimeouts)}`,
  );
  out.push(`  sql grant outcomes: ${JSON.stringify(r.outcomes.sql)}`);
  if (r.writes) out.push(`  writes: ${JSON.stringify(r.writes)}`);
  out.push(`  upstream: ${JSON.stringify(r.upstream)}`);
  for (const [k, v] of Object.entries(L))
    out.push(
      `  latency ${k.padEnd(10)} n=${v.n} p50 ${fmt(v.p50)} ms, p99 ${fmt(v.p99)} ms, p99.9 ${fmt(v.p999)} ms`,
    );
  const g = r.gateway;
  out.push(
    `  gateway: ${g.crashes} crashes; SIGTERM exit ${g.exit.code} in ${g.exit.ms} ms; ` +
      `RSS MB start ${fmt(g.rssMb.start)}, after warm-up ${fmt(g.rssMb.warm)} → ${fmt(g.rssMb.end)} (medians), peak ${fmt(g.rssMb.peak)}, idle after ${fmt(g.rssMb.idle)}; ` +
      `fds start ${g.fds.start}, after warm-up ${g.fds.warm} → ${g.fds.end}, idle after ${g.fds.idle}`,
  );
  out.push(
    `  event-loop delay p99 (per 2 s scrape): median ${fmt(g.eventLoopLagP99Ms.median)} ms, max ${fmt(g.eventLoopLagP99Ms.max)} ms`,
  );
  out.push(`  log lines by level: ${JSON.stringify(g.logLines)}`);
  out.push(
    `  every 5 s (t s: RSS / heap used / heap total / external MB, fds): ${g.series.map((x) => `${x.t}: ${x.rssMb}/${x.heapUsedMb}/${x.heapTotalMb}/${x.externalMb} ${x.fds}`).join(', ')}`,
  );
  if (g.errorLines.length) out.push(`  error lines: ${g.errorLines.slice(0, 5).join('\n    ')}`);
  if (r.postgresRestart) out.push(`  postgres restart: ${JSON.stringify(r.postgresRestart)}`);
  out.push(r.ok ? '  PASS' : `  FAIL:\n    ${r.failures.join('\n    ')}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
