import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests start real servers and a real Postgres connection; the
    // machines are 2-core, so keep parallelism modest and timeouts generous.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One throwaway Postgres and Redis for the whole run (or the servers DATABASE_URL,
    // PG* and REDIS_URL name): test/helpers/test-services.ts.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-env.ts'],
    // Two files at a time: on these 2-core machines vitest's default is one worker, and
    // most of a file's time is spent waiting on sockets and child processes, not CPU.
    maxWorkers: 2,
  },
});
