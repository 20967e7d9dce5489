import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { CLI } from '../helpers/run-cli.js';

function spec(upstream: string, extra = ''): string {
  return `
wrap "reloadable" version="1.0.0"
base-url "${upstream}"
can get slow {
    describe "Answers after the upstream's delay."
    path "/slow"
}
${extra}
`;
}

const PING_GRANT = `
can get ping {
    describe "Answers pong."
    path "/ping"
}`;

let upstream: Upstream;
let dir: string;

beforeAll(async () => {
  upstream = await startUpstream(async (req, res) => {
    if (req.path === '/slow') await new Promise((r) => setTimeout(r, 600));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.path }));
  });
  dir = mkdtempSync(join(tmpdir(), 'beaver-reload-'));
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function toolNames(url: string): Promise<string[]> {
  const r = await postJson(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return (r.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
}

describe('reloading the spec in a running gateway', () => {
  let gw: TestGateway;
  afterEach(async () => gw?.close());

  it('serves a new tool after a good spec is reloaded, without a restart', async () => {
    const file = join(dir, 'good.mcp.kdl');
    writeFileSync(file, spec(upstream.url));
    gw = await startGateway(readFileSync(file, 'utf8'), { specFile: file });
    expect(await toolNames(gw.url)).toEqual(['get_slow']);
    writeFileSync(file, spec(upstream.url, PING_GRANT));
    await expect(gw.reload()).resolves.toEqual({ ok: true, generation: 2 });
    expect(await toolNames(gw.url)).toEqual(['get_slow', 'get_ping']);
    const r = await postJson(`${gw.url}/api/get_ping`, {});
    expect(r.status).toBe(200);
    expect(gw.logs()).toContain('"spec reloaded"');
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/^mcp_beaver_spec_reloads_total\{result="success"\} 1$/m);
    expect(metrics).toMatch(/^mcp_beaver_spec_generation 2$/m);
  });

  it('keeps the last good spec serving when the new one does not compile, and logs why', async () => {
    const file = join(dir, 'bad.mcp.kdl');
    writeFileSync(file, spec(upstream.url));
    gw = await startGateway(readFileSync(file, 'utf8'), { specFile: file });
    writeFileSync(file, `${spec(upstream.url)}\ncan frobnicate things {\n    path "/x"\n}\n`);
    const result = await gw.reload();
    expect(result.ok).toBe(false);
    expect(await toolNames(gw.url)).toEqual(['get_slow']);
    expect((await postJson(`${gw.url}/api/get_slow`, {})).status).toBe(200);
    const rejected = gw
      .logs()
      .split('\n')
      .filter((l) => l.includes('spec reload rejected'));
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toContain('SPEC_UNKNOWN_VERB');
    expect(rejected[0]).toContain('bad.mcp.kdl:');
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/^mcp_beaver_spec_last_reload_success 0$/m);
  });

  it('lets a call in flight finish on the grant it started with while the spec changes under it', async () => {
    const file = join(dir, 'inflight.mcp.kdl');
    writeFileSync(file, spec(upstream.url));
    gw = await startGateway(readFileSync(file, 'utf8'), { specFile: file });
    const inFlight = postJson(`${gw.url}/api/get_slow`, {});
    await new Promise((r) => setTimeout(r, 150));
    // The new spec no longer has get_slow at all.
    writeFileSync(file, spec(upstream.url, PING_GRANT).replace(/can get slow \{[^}]*\}/, ''));
    await expect(gw.reload()).resolves.toMatchObject({ ok: true });
    const done = await inFlight;
    expect(done.status).toBe(200);
    expect((done.json as { result: { path: string } }).result.path).toBe('/slow');
    expect((await postJson(`${gw.url}/api/get_slow`, {})).status).toBe(404);
  });
});

describe('mcp-beaver serve watching its spec file', () => {
  let child: ChildProcess | undefined;
  let out = '';
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    child = undefined;
    out = '';
  });

  async function serve(file: string): Promise<string> {
    child = spawn(process.execPath, [CLI, 'serve', file, '--http', '127.0.0.1:0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    return waitFor(() =>
      /"msg":"mcp-beaver listening".*?"url":"([^"]+)"|"url":"([^"]+)".*?"msg":"mcp-beaver listening"/
        .exec(out)
        ?.slice(1)
        .find(Boolean),
    );
  }

  async function waitFor<T>(
    probe: () => T | undefined | Promise<T | undefined>,
    ms = 15_000,
  ): Promise<T> {
    const until = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
      if (Date.now() > until) throw new Error(`timed out; output so far:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('reloads when a Kubernetes-style ConfigMap swaps the ..data symlink', async () => {
    // The kubelet's layout: spec.mcp.kdl -> ..data/spec.mcp.kdl, ..data -> ..<timestamp>.
    const mount = join(dir, 'configmap');
    mkdirSync(join(mount, '..v1'), { recursive: true });
    writeFileSync(join(mount, '..v1', 'spec.mcp.kdl'), spec(upstream.url));
    symlinkSync('..v1', join(mount, '..data'));
    symlinkSync(join('..data', 'spec.mcp.kdl'), join(mount, 'spec.mcp.kdl'));
    const url = await serve(join(mount, 'spec.mcp.kdl'));
    expect(await toolNames(url)).toEqual(['get_slow']);

    mkdirSync(join(mount, '..v2'));
    writeFileSync(join(mount, '..v2', 'spec.mcp.kdl'), spec(upstream.url, PING_GRANT));
    symlinkSync('..v2', join(mount, '..data_tmp'));
    renameSync(join(mount, '..data_tmp'), join(mount, '..data')); // the atomic swap
    await waitFor(async () => ((await toolNames(url)).includes('get_ping') ? true : undefined));
    expect(out).toContain('"spec reloaded"');
  });

  it('reloads on SIGHUP', async () => {
    const file = join(dir, 'hup.mcp.kdl');
    writeFileSync(file, spec(upstream.url));
    const url = await serve(file);
    child!.kill('SIGHUP'); // nothing changed: the same tools, still serving
    await waitFor(() => (out.includes('"spec reloaded"') ? true : undefined));
    expect(await toolNames(url)).toEqual(['get_slow']);
  });
});
