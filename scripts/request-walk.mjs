#!/usr/bin/env node
/**
 * One request walked through the house: `node scripts/request-walk.mjs` serves a small spec
 * (an upstream MCP tool with `confirm`, on the toolset URL `/mcp/ops`, telemetry exporting
 * to a local OTLP sink) and measures two 2026-07-28 `tools/call`s of it: the one that asks
 * the user to confirm, and the one that answers and runs upstream. For each it prints the
 * src files whose functions ran, by folder, and the calls that cross from one folder into
 * another.
 *
 * Why this exists: docs/architecture.md says which rooms a request passes through, and a
 * reshape of the house is judged by how many files and folder crossings one request costs.
 * Counting by reading is error-prone; this counts what ran.
 *
 * How: the gateway runs in a child process with a preload (request-walk-probe.mjs). The
 * files are exact: V8's precise coverage with call counts, zeroed just before one measured
 * request and read just after it (boot, lazy loading and a warm-up call are not counted).
 * The crossings are sampled: V8 reports which functions ran but not who called them, so a
 * CPU profile over a few hundred repeats of the request gives the call tree; a call too
 * brief to be sampled can be missed, so compare runs with the same REPEATS.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, sep, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'mcpb-walk-'));
const specPath = join(dir, 'walk.mcp.kdl');
writeFileSync(
  specPath,
  `wrap "walk" version="1.0.0" {
    describe "One upstream MCP tool behind a confirmation."
}
access confirm-key-env="WALK_CONFIRM_KEY" {
    api-key env="WALK_KEY" scopes="echo:call"
}
mcp-server "everything" {
    command "node" "${everything}" "stdio"
    env "LOG_LEVEL" "warn"
}
can get echo {
    describe "Echo a message back."
    tool "everything" "echo"
    args {
        message "string" required=#true max-length=200
    }
    scope "echo:call"
    confirm "Echo {message}?"
}
toolset "ops" {
    tools "get_echo"
}
`,
);

// A collector that takes OTLP/HTTP and answers 200, so telemetry is on and exporting.
const collector = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise((r) => collector.listen(0, '127.0.0.1', r));
const otlp = `http://127.0.0.1:${collector.address().port}`;

const port = 20000 + Math.floor(Math.random() * 20000);
const child = fork(
  join(root, 'bin/mcp-beaver.js'),
  [
    'serve',
    specPath,
    '--http',
    `127.0.0.1:${port}`,
    '--otlp',
    otlp,
    '--no-watch',
    '--log-level',
    'error',
  ],
  {
    execArgv: ['--import', join(root, 'scripts/request-walk-probe.mjs')],
    env: { ...process.env, WALK_KEY: 'walk-key-4b2f9a', WALK_CONFIRM_KEY: 'k'.repeat(43) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  },
);
const ask = (what) =>
  new Promise((resolve) => {
    child.once('message', resolve);
    child.send(what);
  });

const url = `http://127.0.0.1:${port}/mcp/ops`;
async function call(body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer walk-key-4b2f9a',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_echo',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
  });
  return res.json();
}
// A 2026-07-28 call from a client that can be asked (form elicitation), and its retry.
const echo = (answer) => ({
  method: 'tools/call',
  params: {
    name: 'get_echo',
    arguments: { message: 'hello' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    },
    ...answer,
  },
});

for (let i = 0; ; i++) {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`);
    break;
  } catch {
    if (i > 600) throw new Error('the gateway did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Warm-up: the asking call and its answer once, so every module of the path is loaded.
const asked = await call(echo());
const answer = answerOf(asked);
await call(echo(answer));

const REPEATS = 300;
const walks = [];
for (const [label, answering] of [
  ['tools/call that asks (confirm)', false],
  ['tools/call that answers and runs upstream', true],
]) {
  // Answers need a fresh sealed state each: ask for them all before measuring.
  const requests = [];
  for (let i = 0; i <= REPEATS; i++)
    requests.push(answering ? echo(answerOf(await call(echo()))) : echo());
  await ask('reset');
  const reply = await call(requests[0]);
  const { ran } = await ask('take');
  await ask('reset');
  for (const r of requests.slice(1)) await call(r);
  const { profile } = await ask('take');
  walks.push({ label, ran, profile, reply });
}
child.kill('SIGTERM');
collector.close();

const folder = (f) => f.split(sep).slice(0, -1).slice(0, 2).join('/') || '(root)';
const srcFile = (url) => {
  if (!url.startsWith('file:')) return undefined;
  const f = relative(src, fileURLToPath(url));
  return f.startsWith('..') ? undefined : f;
};

for (const { label, ran, profile, reply } of walks) {
  const files = new Set(ran.map(srcFile).filter(Boolean));
  const byFolder = new Map();
  for (const f of [...files].sort())
    byFolder.set(folder(f), [...(byFolder.get(folder(f)) ?? []), f]);
  const crossings = folderCrossings(profile, files);
  console.log(`\n${label}`);
  console.log(`  answer: ${JSON.stringify(reply).slice(0, 100)}…`);
  console.log(`  ${files.size} src files ran, in ${byFolder.size} folders`);
  for (const [room, fs] of byFolder)
    console.log(`    ${room.padEnd(22)} ${fs.map((f) => f.split(sep).at(-1)).join(', ')}`);
  console.log(
    `  ${crossings.size} calls cross from one folder into another (distinct caller → callee files, sampled):`,
  );
  for (const c of [...crossings].sort()) console.log(`    ${c}`);
}

/**
 * The calls of a CPU profile's call tree that go from a src file in one folder to a src file
 * in another (frames outside src, such as fastify or node, are looked through), as
 * "caller → callee" pairs. Sampled: a call too brief to be sampled is missed, which is why
 * the request is repeated many times.
 */
function folderCrossings(p, files) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const found = new Set();
  const walk = (n, caller) => {
    const f = srcFile(n.callFrame.url);
    const here = f && files.has(f) ? f : caller;
    if (f && files.has(f) && caller && folder(caller) !== folder(f))
      found.add(`${caller.split(sep).join('/')} → ${f.split(sep).join('/')}`);
    for (const c of n.children ?? []) walk(byId.get(c), here);
  };
  walk(p.nodes[0], undefined);
  return found;
}

function answerOf(reply) {
  const result = reply?.result;
  if (result?.resultType !== 'input_required')
    throw new Error(`no confirmation asked: ${JSON.stringify(reply).slice(0, 300)}`);
  const [key] = Object.keys(result.inputRequests);
  return {
    requestState: result.requestState,
    inputResponses: { [key]: { action: 'accept', content: { confirm: true } } },
  };
}
