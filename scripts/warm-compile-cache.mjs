#!/usr/bin/env node
// Fills Node's compile cache (NODE_COMPILE_CACHE) at image build time, so that the
// container's first start reads bytecode instead of compiling every module (issue 19):
//
//   NODE_DISABLE_COMPILE_CACHE=1 node warm-compile-cache.mjs /app/dist/cli/main.js
//
// It starts the image's command, `serve`, on a spec with a SQL grant, an HTTP grant and an
// access block (what a deployed spec has), asks it for tools/list once, and stops it with
// SIGTERM: Node writes the cache as the server exits. The database and the upstream are
// only named, never reached, so the build needs no network. Exits 1 when serve fails or
// the cache stays empty. NODE_DISABLE_COMPILE_CACHE keeps this script itself out of the
// cache; the servers it starts run without it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const main = process.argv[2];
const cache = process.env.NODE_COMPILE_CACHE;
if (!main || !cache) {
  process.stderr.write('usage: NODE_COMPILE_CACHE=<dir> node warm-compile-cache.mjs <main.js>\n');
  process.exit(2);
}
const TIMEOUT_MS = 30_000;
const key = `warm-${randomBytes(16).toString('hex')}`;
const SPEC = `wrap "warm-up" version="1.0.0" {
    describe "Loads what a deployed spec loads: SQL and HTTP grants behind API keys."
}
base-url "http://127.0.0.1:9"
database env="DATABASE_URL"
access {
    api-key env="WARM_KEYS" scopes="read"
}
can query items {
    describe "Items from an id on."
    sql "SELECT id FROM items WHERE id >= $1 LIMIT 10"
    params {
        from_id "integer" required=#true
    }
    scope "read"
}
can get item {
    describe "One item."
    path "/items/{id}" {
        id "integer"
    }
    scope "read"
}
`;

const work = mkdtempSync(join(tmpdir(), 'mcpb-warm-'));
const spec = join(work, 'warm-up.mcp.kdl');
writeFileSync(spec, SPEC);
const env = { ...process.env, DATABASE_URL: 'postgres://warm@127.0.0.1:9/none', WARM_KEYS: key };
delete env.NODE_DISABLE_COMPILE_CACHE;
const child = spawn(
  process.execPath,
  [main, 'serve', spec, '--http', '127.0.0.1:0', '--no-watch'],
  { env, stdio: ['ignore', 'pipe', 'pipe'] },
);
let output = '';
const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
const fail = (msg) => {
  process.stderr.write(`warm-compile-cache: ${msg}\n${output}\n`);
  child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
};
const timer = setTimeout(() => fail(`no answer within ${TIMEOUT_MS} ms`), TIMEOUT_MS);

let listening = false;
const url = await new Promise((resolve) => {
  const onData = (b) => {
    output += b.toString();
    for (const line of output.split('\n')) {
      if (!line.includes('"mcp-beaver listening"')) continue;
      try {
        const entry = JSON.parse(line);
        if (typeof entry.url === 'string') {
          listening = true;
          return resolve(entry.url);
        }
      } catch {
        // a line cut mid-write
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', (b) => (output += b.toString()));
  void exited.then((code) => listening || fail(`serve exited (${code}) before listening`));
});
const res = await fetch(`${url}/mcp`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});
const body = await res.text();
if (res.status !== 200 || !body.includes('"query_items"'))
  fail(`tools/list: ${res.status} ${body}`);
child.kill('SIGTERM');
const code = await exited;
clearTimeout(timer);
rmSync(work, { recursive: true, force: true });
if (code !== 0) fail(`serve exited with ${code} on SIGTERM`);
const entries = existsSync(cache)
  ? readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
  : 0;
if (entries === 0) fail(`the compile cache ${cache} is empty (this Node has none?)`);
process.stdout.write(`warm-compile-cache: ${entries} entries in ${cache}\n`);
