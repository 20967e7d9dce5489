/**
 * The npm package as `npm i -g mcp-beaver` / `npx mcp-beaver` users get it: `npm pack`
 * (which builds through `prepack`) in a copy of the checkout without dist/, then the
 * tarball installed into an empty folder with production dependencies only, and the
 * installed command run from there. Slow (a TypeScript build and an npm install), so its
 * timeouts are generous; the install prefers the machine's npm cache.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { cpSync, existsSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitListening } from '../../bench/lib/listening.mjs';
import { startOtlpGrpcReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { skipBecause } from '../helpers/skip-reason.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** Not part of a checkout as cloned (git-ignored output, a build that must not leak in). */
const SKIP = new Set(['.git', 'dist', 'dist-bin', '.tools', 'coverage', '.ci/out', 'test-output']);
const cloned = (src: string): boolean =>
  basename(src) !== 'node_modules' && !SKIP.has(relative(ROOT, src));

let work: string;
let app: string;
let packed: string[];
let install: { code: number | null; output: string };
const installed = (): string => join(app, 'node_modules', 'mcp-beaver');
const bin = (): string => join(app, 'node_modules', '.bin', 'mcp-beaver');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A user's shell: none of the test runner's NODE_OPTIONS, loaders or npm_* variables. Its
 * cache folder is the test's own, so the command's compile cache (bin/mcp-beaver.js) for
 * these throw-away paths stays out of the real ~/.cache.
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? work,
    XDG_CACHE_HOME: join(work, 'cache'),
    ...extra,
  };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  timeout = 60_000,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const options = { cwd, env: userEnv(env), timeout, maxBuffer: 64 << 20 };
    execFile(command, args, options, (err, o, e) =>
      resolve({
        code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
        stdout: o,
        stderr: e,
      }),
    );
  });
}

/** The installed command, run by this node (its shebang would pick the PATH's). */
const mcpBeaver = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
  run(process.execPath, [bin(), ...args], app, 60_000, env);

interface Served {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** What it wrote to stdout and stderr so far, interleaved. */
  output: () => string;
  exited: Promise<number | null>;
}

/** The installed command started by this node with `args`, its output gathered as it runs. */
function startInstalled(args: string[], env: NodeJS.ProcessEnv): Served {
  const child = spawn(process.execPath, [bin(), ...args], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

/** A tools/list POSTed to the gateway at `url` over streamable HTTP. */
const postToolsList = (url: string): Promise<Response> =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

/** Node has a compile cache from 22.1 (module.enableCompileCache from 22.8); not on 20. */
const hasCompileCache =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** Files under `dir`, recursively; [] when it does not exist. */
const filesIn = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcp-beaver-pack-'));
  // A checkout as cloned: the tracked layout, no dist/, the dev dependencies installed.
  const checkout = join(work, 'checkout');
  cpSync(ROOT, checkout, {
    recursive: true,
    filter: cloned,
  });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(checkout, 'node_modules'));

  const pack = await run(
    'npm',
    ['pack', '--json', '--pack-destination', work, '--no-audit', '--no-fund'],
    checkout,
    240_000,
  );
  expect(pack.code, `npm pack\n${pack.stdout}\n${pack.stderr}`).toBe(0);
  const [report] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = report!.files.map((f) => f.path);
  const tarball = join(work, report!.filename);

  app = join(work, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
  const r = await run(
    'npm',
    ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball],
    app,
    240_000,
  );
  install = { code: r.code, output: `${r.stdout}\n${r.stderr}` };
}, 500_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the npm package (npm pack, then npm install --omit=dev of the tarball)', () => {
  it('ships the compiled code, the bin, the specs and the docs, and no sources or tests', () => {
    expect(packed).toEqual(expect.arrayContaining(['bin/mcp-beaver.js', 'dist/cli/main.js']));
    expect(packed).toEqual(
      expect.arrayContaining(['specs/demo.mcp.kdl', 'README.md', 'LICENSE', 'package.json']),
    );
    const unexpected = packed.filter(
      (p) =>
        !/^(bin|dist|specs|docs)\//.test(p) &&
        !['README.md', 'LICENSE', 'package.json'].includes(p),
    );
    expect(unexpected).toEqual([]);
    expect(packed.filter((p) => p.endsWith('.map') || p.endsWith('.ts'))).toEqual([]);
  });

  it('installs with production dependencies only, without engine warnings on this Node', () => {
    expect(install.code, install.output).toBe(0);
    expect(install.output).not.toContain('EBADENGINE');
    for (const dev of ['tsx', 'typescript', 'vitest']) {
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    }
    expect(existsSync(join(installed(), 'src')), 'src/').toBe(false);
  });

  it('prints the help and the version', async () => {
    const help = await mcpBeaver(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('mcp-beaver <command> [options]');
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(await mcpBeaver(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.skipIf(
    skipBecause(
      !hasCompileCache,
      `Node ${process.version} has no compile cache (Node 22.1+): the compile-cache test is skipped`,
    ),
  )(
    "keeps the compiled modules in the user's cache folder and starts from them the next time",
    async () => {
      const xdg = join(work, 'xdg-cache');
      const cache = join(xdg, 'mcp-beaver', 'compile-cache');
      const env = { XDG_CACHE_HOME: xdg };
      expect(await mcpBeaver(['--version'], env)).toMatchObject({ code: 0, stderr: '' });
      expect(filesIn(cache).length).toBeGreaterThan(0);
      // Node's own trace: the second start compiled nothing the first one had.
      const second = await mcpBeaver(['--version'], { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
      expect(second.code, second.stderr).toBe(0);
      const verdicts = [...second.stderr.matchAll(/V8 code cache for ESM (\S+) was (\w+)/g)].map(
        (m) => `${m[1]!.slice(m[1]!.indexOf('/dist/') + 1)} ${m[2]}`,
      );
      expect(verdicts).toContain('dist/cli/main.js accepted');
      expect(verdicts.filter((v) => !v.endsWith(' accepted'))).toEqual([]);
    },
  );

  it.skipIf(
    skipBecause(
      !hasCompileCache,
      `Node ${process.version} has no compile cache (Node 22.1+): the compile-cache test is skipped`,
    ),
  )('writes no compile cache when NODE_DISABLE_COMPILE_CACHE=1 is set', async () => {
    const xdg = join(work, 'xdg-disabled');
    const r = await mcpBeaver(['--version'], {
      XDG_CACHE_HOME: xdg,
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(xdg)).toBe(false);
  });

  it.skipIf(
    skipBecause(
      hasCompileCache,
      `Node ${process.version} has a compile cache: the test of a Node without one (Node 20) is skipped`,
    ),
  )('runs with no compile cache and writes nothing on a Node without one (Node 20)', async () => {
    const xdg = join(work, 'xdg-node20');
    const home = join(work, 'home-node20');
    await mkdir(home);
    const r = await mcpBeaver(['--version'], { XDG_CACHE_HOME: xdg, HOME: home });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(xdg)).toBe(false);
    expect(readdirSync(home)).toEqual([]);
  });

  it('checks the spec it ships', async () => {
    const spec = relative(app, join(installed(), 'specs', 'github-issues.mcp.kdl'));
    const r = await mcpBeaver(['check', spec]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('list_issues');
  });

  it('serves the spec and answers tools/list, then stops on SIGTERM', async () => {
    const spec = join(installed(), 'specs', 'github-issues.mcp.kdl');
    const { child, output, exited } = startInstalled(
      ['serve', spec, '--http', '127.0.0.1:0'],
      userEnv({ GITHUB_TOKEN: 'ghp_package_test' }),
    );
    try {
      const url = await waitListening(child, { output });
      const res = await postToolsList(url);
      const text = await res.text();
      expect(res.status, `${text}\n${output()}`).toBe(200);
      const body = JSON.parse(text) as { result: { tools: { name: string }[] } };
      expect(body.result.tools.map((t) => t.name)).toContain('list_issues');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, output()).toBe(0);
  });

  // The bundle gives a dynamically imported CommonJS package its default export only;
  // the OTLP exporters are loaded that way, and read as named exports they were undefined.
  // The gRPC ones stay outside the bundle, loaded from the installed node_modules.
  for (const protocol of ['http/protobuf', 'http/json', 'grpc']) {
    it(`serves with --otlp and exports the span of a request to the collector (${protocol})`, async () => {
      const receiver =
        protocol === 'grpc' ? await startOtlpGrpcReceiver() : await startOtlpReceiver();
      const spec = join(installed(), 'specs', 'github-issues.mcp.kdl');
      const { child, output, exited } = startInstalled(
        ['serve', spec, '--http', '127.0.0.1:0', '--otlp', receiver.url],
        userEnv({
          GITHUB_TOKEN: 'ghp_package_test',
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_BSP_SCHEDULE_DELAY: '0',
        }),
      );
      try {
        const url = await waitListening(child, { output });
        const res = await postToolsList(url);
        expect(res.status, output()).toBe(200);
        const spans = await receiver.waitForSpans(1, 10_000);
        expect(spans.map((s) => s.name)).toContain('tools/list');
      } finally {
        child.kill('SIGTERM');
        await receiver.close();
      }
      expect(await exited, output()).toBe(0);
    });
  }

  it('runs the demo (npx mcp-beaver demo): its REST API answers from the installed package', async () => {
    const { child, output, exited } = startInstalled(
      ['demo', '--http', '127.0.0.1:0'],
      userEnv({ DEMO_AGENT_KEY: 'package-test-agent' }),
    );
    try {
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const m = /REST:\s+(http:\/\/127\.0\.0\.1:\d+)\/api/.exec(output());
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`demo exited with ${code}:\n${output()}`)));
      });
      const asAgent = { authorization: 'Bearer package-test-agent' };
      const tickets = await fetch(`${base}/api/list_tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asAgent },
        body: '{"status":"open"}',
      });
      expect(tickets.status, output()).toBe(200);
      const orders = await fetch(`${base}/api/list_customers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asAgent },
        body: '{}',
      });
      expect(orders.status, `${await orders.clone().text()}\n${output()}`).toBe(200);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited, output()).toBe(0);
  }, 90_000);
});
