/**
 * Entry point of the single executable that `npm run build:binary` makes
 * (scripts/build-binary.mjs bundles from here). Node's single executable applications
 * run one CommonJS script, so this runs main() without the top-level await of
 * src/cli/main.ts, which the build takes out of the bundle.
 */
import { mainHelp } from '../src/cli/commands/main-flags.js';
import { main } from '../src/cli/main.js';

/** The package version, set by the build (main() reads it from package.json, which the binary lacks). */
declare const MCP_BEAVER_VERSION: string;

async function run(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${MCP_BEAVER_VERSION}\n`);
    return 0;
  }
  // scripts/lib/sea-bundle.mjs stubs these two (scripts/sea-stubs/).
  return main(argv, { help: mainHelp({ binary: true }), stubbed: ['demo', 'import'] });
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
