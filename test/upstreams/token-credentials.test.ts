/**
 * What the HTTP kind does with a credential obtained at run time (a token kind's
 * UpstreamIdentity, upstream-identity.ts): its headers go on that call's request only,
 * the token it got is redacted from what comes back, a 401 drops it and the call is
 * sent once more with a fresh one — never twice more — and a refusal sends nothing.
 * The identity here is the test's own: a token kind whose tokens are numbered per
 * caller, so that a token reaching the wrong caller's request would show (the spec says
 * client-credentials only to compile; the backend asks any token kind the same way).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import type { CompiledSpec } from '../../src/compiler/descriptor.js';
import { createHttpKindWith } from '../../src/engine/backends/http/http-backend.js';
import type { BackendKind, GrantOf, KindBackend } from '../../src/engine/backends/kind.js';
import {
  openIdentity,
  type CallCredential,
  type IdentityOutcome,
  type UpstreamIdentity,
} from '../../src/engine/backends/upstream/upstream-identity.js';
import type { CallContext } from '../../src/engine/call-context.js';
import { engineError } from '../../src/engine/error-catalogue.js';
import { makeRedactor } from '../../src/engine/redact.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const STATIC = 'static-service-token-zzz999';

/** Tokens per caller, the n-th `tok-<caller>-<n>-<pad>`; a 401 moves a caller on to the next. */
class NumberedTokens implements UpstreamIdentity {
  readonly kind = 'exchange' as const;
  readonly issued: string[] = [];
  private readonly current = new Map<string, number>();
  unauthorized = 0;
  /** Whether a 401 may be answered with a fresh token. */
  refresh = true;

  token(caller: string, n = this.current.get(caller) ?? 1): string {
    return `tok-${caller}-${n}-padpadpad`;
  }

  private answer(caller: string): IdentityOutcome {
    const t = this.token(caller);
    this.issued.push(t);
    const credential: CallCredential = {
      headers: [['authorization', `Bearer ${t}`]],
      query: [],
      redact: makeRedactor([t], [`Bearer ${t}`]),
    };
    return { ok: true, credential };
  }

  async forCall(ctx: CallContext): Promise<IdentityOutcome> {
    await Promise.resolve();
    const caller = ctx.caller?.id;
    if (!caller || caller === 'anonymous')
      return { ok: false, error: engineError('IDENTITY_UNAVAILABLE', 'no token to exchange') };
    return this.answer(caller);
  }

  async afterUnauthorized(ctx: CallContext): Promise<IdentityOutcome | undefined> {
    this.unauthorized += 1;
    if (!this.refresh) return undefined;
    const caller = ctx.caller!.id;
    this.current.set(caller, (this.current.get(caller) ?? 1) + 1);
    return this.answer(caller);
  }

  secrets = (): string[] => [];
  sentValues = (): string[] => [];
}

function spec(a: string, b: string): CompiledSpec {
  const text = `wrap "tokens" version="1"
upstream "acting" base-url="${a}" {
    auth client-credentials token-url="http://127.0.0.1:1/token" client-id-env="ID" client-secret-env="SECRET"
}
upstream "plain" base-url="${b}" {
    auth bearer env="PLAIN_TOKEN"
}
can get who {
    describe "who"
    upstream "acting"
    path "/who/{name}" {
        name "string"
    }
}
can get plain {
    describe "plain"
    upstream "plain"
    path "/plain"
}
`;
  const out = compileSpecText(text, 'tokens.mcp.kdl');
  if (!out.compiled) throw new Error(JSON.stringify(out.diagnostics));
  return out.compiled;
}

const ctxOf = (caller?: string): CallContext =>
  caller ? { caller: { id: caller, scopes: 'all' } } : {};
const args = (value: Record<string, unknown>) => ({ value, texts: undefined });

describe('a token obtained at run time, per call', () => {
  let a: Upstream;
  let b: Upstream;
  let kind: BackendKind<'http'>;
  let who: KindBackend;
  let plain: KindBackend;
  const tokens = new NumberedTokens();
  /** Which token the acting upstream accepts for each caller: from the second one on. */
  const accepted = (caller: string, auth: string | undefined): boolean => {
    const m = /^Bearer tok-([a-z0-9]+)-(\d+)-padpadpad$/.exec(auth ?? '');
    return m !== null && m[1] === caller && Number(m[2]) >= 2;
  };

  beforeAll(async () => {
    a = await startUpstream((req, res) => {
      const caller = req.path.split('/').at(-1)!;
      res.setHeader('content-type', 'application/json');
      if (!accepted(caller, req.headers.authorization)) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: `bad token ${req.headers.authorization ?? ''}` }));
        return;
      }
      res.end(JSON.stringify({ caller, echoed: req.headers.authorization }));
    });
    b = await startUpstream((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ auth: req.headers.authorization }));
    });
    const compiled = spec(a.url, b.url);
    const grants = compiled.tools.filter((t) => t.backend.kind === 'http') as GrantOf<'http'>[];
    kind = await createHttpKindWith(
      { env: { PLAIN_TOKEN: STATIC, ID: 'id', SECRET: 'secret' }, grants, spec: compiled },
      (auth, ctx) =>
        auth?.kind === 'client-credentials' ? Promise.resolve(tokens) : openIdentity(auth, ctx),
    );
    const redact = makeRedactor(kind.secrets(), kind.sentValues?.() ?? []);
    who = kind.prepare(
      grants.find((g) => g.name === 'get_who')!,
      redact,
    );
    plain = kind.prepare(
      grants.find((g) => g.name === 'get_plain')!,
      redact,
    );
  });
  afterAll(async () => {
    await kind?.close();
    await a?.close();
    await b?.close();
  });

  it('sends again once with a fresh token after a 401, and redacts the token echoed back', async () => {
    const out = await who.invoke(args({ name: 'alice' }), ctxOf('alice'));
    expect(out.ok).toBe(true);
    const sent = a.requests.slice(-2).map((r) => r.headers.authorization);
    expect(sent).toEqual([
      `Bearer ${tokens.token('alice', 1)}`,
      `Bearer ${tokens.token('alice', 2)}`,
    ]);
    const text = JSON.stringify(out);
    expect(text).toContain('alice');
    expect(text).not.toContain(tokens.token('alice', 2));
  });

  it('never sends a third time when the fresh token is refused too', async () => {
    tokens.refresh = true;
    const before = a.requests.length;
    const unauthorized = tokens.unauthorized;
    // "mallory" is never accepted: the upstream wants a token of another caller's.
    const out = await who.invoke(args({ name: 'bob' }), ctxOf('mallory'));
    expect(out.ok).toBe(false);
    expect(a.requests.length - before).toBe(2);
    expect(tokens.unauthorized - unauthorized).toBe(1);
    // The refusal quotes the upstream's body: the tokens in it are hidden.
    const text = JSON.stringify(out);
    expect(text).toContain('UPSTREAM_STATUS');
    expect(text).not.toContain('tok-mallory');
  });

  it('answers the 401 as it came when the identity has no fresh token', async () => {
    tokens.refresh = false;
    try {
      const before = a.requests.length;
      const out = await who.invoke(args({ name: 'carol' }), ctxOf('carol'));
      expect(out.ok).toBe(false);
      expect(a.requests.length - before).toBe(1);
    } finally {
      tokens.refresh = true;
    }
  });

  it('sends nothing when the identity refuses the caller', async () => {
    const before = a.requests.length;
    const out = await who.invoke(args({ name: 'x' }), ctxOf());
    expect(out).toMatchObject({ ok: false, error: { code: 'IDENTITY_UNAVAILABLE' } });
    expect(a.requests.length).toBe(before);
  });

  it('puts each concurrent caller’s token on its own request only', async () => {
    const callers = ['dave', 'erin', 'frank', 'grace'];
    // Move every caller on to an accepted token first.
    for (const c of callers) await who.invoke(args({ name: c }), ctxOf(c));
    const before = a.requests.length;
    const outs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const c = callers[i % callers.length]!;
        return who.invoke(args({ name: c }), ctxOf(c));
      }),
    );
    expect(outs.every((o) => o.ok)).toBe(true);
    const seen = a.requests.slice(before);
    expect(seen).toHaveLength(40);
    for (const r of seen) {
      const caller = r.path.split('/').at(-1)!;
      expect(r.headers.authorization).toBe(`Bearer ${tokens.token(caller, 2)}`);
    }
  });

  it('never sends a token of the acting upstream to another upstream', async () => {
    const out = await plain.invoke(args({}), ctxOf('alice'));
    expect(out.ok).toBe(true);
    for (const r of b.requests) {
      expect(r.headers.authorization).toBe(`Bearer ${STATIC}`);
      expect(JSON.stringify(r.headers)).not.toContain('tok-');
    }
    for (const r of a.requests) expect(JSON.stringify(r.headers)).not.toContain(STATIC);
  });
});
