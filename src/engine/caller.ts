/** Who is calling. Filled by inbound access (api keys, OAuth); anonymous without `access`. */
export interface Caller {
  /** Key id or token subject, for audit lines; never the credential itself. */
  readonly id: string;
  /** Scopes held, or 'all' when the spec has no `access` block. */
  readonly scopes: ReadonlySet<string> | 'all';
  /** Verified token claims, for `from-claim` fields. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

export const ANONYMOUS: Caller = Object.freeze({ id: 'anonymous', scopes: 'all' });
