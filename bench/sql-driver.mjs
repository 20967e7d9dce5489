// The SQL path alone (issue 19): client CPU per call of the peer bench's SQL tool (a
// parameterized SELECT returning 10 rows), READ ONLY in its own transaction with a local
// statement timeout, CONCURRENCY calls in flight on a pool of POOL connections. No HTTP:
// what is left is the driver and the executor, which is what a change there moves.
//
// Each subject runs in a fresh child process per round (so one subject's JIT and heap
// state never carries into another's), warms up, then makes CALLS calls and reports
// process.cpuUsage() over them. Subjects take turns, A B A B, REPS rounds; medians with
// min–max. Traffic stays on 127.0.0.1 (BENCH_DATABASE_URL, else the test database).
//
//   node bench/sql-driver.mjs [--subject exec:DIST …] [--subject postgres-begin]
//                             [--subject postgres-pipeline] [--subject pg-bare]
//                             [--subject postgres-bare]
//                             [--calls 20000] [--reps 4] [--concurrency 16]
//
// exec:DIST is the gateway's own executor, imported from a build (DIST/engine/backends/
// sql/pg-executor.js), e.g. exec:dist and exec:/work/main/dist. The `postgres` driver
// subjects need the package in .tools/sql-driver (installed there on first use, like the
// peers: it is measured, never shipped).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { ensureNpmTools } from './lib/npm-tools.mjs';
import { cpuNs } from './lib/proc.mjs';
import { f1, range, stats } from './lib/stats.mjs';
import { POOL, SQL_TOOL } from './peers/workload.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DRIVER_DIR = join(ROOT, '.tools', 'sql-driver');
const POSTGRES_VERSION = '3.4.9';
const { values: opts } = parseArgs({
  options: {
    subject: { type: 'string', multiple: true },
    calls: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    reps: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '16' },
    timeout: { type: 'string', default: '5000' },
    child: { type: 'string' },
    url: { type: 'string' },
    schema: { type: 'string' },
  },
});
const CALLS = Number(opts.calls);
const WARMUP = Number(opts.warmup);
const CONCURRENCY = Number(opts.concurrency);
const TIMEOUT_MS = Number(opts.timeout);
const ARG = SQL_TOOL.args.from_id;

// ---------------------------------------------------------------- subjects (in a child)

/** Each subject: `open(url, text)` → { call(): Promise<rows>, close() }. */
const SUBJECTS = {
  async exec(dist, url, text) {
    const mod = await import(
      pathToFileURL(resolve(ROOT, dist, 'engine', 'backends', 'sql', 'pg-executor.js')).href
    );
    const ex = mod.createPgExecutor({ connectionString: url, pool: POOL, checkoutTimeoutMs: 5000 });
    const q = { name: 'mcpb_bench', text, readOnly: true, timeoutMs: TIMEOUT_MS, maxRows: 100 };
    return {
      async call() {
        const out = await ex.run({ ...q, values: [ARG] });
        if (!out.ok) throw new Error(out.error.message);
        return out.run.rows;
      },
      close: () => ex.close(),
    };
  },
  /** pg with no transaction at all: a floor, not the same guarantees. */
  async 'pg-bare'(_, url, text) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: url, max: POOL });
    return {
      async call() {
        const r = await pool.query({ name: 'mcpb_bench', text, values: [ARG] });
        return r.rows;
      },
      close: () => pool.end(),
    };
  },
  /** postgres.js with no transaction at all: its floor, to set beside pg-bare. */
  async 'postgres-bare'(_, url, text) {
    const sql = postgresDriver()(url, { max: POOL });
    return {
      call: () => sql.unsafe(text, [ARG], { prepare: true }),
      close: () => sql.end(),
    };
  },
  /** postgres.js's own transaction API: BEGIN, then SET LOCAL + statement pipelined, COMMIT. */
  async 'postgres-begin'(_, url, text) {
    const sql = postgresDriver()(url, { max: POOL, onnotice: () => {} });
    const statement = text.replace('$1', '$1::int');
    const timeout = `SET LOCAL statement_timeout = ${TIMEOUT_MS}`;
    return {
      async call() {
        const [, rows] = await sql.begin('read only', (tx) => [
          tx.unsafe(timeout),
          tx.unsafe(statement, [ARG], { prepare: true }),
        ]);
        return rows;
      },
      close: () => sql.end(),
    };
  },
  /** postgres.js with one round trip: the whole transaction issued on a reserved connection. */
  async 'postgres-pipeline'(_, url, text) {
    const sql = postgresDriver()(url, { max: POOL, onnotice: () => {} });
    const head = `BEGIN READ ONLY; SET LOCAL statement_timeout = ${TIMEOUT_MS}`;
    return {
      async call() {
        const c = await sql.reserve();
        try {
          const [, rows] = await Promise.all([
            c.unsafe(head).simple(),
            c.unsafe(text, [ARG], { prepare: true }),
            c.unsafe('COMMIT').simple(),
          ]);
          return rows;
        } finally {
          c.release();
        }
      },
      close: () => sql.end(),
    };
  },
};

function postgresDriver() {
  const require = createRequire(join(DRIVER_DIR, 'package.json'));
  return require('postgres');
}

async function child(spec) {
  const [kind, arg] = spec.split(/:(.*)/s);
  const text = SQL_TOOL.statement(opts.schema);
  const s = await SUBJECTS[kind](arg, opts.url, text);
  const first = await s.call();
  if (first.length !== 10 || !JSON.stringify(first[0]).includes('item-42'))
    throw new Error(`${spec}: unexpected rows ${JSON.stringify(first)}`);
  const run = async (n) => {
    let left = n;
    const worker = async () => {
      while (left > 0) {
        left -= 1;
        await s.call();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  await run(WARMUP);
  const backends = await ourBackends(opts.url);
  const pg0 = onCpuNs(backends);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(CALLS);
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  const pgNs = onCpuNs(backends) - pg0;
  await s.close();
  process.stdout.write(
    JSON.stringify({
      cpuUs: (cpu.user + cpu.system) / CALLS,
      userUs: cpu.user / CALLS,
      pgUs: backends.length ? pgNs / 1000 / CALLS : undefined,
      wallMs,
    }),
  );
}

/**
 * The Postgres backends serving this process's connections: our sockets' local ports
 * (ss) matched with pg_stat_activity's client_port. Their CPU is part of the cost of a
 * call too (on a shared machine, the same cores), and the protocol levers move it.
 */
async function ourBackends(url) {
  const ss = spawnSync('ss', ['-tnpH', 'dst', '127.0.0.1:5432'], { encoding: 'utf8' });
  const ports = new Set();
  for (const m of (ss.stdout ?? '').matchAll(
    /127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:5432\s+users:\S*pid=(\d+),/g,
  ))
    if (Number(m[2]) === process.pid) ports.add(Number(m[1]));
  if (ports.size === 0) return [];
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(
      'SELECT pid, client_port FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND client_port = ANY($1)',
      [[...ports]],
    );
    return r.rows.map((x) => x.pid);
  } finally {
    await c.end();
  }
}

/** Nanoseconds on CPU of these processes so far; a backend that ended counts 0, and the figure is low. */
const onCpuNs = (pids) => pids.reduce((ns, pid) => ns + cpuNs(pid), 0);

// ---------------------------------------------------------------- the rounds (parent)

function ensureDriver() {
  ensureNpmTools(
    DRIVER_DIR,
    { postgres: POSTGRES_VERSION },
    { postgres: 'postgres/package.json' },
    (line) => process.stderr.write(`${line}\n`),
  );
}

async function parent() {
  const subjects = opts.subject ?? ['exec:dist', 'postgres-pipeline'];
  if (subjects.some((s) => s.startsWith('postgres'))) ensureDriver();
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = await createBenchSchema(base, 'mcpb_sqldrv');
  const results = new Map(subjects.map((s) => [s, []]));
  try {
    for (let rep = 0; rep < Number(opts.reps); rep += 1) {
      for (const s of subjects) {
        const r = spawnSync(
          process.execPath,
          [
            fileURLToPath(import.meta.url),
            '--child',
            s,
            '--url',
            db.url,
            '--schema',
            db.schema,
            '--calls',
            String(CALLS),
            '--warmup',
            String(WARMUP),
            '--concurrency',
            String(CONCURRENCY),
            '--timeout',
            String(TIMEOUT_MS),
          ],
          { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        if (r.status !== 0) throw new Error(`${s} failed (exit ${r.status})`);
        const out = JSON.parse(r.stdout);
        results.get(s).push(out);
        process.stderr.write(
          `round ${rep + 1} ${s}: ${f1(out.cpuUs)} µs CPU/call, Postgres ${f1(out.pgUs)}, ${f1(CALLS / out.wallMs)} k calls/s\n`,
        );
      }
    }
  } finally {
    await db.drop();
  }
  console.log(`\n| subject | CPU µs/call | user µs/call | Postgres CPU µs/call | calls/s |`);
  console.log('| --- | --- | --- | --- | --- |');
  for (const [s, rs] of results) {
    const cps = stats(rs.map((r) => (CALLS / r.wallMs) * 1000));
    console.log(
      `| ${s} | ${range(stats(rs.map((r) => r.cpuUs)), f1)} | ${range(stats(rs.map((r) => r.userUs)), f1)} | ${range(stats(rs.map((r) => r.pgUs)), f1)} | ${range(cps, (x) => x.toFixed(0))} |`,
    );
  }
}

if (opts.child) await child(opts.child);
else await parent();
