/** `mcp-beaver <command>`: dispatch to one command module each. */
import { runCheck } from './check.js';
import { runTools } from './tools.js';
import { runOpenApi } from './openapi.js';
import { runServe } from './serve.js';
import { runDemo } from './demo.js';
import { MAIN_HELP } from './help.js';

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  check: runCheck,
  tools: runTools,
  // The remote commands load the MCP client; the others should not pay for it.
  call: async (argv) => (await import('./call.js')).runCall(argv),
  discover: async (argv) => (await import('./discover.js')).runDiscover(argv),
  openapi: runOpenApi,
  // The importer loads its document parsers; no other command should pay for them.
  import: async (argv) => (await import('./import.js')).runImport(argv),
  serve: runServe,
  demo: runDemo,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(MAIN_HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${await version()}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`mcp-beaver: unknown command ${JSON.stringify(name)}\n\n${MAIN_HELP}`);
    return 2;
  }
  return command(rest);
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(
    await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return pkg.version;
}

/**
 * A reader that stops reading (`mcp-beaver tools spec | head`) closes the pipe: what it
 * wanted was delivered, so the command ends quietly with 0 instead of a stack trace.
 * Other write errors stay fatal.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(0);
  });
}
endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);

process.exitCode = await main(process.argv.slice(2));
