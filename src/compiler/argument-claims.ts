/** The argument names a grant's placements claim: a second claim of a name is a collision. */
import type { Diagnostics, Position, Subject } from './diagnostics.js';
import type { Placement } from './placement.js';

/** Names of a grant's arguments as they are claimed; a second claim is a collision. */
export class Claims {
  /** The field behind each claimed argument, for restrict and from-claim. */
  readonly fieldOf = new Map<string, Placement['field']>();
  private readonly first = new Map<string, { at: Position; what: string }>();

  constructor(
    private readonly diag: Diagnostics,
    private readonly subject: Subject,
  ) {}

  /** False (and reported) when the name is taken. */
  claim(p: Placement): boolean {
    const name = p.argument.name;
    const first = this.first.get(name);
    if (first) {
      this.diag.error(
        p.nested ? 'SPEC_ARG_PROJECTION' : 'SPEC_ARGUMENT_COLLISION',
        p.at,
        this.subject,
        `${p.what} ${name} collides with ${first.what} ${name} (line ${first.at.line}); every argument of a tool needs its own name`,
      );
      return false;
    }
    this.first.set(name, { at: p.at, what: p.what });
    this.fieldOf.set(name, p.field);
    return true;
  }
}
