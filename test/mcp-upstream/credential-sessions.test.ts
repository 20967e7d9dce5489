/**
 * The bound on a server's per-caller sessions (credential-sessions.ts): past MAX_SESSIONS
 * the least recently used idle session is ended, a session a call is using never is, and
 * a credential seen again finds its own session. No request is sent: a session's channel
 * is made when its credential is first seen and shakes hands only when a call asks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialSessions, MAX_SESSIONS } from '../../src/mcp-upstream/credential-sessions.js';
import { upstreamAgent } from '../../src/mcp-upstream/http-channel.js';
import type { UpstreamSession } from '../../src/mcp-upstream/upstream-session.js';

const pool = upstreamAgent();
afterAll(() => pool.close());

function sessions(): CredentialSessions {
  return new CredentialSessions({
    name: 'desk',
    protocol: 'auto',
    channel: {
      name: 'desk',
      url: new URL('http://127.0.0.1:9/mcp'),
      headers: {},
      maxMessageBytes: 1 << 20,
      redact: (t) => t,
    },
    dispatcher: pool,
  });
}

const bearer = (i: number) => [['authorization', `Bearer person-${i}`]] as const;
const sessionOf = (s: CredentialSessions, i: number): Promise<UpstreamSession> =>
  s.run(bearer(i), (on) => Promise.resolve(on));

describe("a server's per-caller sessions", () => {
  it('finds the same session for the same credential, and another for another', async () => {
    const s = sessions();
    const first = await sessionOf(s, 1);
    expect(await sessionOf(s, 1)).toBe(first);
    expect(await sessionOf(s, 2)).not.toBe(first);
    expect(s.size).toBe(2);
    await s.close();
  });

  it(`keeps at most ${MAX_SESSIONS}, ending the least recently used one`, async () => {
    const s = sessions();
    const seen: UpstreamSession[] = [];
    for (let i = 0; i < MAX_SESSIONS + 40; i++) seen.push(await sessionOf(s, i));
    expect(s.size).toBe(MAX_SESSIONS);
    // The newest are kept; the oldest were ended, so their credential opens a new one.
    expect(await sessionOf(s, MAX_SESSIONS + 39)).toBe(seen[MAX_SESSIONS + 39]);
    expect(await sessionOf(s, 0)).not.toBe(seen[0]);
    await s.close();
  });

  it('never ends a session while a call is using it', async () => {
    const s = sessions();
    let release!: () => void;
    let held: UpstreamSession | undefined;
    const using = s.run(bearer(-1), (on) => {
      held = on;
      return new Promise<void>((r) => (release = r));
    });
    for (let i = 0; i < MAX_SESSIONS + 40; i++) await sessionOf(s, i);
    expect(await sessionOf(s, -1)).toBe(held);
    release();
    await using;
    await s.close();
  });
});
