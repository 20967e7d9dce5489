// Preloaded (`node --require`) into a server by bench/startup-cpu.mjs: on SIGUSR2 the
// process writes the CPU time it has used so far (user + system, µs, from
// process.cpuUsage, not /proc's 10 ms ticks), its RSS and how many CommonJS modules it loaded, and
// exits. The harness sends the signal right after the first tools/list answer, so the
// figure is the CPU to first answer, whatever else the machine is doing.
//
// CommonJS and --require, not --import: a single executable (npm run build:binary) runs
// the preloads of --require from NODE_OPTIONS but not those of --import, so only this
// way does the same hook measure `node dist/cli/main.js` and the binary alike.
'use strict';

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
