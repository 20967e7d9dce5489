/**
 * A 2025-era session per caller's credential, for an MCP server over a URL whose
 * `auth` obtains a token per caller (spec-language.md, "On whose behalf (upstream identity)").
 *
 * Why: a 2025-era session is made by `initialize`, and a server that authorizes every
 * request (as the MCP authorization spec asks of HTTP servers) refuses an `initialize`
 * with no token, or binds the session to the identity that made it and refuses another
 * caller's token on it. One session shared by every caller, shaken hands with no
 * credential, left each such server unusable for token kinds. So a call that carries a
 * credential goes on a session that was opened with that credential: its own channel
 * (the credential among the headers every request of it carries, `initialize`,
 * `notifications/initialized` and the closing DELETE included), on the upstream's
 * shared connection pool.
 *
 * A 2026-07-28 upstream is stateless: once the shared handshake has agreed that era,
 * every call goes on the shared session with its credential on its own request, and no
 * session is made per caller.
 *
 * Bounded: at most MAX_SESSIONS are kept; past that the least recently used idle one is
 * ended (DELETE, best effort). A token that is renewed opens a new session, and the
 * old one ages out the same way.
 */
import type { Dispatcher } from 'undici';
import { HttpChannel, type HttpChannelOptions } from './http-channel.js';
import { UpstreamSession, type ProtocolChoice } from './upstream-session.js';

/** Sessions kept per upstream; each holds a session id and a handshake result, no socket. */
export const MAX_SESSIONS = 256;

type Credential = readonly (readonly [string, string])[];

interface Kept {
  readonly channel: HttpChannel;
  readonly session: UpstreamSession;
  /** Calls on it now: a session in use is never ended to make room. */
  inFlight: number;
}

export class CredentialSessions {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly o: {
      readonly name: string;
      readonly protocol: ProtocolChoice;
      /** The shared channel's options: each session's channel adds its credential. */
      readonly channel: Omit<HttpChannelOptions, 'dispatcher' | 'ownsDispatcher'>;
      /** The upstream's connection pool, shared; the shared channel owns and closes it. */
      readonly dispatcher: Dispatcher;
    },
  ) {}

  get size(): number {
    return this.kept.size;
  }

  /**
   * Runs `call` on the session of this credential, opened for it if need be; the session
   * counts as in use until the call settles.
   */
  async run<T>(credential: Credential, call: (session: UpstreamSession) => Promise<T>): Promise<T> {
    const kept = this.sessionOf(credential);
    try {
      return await call(kept.session);
    } finally {
      kept.inFlight -= 1;
    }
  }

  /** Ends every session (DELETE each, bounded); the pool is closed by its owner after. */
  async close(): Promise<void> {
    const all = [...this.kept.values()];
    this.kept.clear();
    await Promise.allSettled(all.map((k) => k.channel.close()));
  }

  /** The credential's session, counted in use (before any other is ended to make room). */
  private sessionOf(credential: Credential): Kept {
    const key = keyOf(credential);
    let kept = this.kept.get(key);
    if (kept) {
      // Most recently used last: the map's order is the eviction order.
      this.kept.delete(key);
      this.kept.set(key, kept);
      kept.inFlight += 1;
      return kept;
    }
    const headers: Record<string, string> = { ...this.o.channel.headers };
    for (const [name, value] of credential) headers[name.toLowerCase()] = value;
    const channel = new HttpChannel({
      ...this.o.channel,
      headers,
      dispatcher: this.o.dispatcher,
      ownsDispatcher: false,
    });
    const session = new UpstreamSession(this.o.name, channel, this.o.protocol);
    kept = { channel, session, inFlight: 1 };
    this.kept.set(key, kept);
    this.makeRoom();
    return kept;
  }

  /** Past the bound, ends the least recently used session that no call is using. */
  private makeRoom(): void {
    if (this.kept.size <= MAX_SESSIONS) return;
    for (const [key, k] of this.kept) {
      if (k.inFlight > 0) continue;
      this.kept.delete(key);
      void k.channel.close();
      return;
    }
  }
}

/** The credential's headers as one string: equal credentials share a session. */
function keyOf(credential: Credential): string {
  let key = '';
  for (const [name, value] of credential) key += `${name.toLowerCase()}\n${value}\n`;
  return key;
}
