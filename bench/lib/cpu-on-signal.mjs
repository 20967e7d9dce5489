// Preloaded (`node --import`) into a server by bench/startup-cpu.mjs: on SIGUSR2 the
// process writes the CPU time it has used so far (user + system, µs, from
// process.cpuUsage, not /proc's 10 ms ticks), its RSS and how many CommonJS modules it loaded, and
// exits. The harness sends the signal right after the first tools/list answer, so the
// figure is the CPU to first answer, whatever else the machine is doing.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

process.on('SIGUSR2', () => {
  const { user, system } = process.cpuUsage();
  const cjsModules = Object.keys(require.cache).length;
  process.stderr.write(
    `${JSON.stringify({
      startupCpu: { cpuUs: user + system, rssMb: process.memoryUsage.rss() / 2 ** 20, cjsModules },
    })}\n`,
  );
  process.exit(0);
});
