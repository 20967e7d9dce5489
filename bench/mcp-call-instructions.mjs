// Instructions a tools/call of an `mcp-server` grant costs the gateway, counted by
// callgrind (issue 40: upstream MCP over HTTP within 1.3× of stdio), the sibling of
// bench/call-instructions.mjs for HTTP grants. The upstream is bench/servers/mcp-echo.mjs
// (2025-era session, `echo`), reached as
//   sse    Streamable HTTP, each answer an event stream (as the SDK answers)
//   json   Streamable HTTP, each answer application/json
//   stdio  the gateway's stdio child (not under valgrind: only the gateway is counted)
// Each build × upstream runs in its own gateway under `valgrind --tool=callgrind
// --separate-threads=yes`; after `--warm` calls the counters are zeroed, `--calls` calls
// are sent (`--connections` at a time), and the counts are dumped. A count does not move
// with the machine's load the way CPU time does.
//
//   node bench/mcp-call-instructions.mjs --command "node /tmp/base/dist/cli/main.js" \
//     --command "node dist/cli/main.js" [--only sse,json,stdio] [--calls 2000] [--warm 3000]
//     [--connections 2] [--keep DIR]
//
// `--keep DIR` keeps each run's callgrind files in DIR/<n>-<upstream>/ for
// callgrind_annotate (which functions the calls spent their instructions in).
// Prints, per run, the main thread's instructions a call and all threads', and for each
// build the HTTP ÷ stdio ratio of the main thread's.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { instructionsPerCall } from './lib/callgrind-calls.mjs';
import { modernRequest } from './lib/mcp-requests.mjs';
import { echoSpec } from './sections/mcp-upstream.mjs';
import { hasCommand, launch, launchOnPort, stop, urlOf, waitAnswer } from './lib/processes.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const ECHO = join(ROOT, 'bench', 'servers', 'mcp-echo.mjs');
const { values: opts } = parseArgs({
  options: {
    command: { type: 'string', multiple: true, default: ['node dist/cli/main.js'] },
    only: { type: 'string', default: 'sse,json,stdio' },
    calls: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '2' },
    keep: { type: 'string' },
  },
});
const CALLS = Number(opts.calls);
const WARM = Number(opts.warm);
const CONNECTIONS = Number(opts.connections);
const TOOL = 'read_echo';
const log = (m) => process.stderr.write(`[mcp-call-instructions] ${m}\n`);

if (!hasCommand('valgrind') || !hasCommand('callgrind_control')) {
  log('needs valgrind (callgrind) on PATH');
  process.exit(2);
}

async function measure(command, upstream, urls, n) {
  const work = opts.keep
    ? join(opts.keep, `${n}-${upstream}`)
    : mkdtempSync(join(tmpdir(), 'mcpb-mcp-instr-'));
  mkdirSync(work, { recursive: true });
  const server =
    upstream === 'stdio'
      ? `{\n    command "node" "${ECHO}" "--transport" "stdio"\n}`
      : `url="${urls[upstream]}"`;
  const { child, url, startedAt } = await launchOnPort(
    [
      'valgrind',
      '--tool=callgrind',
      `--callgrind-out-file=${join(work, 'cg.out')}`,
      '--separate-threads=yes',
      ...command.split(' '),
      'serve',
      echoSpec(work, 'echo.mcp.kdl', server),
      '--log-level',
      'warn',
      '--no-watch',
    ],
    { pin: false, cwd: ROOT },
  );
  const pool = new Pool(url, { connections: CONNECTIONS });
  try {
    await waitAnswer({ url: `${url}/readyz` }, startedAt, child, {
      expect: /"everything":"up"/,
      timeoutMs: 600_000,
    });
    const request = modernRequest(
      url,
      'tools/call',
      { name: TOOL, arguments: { message: 'hello from the bench' } },
      TOOL,
    );
    const perCall = await instructionsPerCall({
      pid: child.pid,
      pool,
      request: request,
      warm: WARM,
      calls: CALLS,
      connections: CONNECTIONS,
      accept: (status, text) =>
        status === 200 && /Echo: hello from the bench/.test(text) && !/"isError":true/.test(text),
      work,
      what: `${command} ${upstream}`,
    });
    return {
      command,
      upstream,
      ...perCall,
    };
  } finally {
    await pool.close();
    await stop(child);
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
}

const upstreams = opts.only.split(',');
const servers = upstreams
  .filter((u) => u !== 'stdio')
  .map((answer) => ({
    answer,
    child: launch(['node', ECHO, '--transport', 'http', '--answer', answer], { pin: false }),
  }));
try {
  const urls = {};
  for (const s of servers) urls[s.answer] = `${await urlOf(s.child, `mcp-echo ${s.answer}`)}/mcp`;
  const runs = opts.command.flatMap((command) =>
    upstreams.map((upstream) => ({ command, upstream })),
  );
  log(`${runs.length} gateways under callgrind, ${WARM} calls to warm, ${CALLS} counted`);
  const results = await Promise.all(runs.map((r, n) => measure(r.command, r.upstream, urls, n)));
  console.log(
    '| upstream | build | instructions a call, main thread | all threads | ÷ stdio, main thread |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of results) {
    const stdio = results.find((x) => x.command === r.command && x.upstream === 'stdio');
    const ratio = stdio ? (r.mainThread / stdio.mainThread).toFixed(2) : '–';
    console.log(
      `| ${r.upstream} | ${r.command} | ${r.mainThread.toLocaleString('en')} | ${r.allThreads.toLocaleString('en')} | ${ratio} |`,
    );
  }
} finally {
  await Promise.all(servers.map((s) => stop(s.child)));
}
