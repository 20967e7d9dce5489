// Does a snapshot-started server answer as main's build does? (issue 40's snapshot
// experiment, bench/snapshot/build.mjs). Each command serves one HTTP grant whose
// upstream (a loopback server here that echoes the Authorization header) needs a bearer
// token named by the spec and set only in the server's run-time environment; the probe
// compares, command by command: tools/list and tools/call in both eras, the REST call,
// /openapi.json's size, /healthz, and /metrics' process start time against the clock.
//
//   node bench/snapshot/probe.mjs "node dist/cli/main.js" \
//     "node --snapshot-blob DIR/mcp-beaver.blob" [--workers 2]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eraRequest, legacyRequest } from '../lib/mcp-requests.mjs';
import { launchOnPort, stop, waitAnswer } from '../lib/processes.mjs';

const { values: opts, positionals: commands } = parseArgs({
  allowPositionals: true,
  options: { workers: { type: 'string' } },
});
const upstream = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const work = mkdtempSync(join(tmpdir(), 'mcpb-snapshot-probe-'));
const spec = join(work, 'probe.mcp.kdl');
writeFileSync(
  spec,
  [
    'wrap "probe" version="1.0.0" {',
    '    describe "Probe."',
    '}',
    `base-url "http://127.0.0.1:${upstream.address().port}"`,
    'auth bearer env="PROBE_TOKEN"',
    'can get item {',
    '    describe "One item."',
    '    path "/items/{id}" {',
    '        id "integer" min=1 describe="The id."',
    '    }',
    '}',
    '',
  ].join('\n'),
);

/** An answer, with what differs from start to start (request ids, the token) masked. */
async function answer(url, init, token) {
  const res = await fetch(url, init);
  const text = (await res.text()).replace(/"(id|requestId|request_id)":"[^"]*"/g, '"$1":"…"');
  return `${res.status} ${text.replaceAll(token, 'TOKEN')}`;
}

const post = (r, token) =>
  answer(r.url, { method: 'POST', headers: r.headers, body: r.body }, token);

const results = new Map();
try {
  for (const command of commands) {
    const token = `tok-${randomUUID()}`;
    const argv = [...command.split(' ').filter(Boolean), 'serve', spec, '--log-level', 'warn'];
    argv.push('--no-watch', ...(opts.workers ? ['--workers', opts.workers] : []));
    const { child, url, startedAt } = await launchOnPort(argv, { env: { PROBE_TOKEN: token } });
    try {
      await waitAnswer(legacyRequest(url, 'tools/list'), startedAt, child, {
        expect: /"tools":\[/,
      });
      const out = [];
      for (const era of ['modern', 'legacy']) {
        out.push(await post(eraRequest(era, url, 'tools/list'), token));
        const call = eraRequest(
          era,
          url,
          'tools/call',
          { name: 'get_item', arguments: { id: 42 } },
          'get_item',
        );
        out.push(await post(call, token));
      }
      const rest = {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"id":42}',
      };
      out.push(await answer(`${url}/api/get_item`, rest, token));
      const openapi = await fetch(`${url}/openapi.json`);
      out.push(`openapi.json ${openapi.status} ${(await openapi.text()).length} bytes`);
      out.push(`healthz ${(await fetch(`${url}/healthz`)).status}`);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const start = Number(/process_start_time_seconds (\d+)/.exec(metrics)?.[1]);
      // The build's time here would mean a start time captured in the snapshot.
      out.push(`process start within 60 s of now: ${Math.abs(Date.now() / 1000 - start) < 60}`);
      results.set(command, out);
    } finally {
      await stop(child);
    }
  }
} finally {
  upstream.close();
  rmSync(work, { recursive: true, force: true });
}

let differ = 0;
const [first, ...rest] = [...results.values()];
for (const [i, line] of first.entries()) {
  const same = rest.every((out) => out[i] === line);
  if (!same) differ++;
  process.stdout.write(`${same ? 'same' : 'DIFFERS'}  ${line.slice(0, 160)}\n`);
  if (!same)
    for (const [c, out] of results) process.stdout.write(`    ${c}: ${out[i].slice(0, 160)}\n`);
}
process.exitCode = differ === 0 ? 0 : 1;
