/**
 * vitest globalSetup, once per run (also for `npx vitest run <file>`):
 * - the Postgres and Redis this run's tests use (test-services.ts), started once and
 *   stopped at the end. Test files get the choice through `inject('testServices')`.
 * - the CLI the tests spawn, built fresh from the sources (helpers/cli-build.ts), given as
 *   `inject('cliMain')`.
 * test/setup-env.ts copies both into each test file's process.env.
 */
import type { TestProject } from 'vitest/node';
import { buildCli, type CliBuild } from './helpers/cli-build.js';
import { startTestServices, type TestServices } from './helpers/test-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    testServices: Record<string, string>;
    cliMain: string;
  }
}

let services: TestServices | undefined;
let cli: CliBuild | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Built first: a source that does not build fails the run in a second, before any
  // database starts and before a test times out waiting for a child that never listens.
  cli = await buildCli();
  project.provide('cliMain', cli.main);
  // vitest --watch reruns tests after a source changed: their CLI must have the change.
  project.onTestsRerun(() => cli!.rebuild());
  services = await startTestServices(process.env);
  for (const note of services.notes) process.stderr.write(`test services: ${note}\n`);
  project.provide('testServices', services.vars);
}

export async function teardown(): Promise<void> {
  await services?.stop();
  cli?.remove();
}
