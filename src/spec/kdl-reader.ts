import { getLocation, type Entry, type Node } from '@bgotink/kdl';
import type { Diagnostics, Position, Subject } from './diagnostics.js';

export type Scalar = string | number | boolean | null;

export function positionOf(item: Node | Entry): Position {
  const target = item.type === 'node' ? item.name : item;
  const loc = getLocation(target);
  return loc ? { line: loc.start.line, column: loc.start.column } : { line: 1, column: 1 };
}

/** A value as the file wrote it: `1152921504606846976`, not its rounded double. */
function written(entry: Entry): string {
  return entry.value.representation ?? JSON.stringify(entry.getValue());
}

function kindOf(v: Scalar): string {
  return v === null ? 'null' : typeof v;
}

/**
 * A strict view of one KDL node: every argument and property read is marked, and
 * `finish()` refuses whatever was not (an unknown property is an error, never ignored).
 * Readers return `undefined` after reporting, so the caller keeps going and `check`
 * can list every error of a file, not just the first.
 */
export class NodeReader {
  readonly name: string;
  readonly at: Position;
  private readonly usedProps = new Set<string>();
  private usedArgs = 0;

  constructor(
    readonly node: Node,
    readonly diag: Diagnostics,
    readonly subject: Subject,
  ) {
    this.name = node.getName();
    this.at = positionOf(node);
  }

  argEntries(): Entry[] {
    return this.node.getArgumentEntries();
  }

  /** All arguments, each required to be a string. */
  stringArgs(what: string): { value: string; at: Position }[] {
    const out: { value: string; at: Position }[] = [];
    for (const entry of this.argEntries()) {
      const value = entry.getValue();
      if (typeof value !== 'string') {
        this.diag.error(
          'SPEC_VALUE_TYPE',
          positionOf(entry),
          this.subject,
          `${what} must be a string, got ${kindOf(value)}`,
        );
      } else {
        out.push({ value, at: positionOf(entry) });
      }
    }
    this.usedArgs = this.argEntries().length;
    return out;
  }

  /** All arguments as scalars (enum values, restrict allowlists). */
  scalarArgs(): { value: Scalar; at: Position }[] {
    this.usedArgs = this.argEntries().length;
    return this.argEntries().map((entry) => ({ value: entry.getValue(), at: positionOf(entry) }));
  }

  argAt(index: number): Position {
    const entry = this.argEntries()[index];
    return entry ? positionOf(entry) : this.at;
  }

  string(index: number, what: string): string | undefined {
    this.usedArgs = Math.max(this.usedArgs, index + 1);
    const entry = this.argEntries()[index];
    if (!entry) {
      this.diag.error('SPEC_MISSING', this.at, this.subject, `\`${this.name}\` needs ${what}`);
      return undefined;
    }
    const value = entry.getValue();
    if (typeof value !== 'string') {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${what} must be a string, got ${kindOf(value)}`,
      );
      return undefined;
    }
    return value;
  }

  optionalString(index: number, what: string): string | undefined {
    return this.argEntries()[index] ? this.string(index, what) : undefined;
  }

  /** A whole, positive-or-zero number argument (`max-rows 500`). */
  integer(index: number, what: string, min = 0): number | undefined {
    this.usedArgs = Math.max(this.usedArgs, index + 1);
    const entry = this.argEntries()[index];
    if (!entry) {
      this.diag.error('SPEC_MISSING', this.at, this.subject, `\`${this.name}\` needs ${what}`);
      return undefined;
    }
    return this.checkInteger(entry, what, min);
  }

  has(prop: string): boolean {
    return this.node.hasProperty(prop);
  }

  propEntry(prop: string): Entry | undefined {
    this.usedProps.add(prop);
    return this.node.getPropertyEntry(prop);
  }

  propAt(prop: string): Position {
    const entry = this.node.getPropertyEntry(prop);
    return entry ? positionOf(entry) : this.at;
  }

  propString(prop: string, required = false): string | undefined {
    const entry = this.propEntry(prop);
    if (!entry) {
      if (required)
        this.diag.error('SPEC_MISSING', this.at, this.subject, `\`${this.name}\` needs ${prop}=`);
      return undefined;
    }
    const value = entry.getValue();
    if (typeof value !== 'string') {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${prop}= must be a string, got ${kindOf(value)}`,
      );
      return undefined;
    }
    return value;
  }

  propInteger(prop: string, min = 0): number | undefined {
    const entry = this.propEntry(prop);
    return entry ? this.checkInteger(entry, `${prop}=`, min) : undefined;
  }

  propNumber(prop: string): number | undefined {
    const entry = this.propEntry(prop);
    if (!entry) return undefined;
    const value = entry.getValue();
    if (typeof value !== 'number') {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${prop}= must be a number, got ${kindOf(value)}`,
      );
      return undefined;
    }
    if (!Number.isFinite(value)) {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${prop}=${written(entry)} is not a finite number`,
      );
      return undefined;
    }
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${prop}=${written(entry)} is beyond the exactly representable integers (±2^53-1)`,
      );
      return undefined;
    }
    return value;
  }

  propBoolean(prop: string): boolean | undefined {
    const entry = this.propEntry(prop);
    if (!entry) return undefined;
    const value = entry.getValue();
    if (typeof value !== 'boolean') {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${prop}= must be #true or #false, got ${kindOf(value)}`,
      );
      return undefined;
    }
    return value;
  }

  propScalar(prop: string): { value: Scalar; at: Position } | undefined {
    const entry = this.propEntry(prop);
    return entry ? { value: entry.getValue(), at: positionOf(entry) } : undefined;
  }

  children(subject: Subject = this.subject): NodeReader[] {
    return (this.node.children?.nodes ?? []).map((n) => new NodeReader(n, this.diag, subject));
  }

  hasChildren(): boolean {
    return (this.node.children?.nodes.length ?? 0) > 0;
  }

  /** Refuse children where the node takes none. */
  noChildren(): void {
    for (const child of this.node.children?.nodes ?? []) {
      this.diag.error(
        'SPEC_UNKNOWN_NODE',
        positionOf(child),
        this.subject,
        `\`${this.name}\` takes no children, found \`${child.getName()}\``,
      );
    }
  }

  /** Refuse every property and argument that was not read. */
  finish(): void {
    for (const entry of this.node.getPropertyEntries()) {
      const name = entry.getName() ?? '';
      if (!this.usedProps.has(name)) {
        this.diag.error(
          'SPEC_UNKNOWN_PROPERTY',
          positionOf(entry),
          this.subject,
          `\`${this.name}\` has no property ${name}=`,
        );
      }
    }
    const args = this.argEntries();
    for (let i = this.usedArgs; i < args.length; i++) {
      const entry = args[i]!;
      this.diag.error(
        'SPEC_UNKNOWN_PROPERTY',
        positionOf(entry),
        this.subject,
        `\`${this.name}\` takes ${this.usedArgs} argument(s), found an extra one: ${JSON.stringify(entry.getValue())}`,
      );
    }
  }

  private checkInteger(entry: Entry, what: string, min: number): number | undefined {
    const value = entry.getValue();
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${what} must be a whole number, got ${written(entry)}`,
      );
      return undefined;
    }
    if (!Number.isSafeInteger(value)) {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${what} ${written(entry)} is beyond the exactly representable integers (±2^53-1)`,
      );
      return undefined;
    }
    if (value < min) {
      this.diag.error(
        'SPEC_VALUE_TYPE',
        positionOf(entry),
        this.subject,
        `${what} must be at least ${min}, got ${value}`,
      );
      return undefined;
    }
    return value;
  }
}
