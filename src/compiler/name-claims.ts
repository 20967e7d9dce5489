/**
 * Names one node of a kind may hold (a tool, a prompt, a toolset, an mcp-server, a
 * resource's URI and name): the first node keeps its name, a later one is an error that
 * names the line of the first; and the pattern a name must match.
 */
import type { Diagnostics, Located, Position, SpecErrorCode, Subject } from './diagnostics.js';

/** The message for a name taken before: `what` the name is, `by` the node that holds it. */
export function takenBy(what: string, by: string): (name: string, line: number) => string {
  return (name, line) => `${what} ${name} is already taken by the ${by} at line ${line}`;
}

export class NameClaims {
  private readonly first = new Map<string, Position>();

  constructor(
    private readonly diag: Diagnostics,
    private readonly code: SpecErrorCode,
    private readonly taken: (name: string, line: number) => string,
  ) {}

  /**
   * Claims `name` for the node at `nodeAt`; when an earlier node holds it, reports the
   * error at `at` and answers false.
   */
  claim(name: string, nodeAt: Position, at: Position, subject: Subject): boolean {
    const first = this.first.get(name);
    if (first) {
      this.diag.error(this.code, at, subject, this.taken(name, first.line));
      return false;
    }
    this.first.set(name, nodeAt);
    return true;
  }
}

/** A name that must match `pattern`: an error at the name, quoting the pattern, when not. */
export function matchName(
  diag: Diagnostics,
  code: SpecErrorCode,
  name: Located<string>,
  subject: Subject,
  what: string,
  pattern: RegExp,
  why = '',
): void {
  if (!pattern.test(name.value))
    diag.error(
      code,
      name.at,
      subject,
      `${what} ${JSON.stringify(name.value)} must match ${pattern.source}${why}`,
    );
}
