/** `mcp-beaver <command>`: dispatch to one command module each. */
import { MAIN_FLAGS, mainHelp } from './commands/main-flags.js';
import { flagNamed, parseCommand, type CommandSpec, type FlagTable } from './flags.js';

export interface MainOptions {
  /** The main help of this build (the single executable's names only what it has). */
  readonly help?: string;
  /**
   * Commands this build has only as a stub saying where they are (the single
   * executable's `demo` and `import`): run as they are, not answered from their flag
   * table first, so their --help says where the command is rather than teach it.
   */
  readonly stubbed?: readonly string[];
}

interface Command {
  /**
   * The command's flag table, from its commands/*-command.ts (small modules): read
   * before the command's own modules load, so that `--help` and a refused flag answer
   * at once instead of after loading, say, fastify and pg for `serve` or the MCP client
   * for `call` (0.4 s of CPU before this).
   */
  readonly spec: () => Promise<CommandSpec<FlagTable>>;
  /** The command itself; it reads the same command line again, which is the same answer. */
  readonly run: (argv: string[]) => Promise<number>;
}

// Each command loads only its own modules: `serve` must not pay for the MCP client or
// the OpenAPI parsers, and `--version` or `check` must not pay for fastify, pg and the
// rest of the server (start-up is what a scaling pod waits for).
const COMMANDS: Record<string, Command> = {
  check: {
    spec: async () => (await import('./commands/check-command.js')).CHECK_COMMAND,
    run: async (argv) => (await import('./run-check.js')).runCheck(argv),
  },
  tools: {
    spec: async () => (await import('./commands/tools-command.js')).TOOLS_COMMAND,
    run: async (argv) => (await import('./run-tools.js')).runTools(argv),
  },
  call: {
    spec: async () => (await import('./commands/call-command.js')).CALL_COMMAND,
    run: async (argv) => (await import('./run-call.js')).runCall(argv),
  },
  read: {
    spec: async () => (await import('./commands/read-command.js')).READ_COMMAND,
    run: async (argv) => (await import('./run-read.js')).runRead(argv),
  },
  prompt: {
    spec: async () => (await import('./commands/prompt-command.js')).PROMPT_COMMAND,
    run: async (argv) => (await import('./run-prompt.js')).runPrompt(argv),
  },
  discover: {
    spec: async () => (await import('./commands/discover-command.js')).DISCOVER_COMMAND,
    run: async (argv) => (await import('./run-discover.js')).runDiscover(argv),
  },
  approvals: {
    spec: async () => (await import('./commands/approvals-command.js')).APPROVALS_COMMAND,
    run: async (argv) => (await import('./run-approvals.js')).runApprovals(argv),
  },
  connections: {
    spec: async () => (await import('./commands/connections-command.js')).CONNECTIONS_COMMAND,
    run: async (argv) => (await import('./run-connections.js')).runConnections(argv),
  },
  openapi: {
    spec: async () => (await import('./commands/openapi-command.js')).OPENAPI_COMMAND,
    run: async (argv) => (await import('./run-openapi.js')).runOpenApi(argv),
  },
  import: {
    spec: async () => (await import('./commands/import-command.js')).IMPORT_COMMAND,
    run: async (argv) => (await import('./run-import.js')).runImport(argv),
  },
  serve: {
    spec: async () => (await import('./commands/serve-command.js')).SERVE_COMMAND,
    run: async (argv) => (await import('./run-serve.js')).runServe(argv),
  },
  demo: {
    spec: async () => (await import('./commands/demo-command.js')).DEMO_COMMAND,
    run: async (argv) => (await import('./run-demo.js')).runDemo(argv),
  },
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
  if (opts.stubbed?.includes(name)) return command.run(rest);
  // Help, or a flag the command does not take: answered from the table alone.
  const early = parseCommand(await command.spec(), rest);
  if (typeof early === 'number') return early;
  return command.run(rest);
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
