// Child processes of the benchmarks: each server and each load window runs in its own
// process, optionally pinned to one CPU with taskset *before* exec (Go sizes its thread
// pool at start, so pinning afterwards would leave it sized for the whole machine).
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { freePort } from './free-port.mjs';
import { sleep } from './sleep.mjs';

export function hasCommand(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** Whether launches are pinned (Linux with taskset, unless the caller said no). */
export const canPin = process.platform === 'linux' && hasCommand('taskset');

const children = new Set();

/**
 * Starts `args` (argv[0] is the program) with stdout/stderr piped; `cpu` pins it when
 * `pin` is on. The child keeps the last 4 KB of its stderr for error messages.
 */
export function launch(args, { env = {}, cpu, pin = canPin, cwd } = {}) {
  const [cmd, argv] =
    pin && cpu !== undefined ? ['taskset', ['-c', cpu, ...args]] : [args[0], args.slice(1)];
  const child = spawn(cmd, argv, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a stop reaches what it started too: `npx mcp-beaver`
    // runs the server as a grandchild, which outlived a signal to npx alone.
    detached: true,
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  child.stderrTail = () => err;
  return child;
}

/**
 * A server that takes its address as `--http` (mcp-beaver serve, demo): `launch`es `args`
 * with `--http 127.0.0.1:<a free port>` after them. Its URL, and when it was started
 * (performance.now()), for a time to ready.
 */
export async function launchOnPort(args, options) {
  const port = await freePort();
  const startedAt = performance.now();
  const child = launch([...args, '--http', `127.0.0.1:${port}`], options);
  return { child, url: `http://127.0.0.1:${port}`, startedAt };
}

/**
 * Runs `args` (as `launch` does) to its end and parses the last line it printed on stdout
 * as JSON; throws, with the end of its stderr, when it exits non-zero.
 */
export async function runJson(args, options, what) {
  const child = launch(args, options);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`${what} failed (${code}): ${child.stderrTail()}`);
  return JSON.parse(out.trim().split('\n').pop());
}

/** Signals the child's whole process group (see `detached` above). */
function signal(child, sig) {
  try {
    process.kill(-child.pid, sig);
  } catch {
    child.kill(sig);
  }
}

/** SIGTERM, then SIGKILL after 5 s. */
export function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      signal(child, 'SIGKILL');
      resolve();
    }, 5000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    signal(child, 'SIGTERM');
  });
}

export function stopAll() {
  for (const c of children) signal(c, 'SIGKILL');
}
process.on('exit', stopAll);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/** The first stdout line of `child` that parses as JSON with a `url`. */
export function urlOf(child, what, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const t = setTimeout(
      () => reject(new Error(`${what}: no url within ${timeoutMs} ms\n${child.stderrTail()}`)),
      timeoutMs,
    );
    child.on('exit', (code) =>
      reject(new Error(`${what} exited (${code})\n${child.stderrTail()}`)),
    );
    child.stdout.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        try {
          const url = JSON.parse(line).url;
          if (url) {
            clearTimeout(t);
            resolve(url);
            return;
          }
        } catch {
          // not a JSON line yet
        }
      }
    });
  });
}

/**
 * Sends `request` ({url, method, headers, body}) until it answers 200 with a body that
 * `expect` matches; the time it took from `since`, or throws after `timeoutMs`.
 */
export async function waitAnswer(request, since, child, { expect, timeoutMs = 30_000 } = {}) {
  const until = performance.now() + timeoutMs;
  const { url, method = request.body === undefined ? 'GET' : 'POST', headers, body } = request;
  while (performance.now() < until) {
    if (child.exitCode !== null)
      throw new Error(`exited before ready (${child.exitCode})\n${child.stderrTail()}`);
    try {
      const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(2000) });
      const text = await res.text();
      if (res.status === 200 && (!expect || expect.test(text))) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(3);
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms\n${child.stderrTail()}`);
}
