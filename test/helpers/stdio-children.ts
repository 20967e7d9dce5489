/**
 * For the end-to-end tests of stdio upstreams: the gateway's environment (only what a
 * child may inherit, plus what a test adds), a REST call, and the children this test
 * process runs, read from /proc (the gateway runs in-process, so its children are ours).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { postJson } from './gateway.js';

export { EVERYTHING, FILESYSTEM, MEMORY, NODE } from '../mcp-upstream/upstream-helpers.js';

/** A KDL string literal (KDL's escapes for `"` and `\` are JSON's). */
export const kdl = (s: string): string => JSON.stringify(s);

/** The gateway's environment: PATH, HOME and LANG a child inherits, and `extra`. */
export function gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    ...extra,
  };
}

/** POST /api/<tool>, with a bearer key when given. */
export function rest(
  url: string,
  tool: string,
  args: unknown = {},
  key?: string,
): ReturnType<typeof postJson> {
  return postJson(
    `${url}/api/${tool}`,
    args,
    key === undefined ? {} : { authorization: `Bearer ${key}` },
  );
}

/** The pids of this process's children whose command line holds `marker`. */
export function childrenRunning(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The ppid is the second field after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(marker)) out.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return out;
}

/** Every line of a log at most this long, besides its JSON framing. */
export function longestLogLine(logs: string): number {
  return Math.max(0, ...logs.split('\n').map((l) => Buffer.byteLength(l, 'utf8')));
}

/** The first truthy value of an async probe, polled until `ms` have passed. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
