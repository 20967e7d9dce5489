// Instructions a tool call costs the gateway, counted by callgrind (issue 40): section 3's
// two requests (tools/call over MCP 2026-07-28, POST /api/get_item over REST) against the
// bench's loopback upstream, for one or more builds. Each build × surface runs in its own
// gateway under `valgrind --tool=callgrind --separate-threads=yes`; after `--warm` calls
// the counters are zeroed, `--calls` calls are sent, and the counts are dumped. A count
// does not move with the machine's load the way CPU time does, so a change of a few
// microseconds a call shows where a CPU window cannot resolve it (two runs of one build
// differ by about 1–2 %: how often the collector runs in the window moves it).
//
//   node bench/call-instructions.mjs --command "node /tmp/base/dist/cli/main.js" \
//     --command "node dist/cli/main.js" [--only mcp,rest] [--calls 2000] [--warm 3000]
//     [--connections 2] [--telemetry off,on] [--env K=V ...] [--keep DIR]
//
// `--telemetry on` runs a gateway with `--otlp` at the bench's loopback collector
// (bench/servers/otlp-sink.mjs), every request traced, as section 11's traced variant;
// `off,on` runs both for each build. OTEL_* of the shell are blanked, as in section 11,
// so that only `--env K=V` (repeatable, e.g. OTEL_TRACES_SAMPLER=always_off) sets them.
//
// Prints, per run, the main thread's instructions a call (the event loop: what the
// request path runs) and all threads' (the collector's and the compiler's helpers too).
// All runs start together: under valgrind each takes minutes, and counts do not mind.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { instructionsPerCall } from './lib/callgrind-calls.mjs';
import { hasCommand, launch, launchOnPort, stop, urlOf, waitAnswer } from './lib/processes.mjs';
import { callSpec, gatewayCalls } from './sections/call-spec.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    command: { type: 'string', multiple: true, default: ['node dist/cli/main.js'] },
    only: { type: 'string', default: 'mcp,rest' },
    keep: { type: 'string' },
    calls: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '2' },
    telemetry: { type: 'string', default: 'off' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const CALLS = Number(opts.calls);
const WARM = Number(opts.warm);
const CONNECTIONS = Number(opts.connections);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Blank, as section 11 has them: only --env sets an OTEL_* variable of the gateways. */
const NO_OTEL = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: '',
  OTEL_TRACES_SAMPLER: '',
  OTEL_TRACES_SAMPLER_ARG: '',
  OTEL_SDK_DISABLED: '',
};
const EXTRA_ENV = Object.fromEntries(
  opts.env.map((kv) => {
    const at = kv.indexOf('=');
    if (at < 1) throw new Error(`--env wants K=V, not ${kv}`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  }),
);
const log = (m) => process.stderr.write(`[call-instructions] ${m}\n`);

if (!hasCommand('valgrind') || !hasCommand('callgrind_control')) {
  log('needs valgrind (callgrind) on PATH');
  process.exit(2);
}

async function measure(command, surface, telemetry, upstreamUrl, collectorUrl, n) {
  // `--keep DIR`: each run's callgrind files stay in DIR/<n>-<surface>-<telemetry>/ for
  // callgrind_annotate (which functions the calls spent their instructions in).
  const work = opts.keep
    ? join(opts.keep, `${n}-${surface}-${telemetry}`)
    : mkdtempSync(join(tmpdir(), 'mcpb-call-instr-'));
  mkdirSync(work, { recursive: true });
  const callgrind = [
    'valgrind',
    '--tool=callgrind',
    `--callgrind-out-file=${join(work, 'cg.out')}`,
    '--separate-threads=yes',
  ];
  const { child, url, startedAt } = await launchOnPort(
    [
      ...callgrind,
      ...command.split(' '),
      'serve',
      callSpec(work),
      '--log-level',
      'warn',
      '--no-watch',
      '--base-url',
      upstreamUrl,
      ...(telemetry === 'on' ? ['--otlp', collectorUrl] : []),
    ],
    { pin: false, cwd: ROOT, env: { DATABASE_URL, ...NO_OTEL, ...EXTRA_ENV } },
  );
  const pool = new Pool(url, { connections: CONNECTIONS });
  try {
    await waitAnswer({ url: `${url}/readyz` }, startedAt, child, { timeoutMs: 600_000 });
    const [mcp, rest] = gatewayCalls({ url, child }, 'get_item', { restExpect: /coverage/ });
    const request = surface === 'mcp' ? mcp.request : rest.request;
    const perCall = await instructionsPerCall({
      pid: child.pid,
      pool,
      request,
      warm: WARM,
      calls: CALLS,
      connections: CONNECTIONS,
      accept: (status, text) => status === 200 && /widget/.test(text),
      work,
      what: `${command} ${surface}`,
    });
    return {
      command,
      surface,
      telemetry,
      ...perCall,
    };
  } finally {
    await pool.close();
    await stop(child);
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
}

const upstream = launch(['node', join(ROOT, 'bench', 'servers', 'upstream.mjs')], { pin: false });
const telemetries = opts.telemetry.split(',');
const sink = telemetries.includes('on')
  ? launch(['node', join(ROOT, 'bench', 'servers', 'otlp-sink.mjs')], { pin: false })
  : undefined;
try {
  const upstreamUrl = await urlOf(upstream, 'upstream');
  const collectorUrl = sink && (await urlOf(sink, 'otlp collector'));
  const runs = opts.command.flatMap((command) =>
    opts.only
      .split(',')
      .flatMap((surface) => telemetries.map((telemetry) => ({ command, surface, telemetry }))),
  );
  log(`${runs.length} gateways under callgrind, ${WARM} calls to warm, ${CALLS} counted`);
  const results = await Promise.all(
    runs.map(({ command, surface, telemetry }, n) =>
      measure(command, surface, telemetry, upstreamUrl, collectorUrl, n),
    ),
  );
  console.log('| surface | telemetry | build | instructions a call, main thread | all threads |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of results)
    console.log(
      `| ${r.surface} | ${r.telemetry} | ${r.command} | ${r.mainThread.toLocaleString('en')} | ${r.allThreads.toLocaleString('en')} |`,
    );
} finally {
  await stop(upstream);
  if (sink) await stop(sink);
}
