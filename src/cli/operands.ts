/**
 * The operands of a command line, counted the same way for every command: too few or too
 * many is the command's usage (exit 2); and a server URL operand made into the remote
 * options, or refused.
 */
import {
  isRemoteTarget,
  remoteOptionsOr,
  type RemoteArgValues,
  type RemoteOptions,
} from '../client/options.js';
import { parseCommand, type CommandSpec, type FlagTable, type ParsedCommand } from './flags.js';
import { commandMessages, type CommandMessages } from './output.js';

/** At least `N` strings, so that the first `N` operands need no check when read. */
export type Operands<N extends number, Known extends string[] = []> = Known['length'] extends N
  ? [...Known, ...string[]]
  : Operands<N, [...Known, string]>;

export interface OperandCount<N extends number> {
  readonly min: N;
  /** Absent: any number beyond `min`. */
  readonly max?: number;
  /** The usage message when the count is wrong. */
  readonly wrong: string;
}

/** The parsed command line and its operands, or the exit code (help, a refused flag or count). */
export function parseOperands<F extends FlagTable, const N extends number>(
  command: CommandSpec<F>,
  argv: readonly string[],
  count: OperandCount<N>,
): (ParsedCommand<F> & { readonly operands: Operands<N> }) | number {
  const parsed = parseCommand(command, argv);
  if (typeof parsed === 'number') return parsed;
  const given = parsed.positionals.length;
  if (given < count.min || given > (count.max ?? Infinity))
    return commandMessages(command).usage(count.wrong);
  return { ...parsed, operands: parsed.positionals as Operands<N> };
}

/** The remote options for a server URL operand, or the exit code after saying what is wrong. */
export function remoteOptionsOf(
  target: string,
  values: RemoteArgValues,
  { usage, badValue }: CommandMessages,
): RemoteOptions | number {
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  return remoteOptionsOr(target, values, badValue);
}

/** The count of `serve` and `openapi`: one spec file. */
export const ONE_SPEC_FILE: OperandCount<1> = {
  min: 1,
  max: 1,
  wrong: 'name exactly one spec file',
};
