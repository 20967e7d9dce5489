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
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pgLib from 'pg';
import { Agent, request } from 'undici';
import {
  createTestSchema,
  lockSharedPostgres,
  restartPostgres,
  restartSkipReason,
  testDatabaseUrl,
  waitForPostgres,
} from '../test/helpers/postgres.ts';
import { startTestServices } from '../test/helpers/test-services.ts';
import { EXPECTED_OUTCOME, FAULTS, parseMix, rng, startFaultUpstream } from './fault-upstream.mjs';
import { waitListening } from '../bench/lib/listening.mjs';

// `--overload`: the burst figures (shedding, health probes, upstream admission) instead
// of the soak; see soak/overload.mjs.
if (process.argv.includes('--overload')) {
  const { runOverload } = await import('./overload.mjs');
  process.exit(await runOverload(process.argv.slice(2).filter((a) => a !== '--overload')));
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mcp-beaver.js');
const TOKEN = 'soak_upstream_token_7c1e';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '60s' },
    concurrency: { type: 'string', default: '64' },
    mix: { type: 'string', default: '500=5,reset=3,hang=2,oversized=1' },
    latency: { type: 'string', default: '0-50' },
    'sql-share': { type: 'string', default: '0.3' },
    'mcp-share': { type: 'string', default: '0.5' },
    'max-in-flight': { type: 'string', default: '1024' },
    'grant-timeout': { type: 'string', default: '300ms' },
    warmup: { type: 'string', default: '0.33' },
    'pg-restart': { type: 'boolean', default: false },
    'no-sql': { type: 'boolean', default: false },
    seed: { type: 'string', default: '11' },
    'log-level': { type: 'string', default: 'info' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (flags.help) {
  process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}

function durationMs(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] ?? 's'];
}

const DURATION_MS = durationMs(flags.duration);
const CONCURRENCY = Number(flags.concurrency);
const MIX = parseMix(flags.mix);
const [LAT_MIN, LAT_MAX] = flags.latency.split('-').map(Number);
const SQL_SHARE = flags['no-sql'] ? 0 : Number(flags['sql-share']);
const MCP_SHARE = Number(flags['mcp-share']);
const MAX_IN_FLIGHT = Number(flags['max-in-flight']);
const GRANT_TIMEOUT = flags['grant-timeout'];
const GRANT_TIMEOUT_MS = durationMs(GRANT_TIMEOUT);
const WARMUP_MS = Math.max(Math.min(20_000, DURATION_MS / 3), DURATION_MS * Number(flags.warmup));
const SEED = Number(flags.seed);
/** A request not answered within this is counted as unanswered. */
const CLIENT_TIMEOUT_MS = 15_000;
const GROWTH_LIMIT = 0.1;
const SHARE_TOLERANCE_POINTS = 1;

// ---------------------------------------------------------------- small tools

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function median(xs) {
  return percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
}

function procStats(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    return { rssMb: rssKb / 1024, fds };
  } catch {
    return undefined;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

// ---------------------------------------------------------------- the spec

function soakSpec(upstreamUrl, withSql) {
  return `
wrap "soak" version="1.0.0" {
    describe "The reliability soak: HTTP grants on a fault-injecting upstream, sql grants on Postgres."
}
base-url "${upstreamUrl}/v1"
auth bearer env="SOAK_TOKEN"
timeout "${GRANT_TIMEOUT}"
limits max-bytes=65536
${withSql ? 'database env="DATABASE_URL" pool=10 statement-timeout="2s" checkout-timeout="2s"' : ''}

can get echo {
    describe "Echoes the id; the upstream injects faults."
    path "/echo/{id}"
    query {
        tag "string" max-length=64
    }
}

can create echo {
    describe "Echoes the id from a JSON body; the upstream injects faults."
    path "/echo"
    body {
        id "string" required=#true max-length=64
        n "integer" min=0
        tags "string[]" max-items=8
    }
}
${
  withSql
    ? `
can get row {
    describe "One row, with the caller's id echoed."
    sql "SELECT $1::text AS id, n, label FROM items WHERE n = $2"
    params {
        id "string" required=#true max-length=64
        n "integer" required=#true min=1 max=100
    }
}

can create hit {
    describe "Records one hit (a write); each must land exactly once."
    sql "INSERT INTO hits (tag) VALUES ($1) RETURNING tag"
    params {
        tag "string" required=#true max-length=64
    }
}
`
    : ''
}`;
}

const SEED_SQL = `
CREATE TABLE items (n integer PRIMARY KEY, label text NOT NULL);
INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g;
CREATE TABLE hits (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tag text NOT NULL);
`;

// ---------------------------------------------------------------- the gateway process

class GatewayProcess {
  constructor(specFile, port, env) {
    this.specFile = specFile;
    this.port = port;
    this.env = env;
    this.crashes = [];
    this.logLevels = {};
    this.errorLines = [];
    this.stopping = false;
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        this.specFile,
        '--http',
        `127.0.0.1:${this.port}`,
        '--max-in-flight',
        String(MAX_IN_FLIGHT),
        '--log-level',
        flags['log-level'],
        '--grace',
        '10s',
        '--no-watch',
      ],
      { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    // Should the soak itself die, its gateway goes with it.
    process.once('exit', () => child.kill('SIGKILL'));
    let pending = '';
    const ready = waitListening(child, { timeoutMs: 30_000 });
    const onLine = (line) => {
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (level) this.logLevels[level] = (this.logLevels[level] ?? 0) + 1;
      if (!level || Number(level) >= 50) {
        if (this.errorLines.length < 20) this.errorLines.push(line.slice(0, 500));
      }
    };
    const onData = (b) => {
      pending += b.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) onLine(l);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        if (!this.stopping) {
          this.crashes.push({ at: Date.now(), code, signal });
          process.stderr.write(`soak: the gateway died (code ${code}, signal ${signal})\n`);
          void this.start().catch((err) => process.stderr.write(`soak: restart failed: ${err}\n`));
        }
        resolve({ code, signal });
      }),
    );
    await ready;
    this.pid = child.pid;
    return this;
  }

  async stop() {
    this.stopping = true;
    const started = Date.now();
    this.child.kill('SIGTERM');
    const { code } = await this.exited;
    return { code, ms: Date.now() - started };
  }
}

// ---------------------------------------------------------------- the load

/** Outcome of one answer: 'ok' or the catalogue code; `echo` says the answer was for this request. */
function readRest(kind, id, status, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: `HTTP_${status}_NOT_JSON`, echo: false };
  }
  if (status === 200) {
    const result = body?.result;
    const got =
      kind === 'sql-write' ? result?.[0]?.tag : kind === 'sql' ? result?.[0]?.id : result?.id;
    return { outcome: 'ok', echo: got === id };
  }
  return { outcome: body?.error?.code ?? `HTTP_${status}`, echo: true };
}

function readMcp(kind, id, rpcId, status, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: `HTTP_${status}_NOT_JSON`, echo: false };
  }
  const sameId = body?.id === rpcId;
  if (body?.error) return { outcome: `RPC_${body.error.code}`, echo: sameId };
  const r = body?.result;
  if (!r || typeof r.isError !== 'boolean') return { outcome: 'MALFORMED', echo: false };
  if (r.isError) {
    const code = /^([A-Z_]+):/.exec(r.content?.[0]?.text ?? '')?.[1] ?? 'TOOL_ERROR';
    return { outcome: code, echo: sameId };
  }
  const result = r.structuredContent?.result;
  const got =
    kind === 'sql-write' ? result?.[0]?.tag : kind === 'sql' ? result?.[0]?.id : result?.id;
  return { outcome: 'ok', echo: sameId && got === id };
}

const TOOLS = {
  'http-get': { tool: 'get_echo', args: (id) => ({ id, tag: 't' }) },
  'http-post': { tool: 'create_echo', args: (id, seq) => ({ id, n: seq, tags: ['a', 'b'] }) },
  sql: { tool: 'get_row', args: (id, seq) => ({ id, n: (seq % 100) + 1 }) },
  'sql-write': { tool: 'create_hit', args: (id) => ({ tag: id }) },
};

function pickKind(r) {
  if (r < SQL_SHARE) return r < SQL_SHARE * 0.8 ? 'sql' : 'sql-write';
  return (r - SQL_SHARE) / (1 - SQL_SHARE) < 0.5 ? 'http-get' : 'http-post';
}

// ---------------------------------------------------------------- main

/** One call through the surface `rec` names; its answer, outcome and timing land in `rec`. */
async function send(gw, agent, rec, tool, args) {
  try {
    let res;
    if (rec.surface === 'rest') {
      res = await request(`${gw.url}/api/${tool}`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-request-id': rec.id },
        body: JSON.stringify(args(rec.id, rec.n)),
      });
    } else {
      res = await request(`${gw.url}/mcp`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'x-request-id': rec.id,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: rec.n,
          method: 'tools/call',
          params: { name: tool, arguments: args(rec.id, rec.n) },
        }),
      });
    }
    const text = await res.body.text();
    rec.answers += 1;
    rec.status = res.statusCode;
    rec.sameRequestId = res.headers['x-request-id'] === rec.id;
    const read =
      rec.surface === 'rest'
        ? readRest(rec.kind, rec.id, res.statusCode, text)
        : readMcp(rec.kind, rec.id, rec.n, res.statusCode, text);
    rec.outcome = read.outcome;
    rec.echo = read.echo;
    if (rec.outcome === 'INTERNAL' || res.statusCode === 500) rec.body = text.slice(0, 300);
  } catch (err) {
    rec.transportError = `${err.code ?? ''} ${err.message}`.trim();
  } finally {
    rec.ms = performance.now() - rec.start;
    rec.end = Date.now();
  }
}

/**
 * While the load runs: the gateway's RSS and descriptors every second (/proc), its
 * event-loop delay and heap every 2 s (/metrics). Returns the stop.
 */
function startSampling(gw, agent, t0, samples, lag) {
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

/** The fault upstream, the spec, the gateway process and the client agent; each pushes its clean-up. */
async function startHarness(withSql, schema, cleanups) {
  const upstream = await startFaultUpstream({
    mix: MIX,
    seed: SEED,
    latencyMs: [LAT_MIN, LAT_MAX],
    token: TOKEN,
    hangMaxMs: 20_000,
  });
  cleanups.push(() => upstream.close());

  const dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-soak-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const specFile = join(dir, 'soak.mcp.kdl');
  writeFileSync(specFile, soakSpec(upstream.url, withSql));
  const gw = new GatewayProcess(specFile, await freePort(), {
    SOAK_TOKEN: TOKEN,
    ...(schema && { DATABASE_URL: schema.url }),
  });
  await gw.start();
  cleanups.push(async () => {
    if (!gw.stopping) await gw.stop();
  });

  const agent = new Agent({
    connections: CONCURRENCY + 8,
    keepAliveTimeout: 30_000,
    headersTimeout: CLIENT_TIMEOUT_MS,
    bodyTimeout: CLIENT_TIMEOUT_MS,
  });
  cleanups.push(() => agent.close());

  return { upstream, gw, agent };
}

/**
 * Halfway through the load, restarts Postgres while polling /readyz and the database
 * itself every 100 ms; what it saw is filled into the returned record as it happens.
 */
function restartPostgresMidway(gw, agent, t0) {
  const readyz = [];
  const db = [];
  const pg = { readyz, db };
  void (async () => {
    await sleep(DURATION_MS / 2);
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

/** Drives CONCURRENCY workers until the deadline (or Ctrl-C); every request sent, by seq. */
async function runLoad(gw, agent, t0) {
  const records = [];
  let deadline = t0 + DURATION_MS;
  // Ctrl-C ends the load early; the checks and the clean-up still run.
  process.once('SIGINT', () => (deadline = Date.now()));
  let seq = 0;

  async function one(random) {
    const n = seq++;
    const id = `s${n}`;
    const kind = pickKind(random());
    const surface = random() < MCP_SHARE ? 'mcp' : 'rest';
    const { tool, args } = TOOLS[kind];
    const rec = { n, id, kind, surface, start: performance.now(), at: Date.now(), answers: 0 };
    records.push(rec);
    await send(gw, agent, rec, tool, args);
  }

  async function worker(w) {
    const random = rng(SEED * 1000 + w);
    while (Date.now() < deadline) await one(random);
  }

  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  return records;
}

/** HTTP grants: every outcome is the one its injected fault calls for, in the injected shares. */
function checkHttpOutcomes(records, upstream, fail) {
  const up = upstream.stats();
  const httpRecs = records.filter((r) => r.kind.startsWith('http') && r.answers === 1);
  const outcomeCounts = {};
  const mismatches = {};
  const late = {};
  for (const r of httpRecs) {
    outcomeCounts[r.outcome] = (outcomeCounts[r.outcome] ?? 0) + 1;
    const fault = upstream.faultOf(r.id);
    const expected = fault === undefined ? 'not sent upstream' : EXPECTED_OUTCOME[fault];
    if (r.outcome === expected) continue;
    // A timeout is the right answer when the deadline really passed: on a busy
    // machine an answer the upstream sent in time can still arrive late.
    if (r.outcome === 'UPSTREAM_TIMEOUT' && r.ms >= GRANT_TIMEOUT_MS) {
      late[fault] = (late[fault] ?? 0) + 1;
      continue;
    }
    const key = `${fault ?? 'none'} → ${r.outcome} (${r.surface})`;
    mismatches[key] = (mismatches[key] ?? 0) + 1;
  }
  const mismatchTotal = Object.values(mismatches).reduce((a, b) => a + b, 0);
  if (mismatchTotal)
    fail(
      `${mismatchTotal} HTTP outcomes differ from their injected fault: ${JSON.stringify(mismatches)}`,
    );
  const shares = [];
  const configured = { ok: 100 - MIX.status500 - MIX.reset - MIX.hang - MIX.oversized, ...MIX };
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
function checkSqlOutcomes(records, pg, fail) {
  const inWindow = (rec) =>
    pg?.restartAt !== undefined &&
    rec.end >= pg.restartAt - 500 &&
    rec.at <= (pg.readyAgainAt ?? pg.backAt ?? Infinity) + 2_000;
  const sqlRecs = records.filter((r) => r.kind.startsWith('sql') && r.answers === 1);
  const sqlOutcomes = {};
  const sqlOutside = {};
  const sqlWindow = {};
  for (const r of sqlRecs) {
    sqlOutcomes[r.outcome] = (sqlOutcomes[r.outcome] ?? 0) + 1;
    const bucket = inWindow(r) ? sqlWindow : sqlOutside;
    bucket[r.outcome] = (bucket[r.outcome] ?? 0) + 1;
  }
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
async function checkWrites(schema, sqlRecs, pg, fail) {
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
function checkPostgresRestart(pg, sqlWindow, fail) {
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
function checkGrowth(samples, fail) {
  const half = WARMUP_MS + (DURATION_MS - WARMUP_MS) / 2;
  const warm = samples.filter((s) => s.t >= WARMUP_MS && s.t < half);
  const tail = samples.filter((s) => s.t >= half && s.t <= DURATION_MS);
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

async function main() {
  const withSql = SQL_SHARE > 0;
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
      const notOurs = flags['pg-restart'] && restartSkipReason();
      if (notOurs) throw new Error(`--pg-restart: ${notOurs}`);
      // Nobody restarts the server under the soak, and the soak restarts its own cluster
      // only while holding the same lock as the sql tests.
      process.stdout.write('soak: taking the Postgres lock…\n');
      unlock = await lockSharedPostgres(180_000);
      schema = await createTestSchema(SEED_SQL);
      cleanups.push(() => schema.drop());
    }
    const { upstream, gw, agent } = await startHarness(withSql, schema, cleanups);
    const firstPid = gw.pid;

    const startStats = procStats(gw.pid);
    process.stdout.write(
      `soak: gateway pid ${gw.pid} at ${gw.url}; ${CONCURRENCY} concurrent callers for ${DURATION_MS / 1000} s; ` +
        `mix ${JSON.stringify(MIX)}; sql share ${SQL_SHARE}; mcp share ${MCP_SHARE}\n`,
    );

    const samples = [];
    const lag = [];
    const t0 = Date.now();
    const stopSampling = startSampling(gw, agent, t0, samples, lag);
    const pg = flags['pg-restart'] && withSql ? restartPostgresMidway(gw, agent, t0) : undefined;
    const records = await runLoad(gw, agent, t0);
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

    const { up, httpRecs, outcomeCounts, mismatches, late, shares } = checkHttpOutcomes(
      records,
      upstream,
      fail,
    );
    const { sqlRecs, sqlOutcomes, sqlWindow } = checkSqlOutcomes(records, pg, fail);
    const writes = await checkWrites(schema, sqlRecs, pg, fail);
    if (pg) checkPostgresRestart(pg, sqlWindow, fail);
    const { rssWarm, rssEnd, fdWarm, fdEnd } = checkGrowth(samples, fail);

    const lat = (rs) => {
      const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
      return {
        n: ms.length,
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        p999: percentile(ms, 99.9),
      };
    };
    const answered = records.filter((r) => r.answers === 1);
    const lagSorted = lag.map((l) => l.p99ms).sort((a, b) => a - b);
    Object.assign(results, {
      date: new Date(t0).toISOString(),
      node: process.version,
      config: {
        durationS: DURATION_MS / 1000,
        concurrency: CONCURRENCY,
        mix: MIX,
        latencyMs: [LAT_MIN, LAT_MAX],
        grantTimeout: GRANT_TIMEOUT,
        sqlShare: SQL_SHARE,
        mcpShare: MCP_SHARE,
        maxInFlight: MAX_IN_FLIGHT,
        pgRestart: Boolean(pg),
        logLevel: flags['log-level'],
        seed: SEED,
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
          warm: rssWarm,
          end: rssEnd,
          peak: Math.max(...samples.map((x) => x.rssMb)),
          idle: idleStats?.rssMb,
        },
        fds: { start: startStats?.fds, warm: fdWarm, end: fdEnd, idle: idleStats?.fds },
        eventLoopLagP99Ms: {
          median: percentile(lagSorted, 50),
          max: lagSorted.at(-1),
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
    });
    report(results);
    if (flags.json) writeFileSync(flags.json, `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    await unlock?.();
    await services?.stop();
  }
  return results.ok ? 0 : 1;
}

function report(r) {
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

process.exitCode = await main().catch((err) => {
  process.stderr.write(`soak: ${err.stack ?? err}\n`);
  return 2;
});
