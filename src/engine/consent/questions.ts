/**
 * The consent step's questions in no protocol's words: what a request can be asked and
 * what its retry answered (read by each surface from its own wire), and the question the
 * step puts (each surface renders it in its own words). Its own file so
 * the request scope (call-context.ts) and the step both read it.
 */

/**
 * What a request can be asked, and what its retry answers; present only where the surface
 * can put a question to the caller's user and carry the answer back (the MCP projection
 * reads it from the request, consent-round-trip.ts).
 */
export interface Questions {
  /** The user can be asked to confirm. */
  readonly canConfirm: boolean;
  /** The user can be sent to a page (an approval's, or the confirmation page). */
  readonly canVisit: boolean;
  /** The request answers a question or echoes a state: it is a retry. */
  readonly isRetry: boolean;
  /**
   * The surface's retry echoes the sealed state a question carries (2026-07-28). Absent:
   * the client repeats the same call instead (the 2025 era), so it is sent to the
   * confirmation page only, never to an approval's, which its user cannot decide and
   * whose repeat would be sent there again (it gets APPROVAL_REQUIRED instead).
   */
  readonly echoesState?: boolean;
  /** The retry's answers, as the surface read them; absent when they were not an object. */
  readonly answers?: Answers;
  /** The retry's sealed state, as sent. */
  readonly state?: unknown;
}

export interface Answers {
  /** The answer to `confirm`: yes, no, dismissed, or one that says neither. */
  readonly confirm?: 'yes' | 'no' | 'dismissed' | 'unreadable';
  /** The retry answers the approval's page. */
  readonly visited: boolean;
}

/** How a surface says that a request cannot ask its user, and how it could. */
export interface Unaskable {
  readonly reason: string;
  readonly remedy: string;
}

/**
 * A question for the caller's user, and the sealed state its retry echoes: `confirm` the
 * call, `visit` the page of approval `approvalId`, or answer confirmation `confirmationId`
 * on its page (`confirm-page`, for a request that can only send its user to a page). The
 * surface builds the pages' URLs; a surface whose retry carries no state (the 2025 era:
 * the same call repeated) does not pass `state` on.
 */
export type Question =
  | {
      readonly kind: 'confirm';
      readonly message: string;
      readonly state: string;
      /** The digest of the arguments asked about, for the surface's audit line of a dropped question. */
      readonly argumentsDigest?: string;
    }
  | {
      readonly kind: 'confirm-page';
      readonly message: string;
      readonly confirmationId: string;
      readonly state: string;
    }
  | {
      readonly kind: 'visit';
      readonly message: string;
      readonly approvalId: string;
      readonly state: string;
    };
