// Runs in every test file's process before the file: the services global-setup.ts chose,
// and the CLI it built (read by helpers/run-cli.ts); and after each test, the CLI runs a
// timed-out test left behind are ended, so they cannot reach the next test's upstream.
import { afterEach, inject } from 'vitest';

Object.assign(process.env, inject('testServices'));
process.env.MCP_BEAVER_TEST_CLI = inject('cliMain');

// Imported only now: run-cli.ts reads MCP_BEAVER_TEST_CLI when it is first loaded.
const { killLeftoverCliRuns } = await import('./helpers/run-cli.js');
afterEach(killLeftoverCliRuns);
