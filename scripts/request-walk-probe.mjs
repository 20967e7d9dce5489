/**
 * Preloaded into the gateway by scripts/request-walk.mjs. Asked over IPC:
 * - 'reset' zeroes V8's precise coverage (call counts) and starts the CPU profiler at a
 *   fine sampling interval;
 * - 'take' answers which src files' functions ran since then (coverage: exact) and the
 *   profile (for the order in which the request moves between files).
 */
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

process.on('message', async (what) => {
  if (what === 'reset') {
    await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.setSamplingInterval', { interval: 25 });
    await session.post('Profiler.start');
    return process.send('reset');
  }
  const { profile } = await session.post('Profiler.stop');
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const ran = result
    .filter((s) => s.functions.some((f) => f.functionName !== '' && f.ranges[0].count > 0))
    .map((s) => s.url);
  process.send({ ran, profile });
});
