/**
 * Two HTTP upstreams in one spec, each with its own credential (spec-language.md, "Many
 * upstreams and databases in one spec"): each upstream server checks the token it
 * receives, so a grant that carried the other one's would be refused there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream, type UpstreamHandler } from '../helpers/upstream.js';

const TOKEN_A = 'tracker-secret-token-aaa111';
const TOKEN_B = 'billing-secret-token-bbb222';

/** An API that answers only its own bearer token, and echoes what it is asked to. */
function verifying(token: string, echo?: () => string): UpstreamHandler {
  return (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: 'wrong token' }));
      return;
    }
    res.end(JSON.stringify({ ok: true, path: req.path, echoed: echo?.() ?? null }));
  };
}

function spec(a: string, b: string): string {
  return `wrap "two" version="1"
upstream "tracker" base-url="${a}/api" {
    auth bearer env="TRACKER_TOKEN"
    header "X-Team" "desk"
}
upstream "billing" base-url="${b}/v2" connections=4 {
    auth bearer env="BILLING_TOKEN"
}
can list issues {
    describe "issues"
    upstream "tracker"
    path "/issues"
}
can list invoices {
    describe "invoices"
    upstream "billing"
    path "/invoices"
}
`;
}

describe('two upstreams, each called with its own credential', () => {
  let a: Upstream;
  let b: Upstream;
  let gw: TestGateway;

  beforeAll(async () => {
    a = await startUpstream(verifying(TOKEN_A));
    // B echoes A's secret back in its answer, as a hostile or careless API might.
    b = await startUpstream(verifying(TOKEN_B, () => `leaked ${TOKEN_A} and ${TOKEN_B}`));
    gw = await startGateway(spec(a.url, b.url), {
      env: { TRACKER_TOKEN: TOKEN_A, BILLING_TOKEN: TOKEN_B },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await a?.close();
    await b?.close();
  });

  it("sends upstream A's grant to A with A's token and header only", async () => {
    const res = await postJson(`${gw.url}/api/list_issues`, {});
    expect(res.status).toBe(200);
    const seen = a.requests.at(-1)!;
    expect(seen.path).toBe('/api/issues');
    expect(seen.headers.authorization).toBe(`Bearer ${TOKEN_A}`);
    expect(seen.headers['x-team']).toBe('desk');
    expect(JSON.stringify(seen.headers)).not.toContain(TOKEN_B);
  });

  it("sends upstream B's grant to B with B's token only, never A's or A's headers", async () => {
    const res = await postJson(`${gw.url}/api/list_invoices`, {});
    expect(res.status).toBe(200);
    const seen = b.requests.at(-1)!;
    expect(seen.path).toBe('/v2/invoices');
    expect(seen.headers.authorization).toBe(`Bearer ${TOKEN_B}`);
    expect(seen.headers['x-team']).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain(TOKEN_A);
  });

  it("redacts A's secret when B echoes it, and B's own", async () => {
    const res = await postJson(`${gw.url}/api/list_invoices`, {});
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(TOKEN_A);
    expect(res.text).not.toContain(TOKEN_B);
    expect(res.text).toContain('[REDACTED]');
    expect(gw.logs()).not.toContain(TOKEN_A);
    expect(gw.logs()).not.toContain(TOKEN_B);
  });

  it('never lets one upstream see a request meant for the other', () => {
    expect(a.requests.every((r) => r.path.startsWith('/api/'))).toBe(true);
    expect(b.requests.every((r) => r.path.startsWith('/v2/'))).toBe(true);
  });
});

describe('start-up with many upstreams and databases', () => {
  it('names every missing variable of every upstream and database at once', async () => {
    const text = `${spec('http://127.0.0.1:1', 'http://127.0.0.1:2')}
database "orders" env="ORDERS_DB_URL"
can query orders {
    describe "orders"
    database "orders"
    sql "select 1"
}
`;
    const err = await startGateway(text, { env: {} }).then(
      (g) => g.close().then(() => undefined),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toContain('3 environment variables');
    for (const name of ['TRACKER_TOKEN', 'BILLING_TOKEN', 'ORDERS_DB_URL'])
      expect(message).toContain(name);
  });
});
