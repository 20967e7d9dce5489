import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitListening } from '../../bench/lib/listening.mjs';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
let dir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user's shell: none of the test runner's NODE_OPTIONS or paths. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...extra };
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('./mcp-beaver', args, { cwd: dir, env: userEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// `npm run build:binary`, then the binary alone in an empty directory: no node_modules
// beside it or above it, no sources, one spec.
beforeAll(async () => {
  await exec(process.execPath, [join(root, 'scripts', 'build-binary.mjs')], {
    cwd: root,
    timeout: 170_000,
  });
  dir = await mkdtemp(join(tmpdir(), 'mcp-beaver-binary-'));
  await copyFile(join(root, 'dist-bin', 'mcp-beaver'), join(dir, 'mcp-beaver'));
  await copyFile(join(root, 'specs', 'github-issues.mcp.kdl'), join(dir, 'github-issues.mcp.kdl'));
  await writeFile(
    join(dir, 'embedded.mcp.kdl'),
    'wrap "embedded" version="1.0.0" {\n    describe "One number."\n}\n\ndatabase embedded\n\ncan list numbers {\n    describe "One number."\n    sql "SELECT 1 AS n"\n}\n',
  );
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the single executable (npm run build:binary)', () => {
  it('runs from a directory with no node_modules above it', () => {
    for (let d = dir; ; d = dirname(d)) {
      expect(existsSync(join(d, 'node_modules')), d).toBe(false);
      if (dirname(d) === d) break;
    }
  });

  it('prints the help and the version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('mcp-beaver <command> [options]');
    expect(help.stderr).toBe('');
    // It offers only the commands it runs, and says where the others are.
    expect(help.stdout).not.toMatch(/^ {2}(demo|import openapi|import mcp) /m);
    expect(help.stdout).not.toContain('mcp-beaver import');
    expect(help.stdout).toContain('(demo, import openapi and import mcp are in the npm package,');
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    const version = await run(['--version']);
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('checks a spec and lists its tools', async () => {
    const r = await run(['check', 'github-issues.mcp.kdl']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^github-issues\.mcp\.kdl: \d+ tools\n/);
    expect(r.stdout).toContain('list_issues');
  });

  it('prints the tools as JSON', async () => {
    const r = await run(['tools', 'github-issues.mcp.kdl', '--json']);
    expect(r.code).toBe(0);
    const { tools } = JSON.parse(r.stdout) as { tools: { name: string; inputSchema: object }[] };
    expect(tools.map((t) => t.name)).toContain('list_issues');
    for (const t of tools) expect(t.inputSchema).toMatchObject({ type: 'object' });
  });

  it('serves MCP and /healthz, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      './mcp-beaver',
      ['serve', 'github-issues.mcp.kdl', '--http', '127.0.0.1:0'],
      {
        cwd: dir,
        env: userEnv({ GITHUB_TOKEN: 'ghp_binary_test' }),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      const url = await waitListening(child, { output: () => stdout + stderr });

      const list = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const text = await list.text();
      expect(list.status, `${text}\n${stdout}${stderr}`).toBe(200);
      const body = JSON.parse(text) as { result: { tools: { name: string }[] } };
      expect(body.result.tools.map((t) => t.name)).toContain('list_issues');

      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('says the demo, both imports and embedded databases need the npm package', async () => {
    const demo = await run(['demo']);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toContain('npx mcp-beaver demo');
    const imported = await run(['import', 'openapi', 'openapi.json']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('npx mcp-beaver import openapi <file>');
    const importedMcp = await run(['import', 'mcp', 'http://127.0.0.1:9/mcp']);
    expect(importedMcp.code).toBe(1);
    expect(importedMcp.stderr).toContain('npx mcp-beaver import mcp <url>');
    // Not the help of a command the executable does not have: where it is instead.
    for (const name of ['demo', 'import']) {
      const help = await run([name, '--help']);
      expect(help.code).toBe(1);
      expect(help.stderr).toContain('not available in the single executable');
    }
    const embedded = await run(['serve', 'embedded.mcp.kdl', '--http', '127.0.0.1:0']);
    expect(embedded.code).toBe(1);
    expect(embedded.stderr).toContain('mcp-beaver serve: embedded databases');
    expect(embedded.stderr).toContain('need the npm package');
  });
});
