/**
 * One caller's connected account at one provider: the token set the provider issued,
 * and when. Only ever held in memory in clear; at rest it is encrypted (connection-store.ts).
 */
export interface TokenSet {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms; absent when the provider gave no `expires_in`. */
  readonly expiresAt?: number;
  /** The scopes granted, space-separated, as the provider said (else as asked). */
  readonly scope?: string;
  /** Epoch ms of the connection (kept across refreshes). */
  readonly connectedAt: number;
}

/** What `GET /api/connections` shows of a connection: never a token. */
export interface ConnectionSummary {
  readonly provider: string;
  readonly scopes: readonly string[];
  readonly connected_at: string;
  readonly expires_at: string | null;
}

export function summaryOf(provider: string, set: TokenSet): ConnectionSummary {
  return {
    provider,
    scopes: (set.scope ?? '').split(' ').filter((s) => s !== ''),
    connected_at: new Date(set.connectedAt).toISOString(),
    expires_at: set.expiresAt === undefined ? null : new Date(set.expiresAt).toISOString(),
  };
}

/** A value read back from the store, checked: a record of another shape is no connection. */
export function asTokenSet(v: unknown): TokenSet | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.accessToken !== 'string' || typeof o.connectedAt !== 'number') return undefined;
  if (o.refreshToken !== undefined && typeof o.refreshToken !== 'string') return undefined;
  if (o.expiresAt !== undefined && typeof o.expiresAt !== 'number') return undefined;
  if (o.scope !== undefined && typeof o.scope !== 'string') return undefined;
  return o as unknown as TokenSet;
}
