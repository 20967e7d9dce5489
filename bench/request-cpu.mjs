// Server CPU per request of two or more builds of mcp-beaver, side by side (issue 19,
// the per-request path): each build serves the peer bench's two tools (peers/workload.mjs)
// on the same upstream and Postgres schema; for each workload the builds take turns
// (A B A B …, REPS rounds) under the same closed-loop load, and the figure is the
// server's own CPU time (/proc utime + stime) over the requests answered, so a busy
// machine slows the run down but does not move the figure much.
//
//   node bench/request-cpu.mjs --command "node /tmp/base/dist/cli/main.js" \
//     --command "node dist/cli/main.js" [--only tools,http,sql] [--era modern|legacy]
//     [--connections 16] [--duration 4] [--reps 3] [--profile DIR]
//
// --profile adds `--cpu-prof --cpu-prof-dir DIR/<n>` to each server (read the profiles
// with bench/profile-top.mjs; the first seconds are start-up and warm-up).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { loadWindow, verifyAnswer } from './lib/load-window.mjs';
import { eraRequest, legacyRequest } from './lib/mcp-requests.mjs';
import {
  canPin,
  launch,
  launchOnPort,
  stop,
  stopAll,
  urlOf,
  waitAnswer,
} from './lib/processes.mjs';
import { f0, f2, range, stats } from './lib/stats.mjs';
import { HTTP_TOOL, SQL_TOOL, toKdl, toolsOf } from './peers/workload.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    command: { type: 'string', multiple: true, default: ['node dist/cli/main.js'] },
    only: { type: 'string', default: 'tools,http,sql' },
    era: { type: 'string', default: 'modern' },
    connections: { type: 'string', default: '16' },
    duration: { type: 'string', default: '4' },
    reps: { type: 'string', default: '3' },
    profile: { type: 'string' },
  },
});
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SERVER_CPU = canPin ? '0' : undefined;
const LOAD_CPU = canPin ? '1' : undefined;
const WORKLOADS = {
  tools: { method: 'tools/list', expect: /"tools":\[/ },
  http: { method: 'tools/call', tool: HTTP_TOOL, expect: /widget/ },
  sql: { method: 'tools/call', tool: SQL_TOOL, expect: /item-42/ },
};
const log = (m) => process.stderr.write(`[request-cpu] ${m}\n`);

function requestOf(workload, url) {
  const w = WORKLOADS[workload];
  if (!w.tool) return eraRequest(opts.era, url, w.method);
  return eraRequest(
    opts.era,
    url,
    w.method,
    { name: w.tool.name, arguments: w.tool.args },
    w.tool.name,
  );
}

const work = mkdtempSync(join(tmpdir(), 'mcpb-request-cpu-'));
let db;
try {
  db = await createBenchSchema(PG_BASE, 'mcpb_reqcpu');
  const upstream = launch(['node', join(ROOT, 'bench', 'servers', 'upstream.mjs')], {
    env: { BODY_BYTES: '1024' },
    // Beside the load generator, not on the server's CPU: a wake-up of an upstream on
    // the server's CPU preempts the server inside its send, and a CPU profile (which
    // samples wall time) then charges that wait to the send.
    cpu: LOAD_CPU,
  });
  const upstreamUrl = await urlOf(upstream, 'upstream');
  const spec = join(work, 'bench.mcp.kdl');
  writeFileSync(spec, toKdl(toolsOf(2), { schema: db.schema, upstreamUrl }));
  const databaseUrl = `${PG_BASE}${PG_BASE.includes('?') ? '&' : '?'}sslmode=disable`;
  const builds = [];
  for (const [i, command] of opts.command.entries()) {
    const [node, ...rest] = command.split(' ');
    const prof = opts.profile ? ['--cpu-prof', '--cpu-prof-dir', join(opts.profile, `${i}`)] : [];
    const serve = ['serve', spec, '--log-level', 'warn', '--no-watch'];
    const { child, url } = await launchOnPort(
      [node, ...(node === 'node' ? prof : []), ...rest, ...serve],
      { env: { DATABASE_URL: databaseUrl }, cpu: SERVER_CPU, cwd: ROOT },
    );
    await waitAnswer(legacyRequest(url, 'tools/list'), 0, child, { expect: /"tools":\[/ });
    builds.push({ command, child, url });
  }
  const rows = [];
  for (const workload of opts.only.split(',')) {
    for (const connections of opts.connections.split(',').map(Number)) {
      const targets = [];
      for (const b of builds) {
        const request = requestOf(workload, b.url);
        await verifyAnswer(request, WORKLOADS[workload].expect, b.command);
        targets.push({ b, request, runs: [] });
      }
      const window = (t, duration) =>
        loadWindow(t.request, {
          connections,
          duration,
          serverPid: t.b.child.pid,
          cpu: LOAD_CPU,
          what: t.b.command,
        });
      for (const t of targets) await window(t, 2);
      for (let rep = 0; rep < Number(opts.reps); rep++)
        for (const t of targets) {
          const w = await window(t, Number(opts.duration));
          t.runs.push(w);
          log(`${workload} c${connections} ${t.b.command}: ${f0(w.cpuUsPerReq)} µs/req`);
        }
      for (const t of targets)
        rows.push({
          workload,
          connections,
          command: t.b.command,
          cpuUsPerReq: stats(t.runs.map((w) => w.cpuUsPerReq)),
          rps: stats(t.runs.map((w) => w.rps)),
          // This build's CPU per request ÷ the first build's, round by round: adjacent
          // windows share the machine's load, so the ratio moves less than either figure.
          vsFirst:
            t === targets[0]
              ? undefined
              : stats(t.runs.map((w, i) => w.cpuUsPerReq / targets[0].runs[i].cpuUsPerReq)),
        });
    }
  }
  await Promise.all(builds.map((b) => stop(b.child)));
  await stop(upstream);
  process.stdout.write(
    [
      '| workload | build | CPU µs/request | CPU ÷ first build, per round | rps |',
      '| --- | --- | --- | --- | --- |',
      ...rows.map(
        (r) =>
          `| ${r.workload} c${r.connections} | ${r.command} | ${range(r.cpuUsPerReq, f0)} | ${range(r.vsFirst, f2)} | ${range(r.rps, f0)} |`,
      ),
    ].join('\n') + '\n',
  );
} finally {
  stopAll();
  await db?.drop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
