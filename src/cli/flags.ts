/**
 * The one flag parser of every command. A command declares its flags in a table
 * (`defineCommand`); `parseCommand` turns argv into typed values and positionals, or
 * prints why not in one line and returns the exit code (2), or prints the help (0).
 *
 * Rules, the same for every command:
 *   --name value | --name=value   a string flag (a next word starting with "-" is not
 *                                 taken as its value: `--http --no-watch` is a missing value)
 *   --name                        a boolean flag (`--name=x` is an error)
 *   -x value                      a flag's one-letter alias, where its table gives one
 *   -h, --help                    the command's help, wherever it appears
 *   --                            everything after it is a positional
 * A string flag given twice keeps the last value unless it is `multiple`.
 */

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  /** Repeatable: the values are collected in order. */
  readonly multiple?: boolean;
  /** A one-letter alias (`o` for `-o`), for the flags people type most. */
  readonly short?: string;
}

export type FlagTable = Readonly<Record<string, FlagSpec>>;

export interface CommandSpec<F extends FlagTable> {
  /** As written after `mcp-beaver`, e.g. "serve" or "import openapi". */
  readonly name: string;
  readonly help: string;
  readonly flags: F;
}

/** The value of each flag given; absent flags are absent (`'x' in values` is meaningful). */
export type FlagValues<F extends FlagTable> = {
  -readonly [K in keyof F]?: F[K]['type'] extends 'boolean'
    ? boolean
    : F[K]['multiple'] extends true
      ? string[]
      : string;
};

export interface ParsedCommand<F extends FlagTable> {
  values: FlagValues<F>;
  positionals: string[];
}

export function defineCommand<const F extends FlagTable>(spec: CommandSpec<F>): CommandSpec<F> {
  return spec;
}

/** A command line the table refuses: the message names the flag. */
export class FlagError extends Error {}

/** Pure: values and positionals, 'help', or throws FlagError. */
export function readFlags<F extends FlagTable>(
  flags: F,
  argv: readonly string[],
): ParsedCommand<F> | 'help' {
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  let error: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '--help' || arg === '-h') return 'help';
    if (error !== undefined) continue; // keep looking for --help
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--')
      ? arg.slice(2, eq < 0 ? undefined : eq)
      : (Object.keys(flags).find((k) => arg.length === 2 && flags[k]!.short === arg[1]) ?? '');
    const spec = name !== '' && Object.hasOwn(flags, name) ? flags[name] : undefined;
    if (spec === undefined) {
      error = `unknown option ${eq < 0 ? arg : arg.slice(0, eq)}`;
      continue;
    }
    if (spec.type === 'boolean') {
      if (eq >= 0) error = `--${name} takes no value`;
      else values[name] = true;
      continue;
    }
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-')) {
        error = `--${name} needs a value`;
        continue;
      }
      value = next;
      i += 1;
    }
    if (spec.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  if (error !== undefined) throw new FlagError(error);
  return { values: values as FlagValues<F>, positionals };
}

/**
 * The parsed command line, or the exit code: 0 after printing the help, 2 after one
 * line on stderr naming the flag that is unknown or lacks its value.
 */
export function parseCommand<F extends FlagTable>(
  command: CommandSpec<F>,
  argv: readonly string[],
): ParsedCommand<F> | number {
  let parsed;
  try {
    parsed = readFlags(command.flags, argv);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(
      `mcp-beaver ${command.name}: ${err.message} (see mcp-beaver ${command.name} --help)\n`,
    );
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(command.help);
    return 0;
  }
  return parsed;
}
