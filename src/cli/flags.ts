/**
 * The one flag system of every command. A command declares its flags once, in a table
 * (`defineCommand`, in src/cli/commands/): each flag says how it is read (type, multiple,
 * short) and how it is taught (value placeholder, default, help line, note). `parseCommand`
 * reads argv by that table, and render-help.ts writes the command's --help from it.
 *
 * Rules, the same for every command:
 *   --name value | --name=value   a string flag (a next word starting with "-" is not
 *                                 taken as its value: `--http --no-watch` is a missing value)
 *   --name                        a boolean flag (`--name=x` is an error)
 *   -x value                      a flag's one-letter alias, where its table gives one
 *   -h, --help                    the command's help, wherever it appears
 *   --                            everything after it is a positional
 * A string flag given twice keeps the last value unless it is `multiple`.
 *
 * Not node:util parseArgs: in strict mode it reads `-oout.kdl` as `-o out.kdl`, throws at
 * a wrong flag before a later --help is seen, and words its errors over several lines.
 */
import { renderHelp } from './render-help.js';

import type {
  CommandSpec,
  FlagRule,
  FlagSpec,
  FlagTable,
  RuleTable,
  UsageForm,
} from './flag-spec.js';

export type * from './flag-spec.js';

type ValueOf<R extends FlagRule> = R['type'] extends 'boolean'
  ? boolean
  : R['multiple'] extends true
    ? string[]
    : string;

/** The flags given; absent flags are absent (`'x' in values` is meaningful). */
export type GivenValues<F extends RuleTable> = { -readonly [K in keyof F]?: ValueOf<F[K]> };

type Defaulted<F extends FlagTable> = {
  [K in keyof F]: F[K] extends { readonly default: string } ? K : never;
}[keyof F];

/** The flags given, and the declared default of each string flag that was not. */
export type FlagValues<F extends FlagTable> = GivenValues<F> & {
  -readonly [K in Defaulted<F>]: ValueOf<F[K]>;
};

export interface ReadFlags<F extends RuleTable> {
  values: GivenValues<F>;
  positionals: string[];
}

export interface ParsedCommand<F extends FlagTable> {
  values: FlagValues<F>;
  /** Only what the command line gave (a default is not given). */
  given: GivenValues<F>;
  positionals: string[];
}

export function defineCommand<const F extends FlagTable, const N extends number = number>(
  spec: CommandSpec<F, N> & { readonly usage: readonly UsageForm<keyof F & string>[] },
): CommandSpec<F, N> {
  return spec;
}

/** The same flags, listed under a heading of their own (`tools`: "Options for a URL"). */
export function underHeading<const F extends FlagTable>(
  group: string,
  flags: F,
): { readonly [K in keyof F]: F[K] & { readonly group: string } } {
  return Object.fromEntries(
    Object.entries(flags).map(([name, spec]): [string, FlagSpec] => [name, { ...spec, group }]),
  ) as { readonly [K in keyof F]: F[K] & { readonly group: string } };
}

/** A command line the table refuses: the message names the flag. */
export class FlagError extends Error {}

/** The table's name of the flag spelled `--name`, or `-x` for an alias; undefined if none. */
export function flagNamed(flags: RuleTable, spelled: string): string | undefined {
  const name = spelled.startsWith('--')
    ? spelled.slice(2)
    : spelled.length === 2 && spelled.startsWith('-')
      ? Object.keys(flags).find((k) => flags[k]!.short === spelled[1])
      : undefined;
  return name !== undefined && Object.hasOwn(flags, name) ? name : undefined;
}

/** Pure: values and positionals, 'help', or throws FlagError. */
export function readFlags<F extends RuleTable>(
  flags: F,
  argv: readonly string[],
): ReadFlags<F> | 'help' {
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
    // An alias takes no `=` (`-o=x` is unknown, as `-ox` is).
    const name = flagNamed(flags, arg.startsWith('--') && eq >= 0 ? arg.slice(0, eq) : arg);
    const rule = name === undefined ? undefined : flags[name];
    if (name === undefined || rule === undefined) {
      error = `unknown option ${eq < 0 ? arg : arg.slice(0, eq)}`;
      continue;
    }
    if (rule.type === 'boolean') {
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
    if (rule.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  if (error !== undefined) throw new FlagError(error);
  return { values: values as GivenValues<F>, positionals };
}

/** The declared defaults, then what was given over them. */
function withDefaults<F extends FlagTable>(flags: F, given: GivenValues<F>): FlagValues<F> {
  const defaults = Object.entries(flags).flatMap(([name, spec]) =>
    spec.default === undefined ? [] : [[name, spec.default] as const],
  );
  return { ...Object.fromEntries(defaults), ...given } as FlagValues<F>;
}

/**
 * The parsed command line, or the exit code: 0 after printing the help, 2 after one
 * line on stderr naming the flag that is unknown or lacks its value.
 */
export function parseCommand<F extends FlagTable>(
  command: CommandSpec<F>,
  argv: readonly string[],
): ParsedCommand<F> | number {
  let read;
  try {
    read = readFlags(command.flags, argv);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(
      `mcp-beaver ${command.name}: ${err.message} (see mcp-beaver ${command.name} --help)\n`,
    );
    return 2;
  }
  if (read === 'help') {
    process.stdout.write(renderHelp(command));
    return 0;
  }
  return {
    values: withDefaults(command.flags, read.values),
    given: read.values,
    positionals: read.positionals,
  };
}
