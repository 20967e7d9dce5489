/**
 * For test files that need the run's Postgres or Redis (test-services.ts): when the
 * run has none, every test of the file is skipped with the reason, which is printed
 * once. The returned flag lets the file's beforeAll hooks do nothing in that case.
 */
import { beforeEach } from 'vitest';
import { findPgBinDir, NO_PG_BINARIES } from './pg-cluster.js';
import { databaseSkipReason } from './postgres.js';

function skipAll(what: string, reason: string | undefined): boolean {
  if (!reason) return true;
  process.stderr.write(`skipping the tests that need ${what}: ${reason}\n`);
  beforeEach((ctx) => ctx.skip(reason));
  return false;
}

/** True when the run has a database; otherwise registers the skip and answers false. */
export function needsDatabase(): boolean {
  return skipAll('Postgres', databaseSkipReason());
}

/** True when this machine has PostgreSQL server binaries to start clusters of its own. */
export function needsPgBinaries(): boolean {
  return skipAll('PostgreSQL binaries', findPgBinDir() ? undefined : NO_PG_BINARIES);
}

/** The run's Redis URL, or undefined (then its tests are skipped with the reason). */
export function redisUrl(): string | undefined {
  return process.env.MCPB_TEST_REDIS_URL;
}

export function redisSkipReason(): string | undefined {
  return process.env.MCPB_TEST_REDIS_URL
    ? undefined
    : (process.env.MCPB_TEST_REDIS_SKIP ?? 'no Redis for this run');
}
