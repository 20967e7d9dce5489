/** Who is calling. Filled by inbound access (api keys, OAuth); anonymous without `access`. */
export interface Caller {
  /** Key id or token subject, for audit lines; never the credential itself. */
  readonly id: string;
  /** Scopes held, or 'all' when the spec has no `access` block. */
  readonly scopes: ReadonlySet<string> | 'all';
  /** Verified token claims, for `from-claim` fields. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /**
   * The OAuth client the caller's token was issued to (`azp`, else `client_id`), for the
   * identity chain of audit lines and spans; absent for an API key.
   */
  readonly client?: string;
  /**
   * The token `auth exchange` exchanges for this caller: its own inbound access token or,
   * signed in through the gateway, the provider's token kept from its sign-in. A function,
   * so that no copy of the caller (a log line, JSON) carries the token; absent for callers
   * with nothing to exchange (API keys, anonymous, stdio).
   */
  readonly subjectToken?: () => SubjectToken | undefined;
}

/** A token to exchange (RFC 8693 `subject_token` and `subject_token_type`). */
export interface SubjectToken {
  readonly token: string;
  readonly type:
    'urn:ietf:params:oauth:token-type:access_token' | 'urn:ietf:params:oauth:token-type:id_token';
}

export const ANONYMOUS: Caller = Object.freeze({ id: 'anonymous', scopes: 'all' });
