// `npm run bench`: what the gateway adds on top of the network, as ratios to a floor
// measured in the same run (issue 10). Every server runs in its own process; the
// load generator (autocannon) runs in its own process per measured window. Floor and
// subjects of a group take turns (A B A B), 3 repetitions, and each ratio is taken
// between windows of the same repetition. Traffic stays on 127.0.0.1; every loop is
// bounded. Writes bench/results/<timestamp>.json and prints a markdown table.
//
//   node bench/run.mjs [--duration S] [--connections N] [--reps N] [--no-pin] [--quick]
//                      [--only tools,http,http-bytes,sql,startup,envelope,redact,listbytes,mcp-upstream,consent,legacy-confirm,telemetry,toolsets,token,workers,warmup]
//                      [--profile DIR]
//                      [--gateway PATH/TO/dist/cli/main.js]   (another build, for before/after)
//                      [--before PATH/TO/dist/cli/main.js]    (sections 3 and 11: that build's
//                                                              gateways in the same turns)
//   node bench/run.mjs --only mcp-upstream [--mcp-subjects bridges]
//                      (upstream MCP servers; on first use it installs the bridges it
//                      compares with into .tools/, from the npm registry)
//   node bench/run.mjs --report bench/results/<file>.json     (print a stored result again)
//   node bench/run.mjs --help                                  (this text)
//
// Each section is a module of bench/sections/ (what it measures and its part of the
// report); bench/lib/ holds what the bench, the soak and the process tests share.
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { stopAll } from './lib/processes.mjs';
import { stats } from './lib/stats.mjs';
import { benchContext } from './sections/bench-context.mjs';
import { envelopeSection } from './sections/envelope.mjs';
import { envelopeSizeSection } from './sections/envelope-size.mjs';
import { httpBytesSection } from './sections/http-bytes.mjs';
import { httpCallSection } from './sections/http-call.mjs';
import { listBytesSection } from './sections/list-bytes.mjs';
import { mcpUpstreamSection } from './sections/mcp-upstream.mjs';
import { consentSection } from './sections/consent.mjs';
import { legacyConfirmSection } from './sections/legacy-confirm.mjs';
import { redactSection } from './sections/redact.mjs';
import { sqlCallSection } from './sections/sql-call.mjs';
import { startupSection } from './sections/startup.mjs';
import { telemetrySection } from './sections/telemetry.mjs';
import { tokenCallSection } from './sections/token-call.mjs';
import { toolsListSection } from './sections/tools-list.mjs';
import { toolsetsSection } from './sections/toolsets.mjs';
import { warmupSection } from './sections/warmup.mjs';
import { workersSection } from './sections/workers.mjs';

/**
 * In the order they run and are reported. Each is {key, only?, label?, database?, run,
 * report}: `key` names its figures in the JSON, `only` the --only name that selects it
 * (its key unless said), `database` whether it needs Postgres ('required') or runs
 * without ('optional'). `report(figures, sections)` also gets every section's figures
 * of the run, for one that sets its own beside another's (telemetry beside http).
 */
const SECTIONS = [
  toolsListSection,
  httpCallSection,
  httpBytesSection,
  sqlCallSection,
  startupSection,
  envelopeSection,
  envelopeSizeSection,
  redactSection,
  listBytesSection,
  mcpUpstreamSection,
  consentSection,
  legacyConfirmSection,
  telemetrySection,
  toolsetsSection,
  tokenCallSection,
  workersSection,
  warmupSection,
];

/** The usage is this file's opening comment: `--help` prints it. */
function usage() {
  const lines = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return lines
    .slice(0, end)
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join('\n');
}

let parsed;
try {
  parsed = parseArgs({ options: benchOptions() });
} catch (err) {
  process.stderr.write(`bench: ${err.message}\nnode bench/run.mjs --help lists the options.\n`);
  process.exit(2);
}
const { values: opts } = parsed;
if (opts.help) {
  process.stdout.write(`${usage()}\n`);
  process.exit(0);
}

function benchOptions() {
  return {
    help: { type: 'boolean', default: false },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '16' },
    reps: { type: 'string', default: '3' },
    'no-pin': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'string' },
    gateway: { type: 'string' },
    before: { type: 'string' },
    report: { type: 'string' },
    'mcp-subjects': { type: 'string', default: 'all' },
  };
}
const ctx = benchContext(opts);
const { root: ROOT, log } = ctx;
const ONLY = new Set(
  (
    opts.only ??
    'tools,http,http-bytes,sql,startup,envelope,redact,listbytes,mcp-upstream,consent,legacy-confirm,telemetry,toolsets,token,workers,warmup'
  ).split(','),
);
const SECTION_NAMES = new Set(SECTIONS.map((s) => s.only ?? s.key));
const unknown = [...ONLY].filter((name) => !SECTION_NAMES.has(name));
if (unknown.length > 0) {
  process.stderr.write(
    `bench: --only ${unknown.join(',')}: no such section; the sections are ${[...SECTION_NAMES].join(',')}\n`,
  );
  process.exit(2);
}
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Builds dist/ when a source is newer than it (never for another build's --gateway). */
function ensureBuild() {
  if (opts.gateway) return false;
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  let built = 0;
  try {
    built = statSync(ctx.main).mtimeMs;
  } catch {
    // not built
  }
  if (built > newest(join(ROOT, 'src'))) return false;
  log('building dist/ (npm run build)');
  // Build output goes to stderr: stdout is the report.
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error('npm run build failed');
  return true;
}

function report(result) {
  const out = [
    `## mcp-beaver bench — ${result.date}`,
    '',
    `node ${result.node}, ${result.cpus} CPUs (${result.cpuModel}), load generator ${result.loadGenerator}, ` +
      `${result.connections} connections, ${result.duration} s windows, ${result.reps} repetitions (floor and subjects in turn), ` +
      `${result.pinned ? 'servers pinned to CPU 0 and the load generator to CPU 1' : 'no CPU pinning'}; ` +
      `figures are median (min–max) over the repetitions; ratios are taken per repetition.`,
    '',
  ];
  for (const section of SECTIONS) {
    const figures = result.sections[section.key];
    if (figures) out.push(...section.report(figures, result.sections));
  }
  for (const [key, why] of Object.entries(result.failedSections ?? {}))
    out.push(`**Section ${key} failed** (not in this report): ${why}`, '');
  out.push(`Total bench time ${(result.elapsedMs / 1000).toFixed(0)} s.`);
  return out.join('\n');
}

if (opts.report) {
  const stored = JSON.parse(readFileSync(opts.report, 'utf8'));
  // Results written before the mean column existed: the same Little's-law figure.
  for (const section of Object.values(stored.sections))
    for (const r of section.results ?? [])
      r.meanMs ??= stats(r.runs.map((x) => (stored.connections / x.rps) * 1000));
  process.stdout.write(`${report(stored)}\n`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'mcpb-bench-'));
let db;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  loadGenerator: `autocannon ${JSON.parse(readFileSync(join(ROOT, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version} (own process per window, pipelining 1)`,
  connections: ctx.connections,
  duration: ctx.duration,
  reps: ctx.reps,
  pinned: ctx.pin,
  gatewayCommand: `node ${opts.gateway ?? 'dist/cli/main.js'} serve <spec> --http 127.0.0.1:<port> --log-level warn --no-watch`,
  sections: {},
};
let failed = false;
try {
  result.rebuilt = ensureBuild();
  let chosen = SECTIONS.filter((s) => ONLY.has(s.only ?? s.key));
  if (chosen.some((s) => s.database)) {
    try {
      db = await createBenchSchema(PG_BASE, 'mcpb_bench');
    } catch (err) {
      log(`no Postgres at ${PG_BASE} (${err.message}): sql and start-up sections skipped`);
      chosen = chosen.filter((s) => s.database !== 'required');
      db = { url: 'postgres://127.0.0.1:1/none', drop: async () => {} };
    }
  }
  // A section that fails is named and the others still run and are reported: a
  // twenty-minute run does not lose its figures to its last section.
  for (const section of chosen) {
    if (section.label) log(section.label);
    ctx.sectionStarted = performance.now();
    try {
      result.sections[section.key] = await section.run(ctx, { work, db });
    } catch (err) {
      failed = true;
      result.failedSections ??= {};
      result.failedSections[section.key] = String(err.message ?? err);
      process.stderr.write(`bench: section ${section.key} failed: ${err.stack ?? err}\n`);
      stopAll();
    }
  }
} catch (err) {
  failed = true;
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
} finally {
  stopAll();
  await db?.drop().catch((e) => log(`could not drop the bench schema: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
result.elapsedMs = performance.now() - ctx.started;
if (Object.keys(result.sections).length > 0) {
  const dir = join(ctx.bench, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${result.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${report(result)}\n\nJSON: ${file.slice(ROOT.length + 1)}\n`);
}
process.exitCode = failed ? 1 : 0;
