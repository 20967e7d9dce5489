/**
 * What a command declares: its flags, each saying how it is read and how the help
 * teaches it, and its usage and prose. Data only, so that the parser (flags.ts) and the
 * help renderer (render-help.ts) both read it and neither imports the other's code.
 */
/** How a flag is read. */
export interface FlagRule {
  readonly type: 'string' | 'boolean';
  /** Repeatable: the values are collected in order. */
  readonly multiple?: boolean;
  /** A one-letter alias (`o` for `-o`), for the flags people type most. */
  readonly short?: string;
}

/** A declared flag: how it is read, and how the help teaches it. */
export interface FlagSpec extends FlagRule {
  /** What the flag does, as a phrase of one line (no final period). */
  readonly help: string;
  /** The value's placeholder in the help: `URL`, `[host]:port`, `auto|modern|legacy`. */
  readonly value?: string;
  /** The value a string flag takes when it is not given; the help shows it. */
  readonly default?: string;
  /** Sentences the help adds after the line, when one line does not say enough. */
  readonly note?: string;
  /** Shown in the usage line too (`[--quiet]`), not only as part of `[options]`. */
  readonly inUsage?: boolean;
  /** The heading the help lists it under, when it is not "Options". */
  readonly group?: string;
}

export type RuleTable = Readonly<Record<string, FlagRule>>;
export type FlagTable = Readonly<Record<string, FlagSpec>>;

/**
 * One form of the usage line, after `mcp-beaver <command>`: its operands (then the flags
 * marked inUsage, then `[options]` for the others), or its operands and exactly the
 * flags it takes (`defineCommand` checks that they are the table's).
 */
export type UsageForm<Name extends string = string> =
  string | { readonly operands: string; readonly flags: readonly Name[] };

/** How many operands a command takes (operands.ts counts them). */
export interface OperandCount<N extends number = number> {
  readonly min: N;
  /** Absent: any number beyond `min`. */
  readonly max?: number;
  /** The usage message when the count is wrong. */
  readonly wrong: string;
}

export interface CommandSpec<F extends FlagTable, N extends number = number> {
  /** As written after `mcp-beaver`, e.g. "serve" or "import". */
  readonly name: string;
  /** The usage line, one entry per form. */
  readonly usage: readonly UsageForm[];
  /** Its operands' count, where the command's run has it counted (parseOperands). */
  readonly operands?: OperandCount<N>;
  /** What the command does, printed before the options. */
  readonly about: string;
  readonly flags: F;
  /** Printed after the options: exit codes, examples. */
  readonly more?: string;
}
