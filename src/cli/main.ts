/** `mcp-beaver <command>`: dispatch to one command module each. */
import { MAIN_FLAGS, mainHelp } from './commands/main-flags.js';
import { flagNamed } from './flags.js';

export interface MainOptions {
  /** The main help of this build (the single executable's names only what it has). */
  readonly help?: string;
}

type Command = (argv: string[]) => Promise<number>;

// Each command loads only its own modules: `serve` must not pay for the MCP client or
// the OpenAPI parsers, and `--version` or `check` must not pay for fastify, pg and the
// rest of the server (start-up is what a scaling pod waits for).
const COMMANDS: Record<string, Command> = {
  check: async (argv) => (await import('./run-check.js')).runCheck(argv),
  tools: async (argv) => (await import('./run-tools.js')).runTools(argv),
  call: async (argv) => (await import('./run-call.js')).runCall(argv),
  read: async (argv) => (await import('./run-read.js')).runRead(argv),
  prompt: async (argv) => (await import('./run-prompt.js')).runPrompt(argv),
  discover: async (argv) => (await import('./run-discover.js')).runDiscover(argv),
  approvals: async (argv) => (await import('./run-approvals.js')).runApprovals(argv),
  connections: async (argv) => (await import('./run-connections.js')).runConnections(argv),
  openapi: async (argv) => (await import('./run-openapi.js')).runOpenApi(argv),
  import: async (argv) => (await import('./run-import.js')).runImport(argv),
  serve: async (argv) => (await import('./run-serve.js')).runServe(argv),
  demo: async (argv) => (await import('./run-demo.js')).runDemo(argv),
};

export async function main(argv: string[], opts: MainOptions = {}): Promise<number> {
  const help = opts.help ?? mainHelp();
  const [name, ...rest] = argv;
  const flag = name === undefined ? undefined : flagNamed(MAIN_FLAGS, name);
  if (name === undefined || flag === 'help' || name === 'help') {
    process.stdout.write(help);
    return name === undefined ? 2 : 0;
  }
  if (flag === 'version') {
    process.stdout.write(`${await version()}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`mcp-beaver: unknown command ${JSON.stringify(name)}\n\n${help}`);
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
