// Runs in every test file's process before the file: the services global-setup.ts chose,
// and the CLI it built (read by helpers/run-cli.ts).
import { inject } from 'vitest';

Object.assign(process.env, inject('testServices'));
process.env.MCP_BEAVER_TEST_CLI = inject('cliMain');
