// The demo's footprint (issue 26): `mcp-beaver demo` from process start until its MCP URL
// answers tools/list and a sql tool call succeeds, and the RSS of its whole process tree
// (the gateway and every child it started, e.g. a Postgres server) once ready. Beside
// it, in the same run and taking turns (A B A B), the floor: an HTTP-only `serve` of the
// same spec without its `database` line and sql grants, to its first tools/list answer.
// Figures are median (min–max) over the reps, and each subject's ratio to the floor is
// taken within the same rep.
//
//   node bench/demo-footprint.mjs [--reps N] [--subject "label=command …"]…
//
// A --subject is a command line that takes `--http 127.0.0.1:<port>` after it, e.g.
// `pglite=node /path/to/other/checkout/bin/mcp-beaver.js demo` for a before/after run.
// Without one, the subject is this checkout's `node bin/mcp-beaver.js demo`.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { modernRequest } from './lib/mcp-requests.mjs';
import { cpuMs, processTree, rssMb } from './lib/proc.mjs';
import { launchOnPort, stop, waitAnswer } from './lib/processes.mjs';
import { sleep } from './lib/sleep.mjs';
import { f0, f1, f2, range, stats } from './lib/stats.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    reps: { type: 'string', default: '5' },
    subject: { type: 'string', multiple: true },
  },
});
const REPS = Number(opts.reps);
const BIN = join(ROOT, 'bin', 'mcp-beaver.js');
const subjects = (opts.subject ?? [`embedded=node ${BIN} demo`]).map((s) => {
  const eq = s.indexOf('=');
  return {
    name: s.slice(0, eq),
    argv: s
      .slice(eq + 1)
      .split(' ')
      .filter(Boolean),
  };
});

/**
 * Over the tree: the sum of VmRSS (shared pages counted in each process, as the brief's
 * "sum over children" asks), the sum of Pss (shared pages split, as smem shows), in MB,
 * and the CPU time used so far in ms (own and waited-for children's, so a finished
 * initdb counts too).
 */
function treeFigures(pid) {
  let rss = 0;
  let pssKb = 0;
  let cpu = 0;
  const pids = processTree(pid);
  for (const p of pids) {
    rss += rssMb(p) ?? 0;
    pssKb += pssOf(p);
    cpu += cpuMs(p, { children: true }) ?? 0;
  }
  return { rssMb: rss, pssMb: pssKb / 1024, cpuMs: cpu, processes: pids.length };
}

/** Proportional set size in kB (shared pages split between their processes), 0 when gone. */
function pssOf(pid) {
  try {
    return Number(
      /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0,
    );
  } catch {
    return 0;
  }
}

const work = mkdtempSync(join(tmpdir(), 'mcpb-footprint-'));
// The floor: the demo spec's HTTP half, served by `serve` (no database at all).
const demoSpec = readFileSync(join(ROOT, 'specs', 'demo.mcp.kdl'), 'utf8');
const httpOnly = join(work, 'http-only.mcp.kdl');
// Its HTTP grants are the ones before the first sql grant; resources and prompt follow.
writeFileSync(
  httpOnly,
  demoSpec.slice(0, demoSpec.indexOf('can list customers')).replace(/^database .*$/m, ''),
);

// The demo spec has an `access` block: both subjects get its variables (`serve` reads
// them from the environment, the demo would make them up), and send the agent's key.
const AGENT_KEY = 'bench-agent-key';
const DEMO_ENV = {
  DEMO_API_TOKEN: 'bench-token',
  DEMO_AGENT_KEY: AGENT_KEY,
  DEMO_APPROVER_KEY: 'bench-approver-key',
  DEMO_CONFIRM_KEY: 'ab'.repeat(32),
  DEMO_TOKEN_KEY: 'cd'.repeat(32),
  DEMO_ACCOUNTS_CLIENT_ID: 'bench',
  DEMO_ACCOUNTS_CLIENT_SECRET: 'bench-secret',
};
const asAgent = (request) => ({
  ...request,
  headers: { ...request.headers, authorization: `Bearer ${AGENT_KEY}` },
});

async function once(argv, { sql }) {
  const started = await launchOnPort(argv, { env: DEMO_ENV });
  const { child, url, startedAt: t0 } = started;
  try {
    await waitAnswer(asAgent(modernRequest(url, 'tools/list')), t0, child, {
      expect: /"tools":\[/,
      timeoutMs: 180_000,
    });
    if (sql)
      await waitAnswer(
        asAgent(
          modernRequest(
            url,
            'tools/call',
            { name: 'list_customers', arguments: {} },
            'list_customers',
          ),
        ),
        t0,
        child,
        { expect: /"isError":false/, timeoutMs: 180_000 },
      );
    const readyMs = performance.now() - t0;
    const { cpuMs } = treeFigures(child.pid);
    await sleep(1000);
    return { readyMs, ...treeFigures(child.pid), cpuMs };
  } finally {
    await stop(child);
  }
}

const floor = {
  name: 'floor: HTTP-only serve',
  argv: ['node', BIN, 'serve', httpOnly, '--no-watch', '--base-url', 'http://127.0.0.1:9/api'],
  sql: false,
};
const all = [floor, ...subjects.map((s) => ({ ...s, sql: true }))];
const runs = new Map(all.map((s) => [s.name, []]));
try {
  for (let rep = 0; rep < REPS; rep++)
    for (const s of all) {
      const r = await once(s.argv, s);
      runs.get(s.name).push(r);
      process.stderr.write(
        `[footprint] rep ${rep + 1} ${s.name}: ready ${r.readyMs.toFixed(0)} ms (CPU ${r.cpuMs} ms), RSS ${r.rssMb.toFixed(1)} MB, PSS ${r.pssMb.toFixed(1)} MB (${r.processes} processes)\n`,
      );
    }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const fr = runs.get(floor.name);
const lines = [
  `Demo footprint, ${REPS} reps, Node ${process.version}: median (min–max); ratios to the floor within each rep.`,
  '',
  '| subject | ready ms | CPU to ready ms | tree RSS MB | tree PSS MB | processes | ready ÷ floor | CPU ÷ floor | RSS ÷ floor |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...all.map((s) => {
    const rs = runs.get(s.name);
    const col = (k, f) => range(stats(rs.map((r) => r[k])), f);
    const ratio = (k) =>
      s === floor ? 'floor' : range(stats(rs.map((r, i) => r[k] / fr[i][k])), f2);
    return `| ${s.name} | ${col('readyMs', f0)} | ${col('cpuMs', f0)} | ${col('rssMb', f1)} | ${col('pssMb', f1)} | ${stats(rs.map((r) => r.processes)).median} | ${ratio('readyMs')} | ${ratio('cpuMs')} | ${ratio('rssMb')} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
