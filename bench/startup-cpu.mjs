// The CPU a cold start costs, to the first tools/list answer (issue 19): on a loaded
// machine wall-clock start-up says more about the neighbours than about us, while the
// server's own CPU time (and, under valgrind, its instruction count) does not.
//
// Each rep starts `<command> serve <spec> --http 127.0.0.1:<port> --log-level warn
// --no-watch` with bench/lib/cpu-on-signal.cjs preloaded (NODE_OPTIONS=--require), polls
// tools/list until it answers, then sends SIGUSR2: the server reports process.cpuUsage()
// and its RSS and exits. With --valgrind each case runs once more under callgrind and
// the instructions executed to that point are reported too (repeatable under load).
//
//   node bench/startup-cpu.mjs [--command "node dist/cli/main.js" …] [--tools 2,500]
//                              [--kinds mixed,http] [--reps 5] [--valgrind] [--profile DIR]
//
// `mixed` is the peer bench's spec (one SQL and one HTTP grant, alternating for larger
// counts); `http` has HTTP grants only and no database, so what a spec without SQL
// grants loads is seen; `generated` is bench/generate-spec.ts's (the startup section's,
// issue 40: `--kinds generated --tools 10,500,5000`). The database is only named: no
// grant is called.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { legacyRequest } from './lib/mcp-requests.mjs';
import { launchOnPort, stop, waitAnswer } from './lib/processes.mjs';
import { f0, f1, range, stats } from './lib/stats.mjs';
import { HTTP_TOOL, toKdl, toolsOf } from './peers/workload.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const HOOK = join(ROOT, 'bench', 'lib', 'cpu-on-signal.cjs');
const { values: opts } = parseArgs({
  options: {
    command: { type: 'string', multiple: true },
    tools: { type: 'string', default: '2,500' },
    kinds: { type: 'string', default: 'mixed,http' },
    reps: { type: 'string', default: '5' },
    valgrind: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
// Several --command: their cold starts take turns (A B A B …), so a busy minute on the
// machine falls on every command alike.
const COMMANDS = (opts.command ?? [`node ${join(ROOT, 'dist', 'cli', 'main.js')}`]).map((c) =>
  c.split(' ').filter(Boolean),
);
const REPS = Number(opts.reps);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NODE_OPTIONS = `--require=${JSON.stringify(HOOK)}`;
// --profile DIR: every start also writes a V8 CPU profile there (node --cpu-prof, which
// NODE_OPTIONS may not carry: so only for a command that is `node …`).
if (opts.profile) {
  for (const command of COMMANDS) {
    if (command[0] !== 'node') throw new Error('--profile needs commands starting with node');
    command.splice(1, 0, '--cpu-prof', `--cpu-prof-dir=${opts.profile}`);
  }
}
const work = mkdtempSync(join(tmpdir(), 'mcpb-startup-cpu-'));

async function specFile(kind, count) {
  const file = join(work, `${kind}-${count}.mcp.kdl`);
  const ctx = { schema: 'public', upstreamUrl: 'http://127.0.0.1:9' };
  if (kind === 'generated') {
    const { tsImport } = await import('tsx/esm/api');
    const { generateSpec } = await tsImport('./generate-spec.ts', import.meta.url);
    writeFileSync(file, generateSpec(count));
  } else if (kind === 'mixed') writeFileSync(file, toKdl(toolsOf(count), ctx));
  else {
    const tools = Array.from({ length: count }, (_, i) => ({
      ...HTTP_TOOL,
      name: count === 1 ? HTTP_TOOL.name : `${HTTP_TOOL.name}_${i}`,
    }));
    // The same spec without its `database` line: nothing of it is SQL.
    const text = toKdl(tools, ctx)
      .split('\n')
      .filter((l) => !l.startsWith('database '))
      .join('\n');
    writeFileSync(file, text);
  }
  return file;
}

/** One cold start: the server's CPU and RSS at its first tools/list answer. */
async function once(argv) {
  const { child, url, startedAt } = await launchOnPort(argv, {
    // BENCH_TOKEN: the generated spec's upstream credential (never sent: no grant is called).
    env: { DATABASE_URL, NODE_OPTIONS, BENCH_TOKEN: 'bench-token' },
  });
  const wallMs = await waitAnswer(legacyRequest(url, 'tools/list'), startedAt, child, {
    expect: /"tools":\[/,
    timeoutMs: 600_000,
  });
  let report;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.kill('SIGUSR2');
  // unref: a pending timer would keep this script alive for 2 minutes after its last rep.
  await Promise.race([exited, new Promise((r) => setTimeout(r, 120_000).unref())]);
  await stop(child);
  for (const line of err.split('\n')) {
    try {
      report = JSON.parse(line).startupCpu ?? report;
    } catch {
      // a log line
    }
  }
  if (!report) throw new Error(`no CPU report from ${argv.join(' ')}\n${child.stderrTail()}`);
  return { wallMs, ...report };
}

/** Instructions to the first answer, under callgrind (slow: one run per case). */
async function instructions(argv) {
  const out = join(work, `callgrind.${Date.now()}`);
  await once(['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, ...argv]);
  const m = /summary:\s+(\d+)/.exec(readFileSync(out, 'utf8'));
  return m ? Number(m[1]) : undefined;
}

const rows = [];
try {
  const bare = [];
  for (let i = 0; i < REPS; i++) {
    const r = spawnSync('node', ['-e', 'const u=process.cpuUsage();console.log(u.user+u.system)'], {
      encoding: 'utf8',
    });
    bare.push(Number(r.stdout) / 1000);
  }
  for (const kind of opts.kinds.split(','))
    for (const count of opts.tools.split(',').map(Number)) {
      const spec = await specFile(kind, count);
      const argvs = COMMANDS.map((c) => [...c, 'serve', spec, '--log-level', 'warn', '--no-watch']);
      const runs = argvs.map(() => []);
      for (let i = 0; i < REPS; i++)
        for (const [j, argv] of argvs.entries()) runs[j].push(await once(argv));
      for (const [j, argv] of argvs.entries()) {
        const row = {
          command: COMMANDS[j].join(' '),
          kind,
          tools: count,
          cpuMs: stats(runs[j].map((r) => r.cpuUs / 1000)),
          wallMs: stats(runs[j].map((r) => r.wallMs)),
          rssMb: stats(runs[j].map((r) => r.rssMb)),
          cjsModules: runs[j][0].cjsModules,
          ...(opts.valgrind && { instructions: await instructions(argv) }),
        };
        rows.push(row);
        process.stderr.write(`${row.command} ${kind} ${count}: ${f0(row.cpuMs.median)} ms CPU\n`);
      }
    }
  const out = [
    `${REPS} cold starts per row, median (min–max); node -e 0 uses ${range(stats(bare), f0)} ms CPU`,
    '',
    '| command | spec | tools | CPU ms to first tools/list | wall ms (loaded machine) | RSS MB | CJS modules |' +
      (opts.valgrind ? ' instructions (callgrind) |' : ''),
    '| --- | --- | --- | --- | --- | --- | --- |' + (opts.valgrind ? ' --- |' : ''),
    ...rows.map(
      (r) =>
        `| \`${r.command}\` | ${r.kind} | ${r.tools} | ${range(r.cpuMs, f0)} | ${range(r.wallMs, f0)} | ${range(r.rssMb, f1)} | ${r.cjsModules} |` +
        (opts.valgrind
          ? ` ${r.instructions === undefined ? '–' : (r.instructions / 1e6).toFixed(0)} M |`
          : ''),
    ),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
