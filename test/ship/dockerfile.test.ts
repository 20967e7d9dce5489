/**
 * The Dockerfile without a Docker engine: every COPY source exists in the repository
 * (and passes .dockerignore) or is produced by the stage it is copied from, and the
 * image's ENTRYPOINT + CMD, run directly against the built dist/, serves and drains.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitListening } from '../../bench/lib/listening.mjs';
import { skipBecause } from '../helpers/skip-reason.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const SPEC_IN_IMAGE = '/etc/mcp-beaver/spec.mcp.kdl';

interface Stage {
  name: string;
  /** The stage it is built FROM, when that is a stage of this file. */
  parent: Stage | undefined;
  workdir: string;
  /** Absolute paths that exist in the stage: copied in, or made by a RUN we know. */
  provides: Set<string>;
  copies: { sources: string[]; dest: string; from: string | undefined; line: number }[];
  instructions: Instruction[];
}

/** Output folder of the TypeScript build, from tsconfig.build.json. */
function buildOutDir(): string {
  const cfg = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
    compilerOptions?: { outDir?: string };
  };
  return posix.normalize(cfg.compilerOptions?.outDir ?? 'dist').replace(/^\.\//, '');
}

/** What the RUN commands of the Dockerfile create, relative to WORKDIR (or absolute). */
function producedBy(command: string): string[] {
  const made: string[] = [];
  if (/\bnpm\s+ci\b/.test(command)) made.push('node_modules');
  if (/\bnpm\s+run\s+build\b/.test(command)) made.push(buildOutDir());
  for (const m of command.matchAll(/\bmkdir\s+-p\s+((?:[^\s&;|]+\s*)+)/g))
    made.push(...m[1]!.trim().split(/\s+/));
  return made;
}

function parseStages(): Stage[] {
  const dockerfile = DockerfileParser.parse(DOCKERFILE);
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const from = instruction as unknown as { getBuildStage(): string | null; getImage(): string };
      const name = from.getBuildStage();
      // FROM <an earlier stage> starts with that stage's files and WORKDIR.
      const base = stages.find((s) => s.name === from.getImage());
      stages.push({
        name: name ?? String(stages.length),
        parent: base,
        workdir: base?.workdir ?? '/',
        provides: new Set(base?.provides),
        copies: [],
        instructions: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) continue;
    stage.instructions.push(instruction);
    const args = instruction.getArguments().map((a) => a.getValue());
    if (keyword === 'WORKDIR') {
      stage.workdir = posix.resolve(stage.workdir, args[0] ?? '.');
      stage.provides.add(stage.workdir);
    } else if (keyword === 'RUN') {
      for (const p of producedBy(instruction.getArgumentsContent() ?? ''))
        stage.provides.add(posix.resolve(stage.workdir, p));
    } else if (keyword === 'COPY') {
      // Flags (--from=, --chown=) are not among the arguments.
      const flags = (instruction as unknown as Copy).getFlags();
      const from = flags.find((f) => f.getName() === 'from')?.getValue() ?? undefined;
      const rest = args;
      const dest = rest.at(-1) ?? '';
      const sources = rest.slice(0, -1);
      const destAbs = posix.resolve(stage.workdir, dest);
      for (const src of sources)
        stage.provides.add(
          dest.endsWith('/') || sources.length > 1
            ? posix.join(destAbs, posix.basename(src))
            : destAbs,
        );
      stage.copies.push({ sources, dest, from, line: instruction.getRange().start.line + 1 });
    }
  }
  return stages;
}

/** .dockerignore semantics: last matching pattern wins; a match on a parent folder counts. */
function dockerignore(): (path: string) => boolean {
  const file = join(ROOT, '.dockerignore');
  const rules = (existsSync(file) ? readFileSync(file, 'utf8') : '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      const pattern = posix.normalize((negated ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
      const source = pattern
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) =>
          part === '**/'
            ? '(?:.*/)?'
            : part === '**'
              ? '.*'
              : part === '*'
                ? '[^/]*'
                : part === '?'
                  ? '[^/]'
                  : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return { negated, re: new RegExp(`^${source}$`) };
    });
  return (path: string) => {
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) if (prefixes.some((p) => rule.re.test(p))) excluded = !rule.negated;
    return excluded;
  };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(rel));
    else out.push(rel);
  }
  return out;
}

function jsonArgs(instruction: Instruction | undefined): string[] {
  expect(instruction, 'instruction present').toBeDefined();
  const parsed = JSON.parse(instruction!.getArgumentsContent() ?? '') as unknown;
  expect(Array.isArray(parsed)).toBe(true);
  return parsed as string[];
}

const stages = parseStages();
const final = stages.at(-1)!;
const last = (keyword: string) =>
  final.instructions.filter((i) => i.getKeyword() === keyword).at(-1);
/** The final stage's instructions, with those of the stages it is built FROM first. */
const finalLineage = (): Instruction[] => {
  const chain: Stage[] = [];
  for (let s: Stage | undefined = final; s; s = s.parent) chain.unshift(s);
  return chain.flatMap((s) => s.instructions);
};
/** Node has a compile cache from 22.1 (module.enableCompileCache from 22.8); not on 20. */
const hasCompileCache =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const WARM_UP = 'scripts/warm-compile-cache.mjs';

describe('Dockerfile', () => {
  it('has a build stage and a separate final stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(final.copies.some((c) => c.from !== undefined)).toBe(true);
  });

  it('copies from the build context only files that exist and that .dockerignore lets through', () => {
    const ignored = dockerignore();
    const checked: string[] = [];
    for (const stage of stages)
      for (const copy of stage.copies.filter((c) => c.from === undefined))
        for (const src of copy.sources) {
          const rel = posix.normalize(src).replace(/^\.\/|\/$/g, '');
          expect(existsSync(join(ROOT, rel)), `COPY ${src} (line ${copy.line}) exists`).toBe(true);
          const files = statSync(join(ROOT, rel)).isDirectory() ? filesUnder(rel) : [rel];
          expect(files.length, `COPY ${src} has files`).toBeGreaterThan(0);
          for (const f of files)
            expect(
              ignored(f),
              `${f} (COPY ${src}, line ${copy.line}) is in the build context`,
            ).toBe(false);
          checked.push(rel);
        }
    expect(checked).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src']));
    // The context stays small and free of local state and secrets.
    for (const p of [
      'node_modules/x',
      '.git/HEAD',
      'dist/cli/main.js',
      '.tools/bin/helm',
      '.env',
      'test/ship/x.ts',
    ])
      expect(ignored(p), `${p} is kept out of the build context`).toBe(true);
  });

  it('copies between stages only what the source stage has', () => {
    const byName = new Map(stages.map((s) => [s.name, s]));
    for (const stage of stages)
      for (const copy of stage.copies.filter((c) => c.from !== undefined)) {
        const source = byName.get(copy.from!);
        expect(source, `stage ${copy.from} (line ${copy.line})`).toBeDefined();
        for (const src of copy.sources) {
          const abs = posix.resolve(source!.workdir, src);
          const provided = [...source!.provides].some((p) => abs === p || abs.startsWith(`${p}/`));
          expect(
            provided,
            `COPY --from=${copy.from} ${src} (line ${copy.line}): ${abs} is made in ${copy.from}`,
          ).toBe(true);
        }
      }
  });

  it('gives the build stage everything `npm run build` compiles', () => {
    const build = stages.find((s) =>
      [...s.instructions].some((i) => /\bnpm\s+run\s+build\b/.test(i.getArgumentsContent() ?? '')),
    );
    expect(build, 'a stage runs npm run build').toBeDefined();
    const copied = build!.copies.flatMap((c) =>
      c.sources.map((s) => posix.normalize(s).replace(/\/$/, '')),
    );
    const cfg = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      extends?: string;
      include?: string[];
    };
    const needed = [
      'tsconfig.build.json',
      ...(cfg.extends ? [posix.normalize(cfg.extends)] : []),
      ...(cfg.include ?? []),
    ];
    for (const n of needed) expect(copied, `the build stage copies ${n}`).toContain(n);
  });

  it('runs as a non-root user, exposes 8080 and serves the mounted spec', () => {
    expect(last('USER')?.getArgumentsContent()).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(
      last('EXPOSE')
        ?.getArguments()
        .map((a) => a.getValue()),
    ).toContain('8080');
    expect(jsonArgs(last('CMD'))).toEqual(['serve', SPEC_IN_IMAGE, '--http', ':8080']);
  });

  it('fills the compile cache at build time as the user the image runs as, and points node at it', () => {
    const env = finalLineage()
      .filter((i) => i.getKeyword() === 'ENV')
      .map((i) => /\bNODE_COMPILE_CACHE=(\S+)/.exec(i.getArgumentsContent() ?? '')?.[1])
      .filter((v) => v !== undefined)
      .at(-1);
    expect(env, 'ENV NODE_COMPILE_CACHE in the final image').toMatch(/^\//);
    const warm = stages.find((s) =>
      s.instructions.some((i) => (i.getArgumentsContent() ?? '').includes(posix.basename(WARM_UP))),
    );
    expect(warm, `a stage runs ${WARM_UP}`).toBeDefined();
    // The uid names the cache's folder: the warm-up must run as the image's USER.
    const run = warm!.instructions.findIndex(
      (i) =>
        i.getKeyword() === 'RUN' && (i.getArgumentsContent() ?? '').includes('warm-compile-cache'),
    );
    const userThen = warm!.instructions
      .slice(0, run)
      .filter((i) => i.getKeyword() === 'USER')
      .at(-1);
    expect(userThen?.getArgumentsContent()).toBe(last('USER')?.getArgumentsContent());
    // ... on the image's own entry point, from the final image's contents.
    const entry = jsonArgs(last('ENTRYPOINT'));
    expect(warm!.instructions[run]!.getArgumentsContent()).toContain(entry[1]);
    expect(warm!.parent).toBe(final.parent);
    const copy = final.copies.find((c) => c.from === warm!.name);
    expect(copy?.sources).toEqual([env]);
    expect(posix.resolve(final.workdir, copy!.dest)).toBe(env);
  });

  describe('entrypoint, run directly', () => {
    const entry = jsonArgs(last('ENTRYPOINT'));
    const cmd = jsonArgs(last('CMD'));
    // /app/dist/cli/main.js in the image is dist/cli/main.js here.
    const script = entry[1]!;
    const local = posix.relative(final.workdir, script);
    let child: ChildProcess | undefined;

    beforeAll(() => {
      expect(entry[0]).toBe('node');
      expect(posix.isAbsolute(script) && script.startsWith(`${final.workdir}/`)).toBe(true);
      const built = join(ROOT, local);
      const newest = (dir: string): number =>
        Math.max(...filesUnder(dir).map((f) => statSync(join(ROOT, f)).mtimeMs));
      if (!existsSync(built) || newest('src') > statSync(built).mtimeMs) {
        const r = spawnSync('npm', ['run', 'build'], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 180_000,
        });
        expect(r.status, `npm run build\n${r.stdout}\n${r.stderr}`).toBe(0);
      }
      expect(existsSync(built)).toBe(true);
    }, 200_000);

    afterAll(() => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });

    it.skipIf(
      skipBecause(
        !hasCompileCache,
        `Node ${process.version} has no compile cache (Node 22.1+): the compile-cache test is skipped`,
      ),
    )(
      "loads every module of a serve start from the compile cache the image's warm-up filled",
      async () => {
        const cache = mkdtempSync(join(tmpdir(), 'mcpb-compile-cache-'));
        try {
          const env = { ...process.env, NODE_ENV: 'production', NODE_COMPILE_CACHE: cache };
          const warm = spawnSync(process.execPath, [WARM_UP, local], {
            cwd: ROOT,
            env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
            encoding: 'utf8',
            timeout: 60_000,
          });
          expect(warm.status, `${warm.stdout}\n${warm.stderr}`).toBe(0);
          const proc = spawn(
            process.execPath,
            [local, 'serve', 'specs/github-issues.mcp.kdl', '--http', '127.0.0.1:0', '--no-watch'],
            {
              cwd: ROOT,
              env: {
                ...env,
                GITHUB_TOKEN: 'test-token-not-used',
                NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
              },
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let stdout = '';
          let stderr = '';
          proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
          proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
          await waitListening(proc, { output: () => `${stdout}\n${stderr}` });
          proc.kill('SIGTERM');
          expect(await exited, stderr).toBe(0);
          // Node's own trace of each module it compiled: its cached bytecode was used.
          const verdicts = [...stderr.matchAll(/V8 code cache for ESM (\S+) was (\w+)/g)].map(
            (m) => `${posix.basename(m[1]!)} ${m[2]}`,
          );
          expect(verdicts).toContain('main.js accepted');
          expect(verdicts.filter((v) => !v.endsWith(' accepted'))).toEqual([]);
        } finally {
          rmSync(cache, { recursive: true, force: true });
        }
      },
      90_000,
    );

    it.skipIf(
      skipBecause(
        hasCompileCache,
        `Node ${process.version} has a compile cache: the test of a Node without one (Node 20) is skipped`,
      ),
    )(
      'fails the warm-up on a Node without a compile cache rather than ship an empty one',
      () => {
        const cache = mkdtempSync(join(tmpdir(), 'mcpb-compile-cache-'));
        try {
          mkdirSync(cache, { recursive: true });
          const warm = spawnSync(process.execPath, [WARM_UP, local], {
            cwd: ROOT,
            env: { ...process.env, NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' },
            encoding: 'utf8',
            timeout: 60_000,
          });
          expect(warm.status).toBe(1);
          expect(warm.stderr).toContain('is empty');
        } finally {
          rmSync(cache, { recursive: true, force: true });
        }
      },
      90_000,
    );

    it('starts, answers /healthz and /readyz, and exits 0 on SIGTERM', async () => {
      // The image's CMD with the spec path and the listen address made local.
      const args = cmd.map((a, i) =>
        a === SPEC_IN_IMAGE
          ? 'specs/github-issues.mcp.kdl'
          : cmd[i - 1] === '--http'
            ? '127.0.0.1:0'
            : a,
      );
      const proc = spawn(process.execPath, [local, ...args, '--grace', '2s'], {
        cwd: ROOT,
        env: { ...process.env, GITHUB_TOKEN: 'test-token-not-used', NODE_ENV: 'production' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      let stdout = '';
      let stderr = '';
      proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) =>
        proc.on('exit', (code) => resolve(code)),
      );

      proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      const url = await waitListening(proc, { output: () => `${stdout}\n${stderr}` });

      const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
      expect(ready.status).toBe(200);

      proc.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000)),
      ]);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('"msg":"stopped"');
    });
  });
});
