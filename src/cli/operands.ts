/**
 * The operands of a command line, counted by the command's table (`operands`) the same
 * way for every command: too few or too many is the command's usage (exit 2). A remote
 * command's first operand is the server URL, made into the remote options or refused.
 */
import {
  isRemoteTarget,
  remoteOptionsOr,
  type RemoteArgValues,
  type RemoteOptions,
} from '../client/options.js';
import type { OperandCount } from './flag-spec.js';
import { parseCommand, type CommandSpec, type FlagTable, type ParsedCommand } from './flags.js';
import { commandMessages } from './output.js';

/** At least `N` strings, so that the first `N` operands need no check when read. */
export type Operands<N extends number, Known extends string[] = []> = number extends N
  ? string[]
  : Known['length'] extends N
    ? [...Known, ...string[]]
    : Operands<N, [...Known, string]>;

export type CountedCommand<F extends FlagTable, N extends number> = ParsedCommand<F> & {
  readonly operands: Operands<N>;
};

const ANY: OperandCount = { min: 0, wrong: '' };

/** The parsed command line and its operands, or the exit code (help, a refused flag or count). */
export function parseOperands<F extends FlagTable, N extends number>(
  command: CommandSpec<F, N>,
  argv: readonly string[],
): CountedCommand<F, N> | number {
  const parsed = parseCommand(command, argv);
  if (typeof parsed === 'number') return parsed;
  const { min, max = Infinity, wrong } = command.operands ?? ANY;
  const given = parsed.positionals.length;
  if (given < min || given > max) return commandMessages(command).usage(wrong);
  return { ...parsed, operands: parsed.positionals as Operands<N> };
}

/**
 * `parseOperands` for a command whose first operand is a server URL: with the remote
 * options, or the exit code after saying what is wrong with the URL or a remote flag.
 */
export function parseRemote<F extends FlagTable, N extends number>(
  command: CommandSpec<F, N>,
  argv: readonly string[],
): (CountedCommand<F, N> & { readonly options: RemoteOptions }) | number {
  const parsed = parseOperands(command, argv);
  if (typeof parsed === 'number') return parsed;
  // The remote commands' tables declare REMOTE_FLAGS (commands/remote-flags.ts).
  const values = parsed.values as RemoteArgValues;
  const options = remoteOptionsOf(parsed.positionals[0] ?? '', values, command);
  return typeof options === 'number' ? options : { ...parsed, options };
}

/** The remote options for a server URL operand, or the exit code after saying what is wrong. */
function remoteOptionsOf<F extends FlagTable>(
  target: string,
  values: RemoteArgValues,
  command: CommandSpec<F>,
): RemoteOptions | number {
  const { usage, badValue } = commandMessages(command);
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  return remoteOptionsOr(target, values, badValue);
}
