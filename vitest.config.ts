import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests start real servers and a real Postgres connection; the
    // machines are 2-core, so keep parallelism modest and timeouts generous.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
