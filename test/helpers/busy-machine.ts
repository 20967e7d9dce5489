/**
 * A busy machine for tests that must hold on one: busy-loop processes on all cores but
 * one, each ending by itself after `ms` at the latest (so a failed test leaves none
 * behind). The returned function ends them now.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

export function busyMachine(ms: number): () => Promise<void> {
  const children = Array.from({ length: Math.max(1, availableParallelism() - 1) }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end);`], {
      stdio: 'ignore',
    }),
  );
  return async () => {
    await Promise.all(
      children.map((c) => {
        if (c.exitCode !== null || c.signalCode !== null) return undefined;
        const done = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        return done;
      }),
    );
  };
}
