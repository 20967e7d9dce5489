/**
 * Entry point of the startup-snapshot experiment (issue 40; bench/snapshot/build.mjs).
 * Node evaluates this bundle once, while it builds the snapshot, and saves the heap; a
 * process started with `node --snapshot-blob <blob> <args>` begins from that heap and
 * calls the function registered below, so the modules evaluated here are neither
 * compiled nor evaluated again.
 */
// First: it hides the web globals that would load node:http while the snapshot is built.
import './build-guards.js';
import { startupSnapshot } from 'node:v8';
import { mainHelp } from '../../src/cli/commands/main-flags.js';
import { main } from '../../src/cli/main.js';
// `serve` imports its modules on demand (src/cli/main.ts); importing them here evaluates
// them at build time, into the snapshot.
import '../../src/cli/run-serve.js';

/** The package version, set by the build (main() reads it from package.json, which the snapshot lacks). */
declare const MCP_BEAVER_VERSION: string;

async function run(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${MCP_BEAVER_VERSION}\n`);
    return 0;
  }
  return main(argv, { help: mainHelp({ binary: true }) });
}

startupSnapshot.setDeserializeMainFunction(() => {
  // A snapshot-started process has no script name: process.argv is [node, ...args].
  run(process.argv.slice(1)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
});
