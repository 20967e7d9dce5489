/**
 * vitest globalSetup: the Postgres and Redis this run's tests use (test-services.ts),
 * started once for the run and stopped at its end. Test files get the choice through
 * `inject('testServices')`, copied into their process.env by test/setup-env.ts.
 */
import type { TestProject } from 'vitest/node';
import { startTestServices, type TestServices } from './helpers/test-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    testServices: Record<string, string>;
  }
}

let services: TestServices | undefined;

export async function setup(project: TestProject): Promise<void> {
  services = await startTestServices(process.env);
  for (const note of services.notes) process.stderr.write(`test services: ${note}\n`);
  project.provide('testServices', services.vars);
}

export async function teardown(): Promise<void> {
  await services?.stop();
}
