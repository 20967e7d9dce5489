/**
 * The /healthz probe (probe.mjs) as a child process, for the overload test and
 * `npm run soak -- --overload`: it starts probing once it says "ready", and reports
 * every probe when stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { sleep } from '../../bench/lib/sleep.mjs';

export interface ProbeReport {
  probes: { at: number; ms: number; status: number | string }[];
  /** The resident set of the probed process at each probe, in bytes. */
  rss: number[];
  /** Kept-alive connection resets under a probe (each probe asked again once). */
  resets: number;
}

export interface Probe {
  readonly child: ChildProcess;
  /** SIGTERM, then what it measured. */
  stop(): Promise<ProbeReport>;
}

/** Probes `url`/healthz every 50 ms, on a new connection each (`fresh`) or a kept-alive one. */
export async function startProbe(url: string, pid: number, mode: 'fresh' | 'keep'): Promise<Probe> {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, 'probe.mjs'), url, String(pid), '50', mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  while (!out.startsWith('ready\n')) await sleep(10);
  return {
    child,
    async stop() {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
      return JSON.parse(out.slice('ready\n'.length)) as ProbeReport;
    },
  };
}
