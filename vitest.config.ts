import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests start real servers, child processes and a real Postgres
    // connection. These bounds only catch a test that hangs: they are sized for a 2-core
    // machine with both cores busy beside the suite (issue 39), where a start that takes
    // a second idle takes ten, never as a measure of speed (that is `npm run bench`).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll's own bound (1 s by default) on the catalog page's browser tests: a
    // busy machine can take longer than that to paint an answer.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Files share their worker process and its loaded modules (the SDK, fastify, the
    // compiler) instead of each importing them afresh: measured on a 2-core machine, the
    // end-to-end files on Node 24 ran in 70 s instead of 155 s, the whole suite in 523 s
    // instead of 560 s. The files keep no state between them: a test starts its own
    // gateways and servers and closes them, and test/setup-env.ts still runs before each.
    isolate: false,
    // One throwaway Postgres and Redis for the whole run (or the servers DATABASE_URL,
    // PG* and REDIS_URL name): test/helpers/test-services.ts.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-env.ts'],
    // Two files at a time: on these 2-core machines vitest's default is one worker, and
    // most of a file's time is spent waiting on sockets and child processes, not CPU.
    maxWorkers: 2,
  },
});
