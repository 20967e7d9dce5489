/**
 * A command's --help, written from its declaration (flags.ts): the usage line, what the
 * command does, its options grouped under their headings, then the rest (exit codes,
 * examples). No flag is listed by hand: its row comes from its table entry.
 */
import type { CommandSpec, FlagSpec, FlagTable, UsageForm } from './flag-spec.js';

/** Where the help text is wrapped. */
const WIDTH = 88;
/** A longer label puts its help on the next line, so the column stays narrow. */
const MAX_LABEL = 22;

/** Every command's; the parser answers it before reading the table. */
const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', help: 'Show this help' };

export function renderHelp<F extends FlagTable>(command: CommandSpec<F>): string {
  const usage = command.usage.map(
    (form, i) =>
      `${i === 0 ? 'Usage: ' : '       '}${['mcp-beaver', command.name, synopsis(command.flags, form)].filter(Boolean).join(' ')}`,
  );
  const groups = new Map<string, [string, FlagSpec][]>([['Options', []]]);
  for (const [name, spec] of Object.entries(command.flags)) {
    const heading = spec.group ?? 'Options';
    groups.set(heading, [...(groups.get(heading) ?? []), [name, spec]]);
  }
  groups.get('Options')!.push(['help', HELP_FLAG]);
  const column = columnOf([...groups.values()].flat());
  const sections = [
    usage.join('\n'),
    command.about,
    ...[...groups].map(([heading, flags]) => `${heading}:\n${optionRows(flags, column)}`),
    command.more ?? '',
  ];
  return sections
    .map((s) => s.replace(/^\n+/, '').trimEnd())
    .filter(Boolean)
    .map((s) => `${s}\n`)
    .join('\n');
}

/** The rows of a table of flags, e.g. the main help's -h and -v; at least `column` wide. */
export function renderOptions(flags: FlagTable, column = 0): string {
  const entries = Object.entries(flags);
  return optionRows(entries, Math.max(column, columnOf(entries)));
}

function synopsis(flags: FlagTable, form: UsageForm): string {
  const names = Object.keys(flags);
  const shown =
    typeof form === 'string' ? names.filter((n) => flags[n]!.inUsage === true) : form.flags;
  const others = typeof form === 'string' && names.some((n) => flags[n]!.inUsage !== true);
  return [
    typeof form === 'string' ? form : form.operands,
    ...shown.map((n) => `[${usageLabel(n, flags[n]!)}]`),
    others ? '[options]' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const placeholder = (spec: FlagSpec): string =>
  spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : '';

/** `-o FILE` or `--json`: the shortest spelling, as the usage line shows it. */
const usageLabel = (name: string, spec: FlagSpec): string =>
  `${spec.short !== undefined ? `-${spec.short}` : `--${name}`}${placeholder(spec)}`;

/** `-o, --output FILE`: every spelling, as the options list shows it. */
const rowLabel = (name: string, spec: FlagSpec): string =>
  `${spec.short !== undefined ? `-${spec.short}, ` : ''}--${name}${placeholder(spec)}`;

/** The column the help texts start at: after the widest label that is not too wide. */
function columnOf(entries: readonly [string, FlagSpec][]): number {
  const widths = entries.map(([name, spec]) => rowLabel(name, spec).length);
  return 2 + Math.max(0, ...widths.filter((w) => w <= MAX_LABEL)) + 2;
}

/** The line and the note as one text: repeatable and the default said the same way. */
function describe(spec: FlagSpec): string {
  const line = [
    spec.help,
    spec.multiple ? '(repeatable)' : '',
    spec.default !== undefined ? `(default ${spec.default})` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return spec.note === undefined ? line : `${line}. ${spec.note}`;
}

function optionRows(entries: readonly [string, FlagSpec][], column: number): string {
  const rows: string[] = [];
  for (const [name, spec] of entries) {
    const label = `  ${rowLabel(name, spec)}`;
    const lines = wrap(describe(spec), WIDTH - column);
    const indent = ' '.repeat(column);
    if (label.length + 2 > column) rows.push(label);
    else rows.push(`${label.padEnd(column)}${lines.shift() ?? ''}`);
    rows.push(...lines.map((l) => `${indent}${l}`));
  }
  return rows.join('\n');
}

/**
 * Words into lines of at most `width` characters (a longer word keeps a line alone). A
 * "quoted example" is one word: `"GET /repos/*"` is not split across lines.
 */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.match(/\S*?"[^"]*"\S*|\S+/g) ?? []) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
