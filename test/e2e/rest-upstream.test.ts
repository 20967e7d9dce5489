/**
 * The example specs served over REST against a real recording upstream: for every
 * grant, exactly what the upstream receives (method, path, raw query, headers, body)
 * and the envelope the caller gets back.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { echoJson, startUpstream, type Upstream } from '../helpers/upstream.js';

const GITHUB_TOKEN = 'ghp_secret_test_token_123';
const STRIPE_KEY = 'sk_test_secret_key_456';

/** An example spec with its base-url origin replaced by the upstream's, path prefix kept. */
function exampleSpec(file: string, upstreamUrl: string): string {
  const text = readFileSync(new URL(`../../specs/${file}`, import.meta.url), 'utf8');
  const line = /^base-url "([^"]+)"$/m;
  expect(text).toMatch(line);
  return text.replace(line, (_m, url: string) => {
    const prefix = new URL(url).pathname.replace(/\/+$/, '');
    return `base-url "${upstreamUrl}${prefix}"`;
  });
}

interface Reply {
  status: number;
  text: string;
  json: unknown;
}

/** A POST with full control of the headers (fetch will not send a chosen Host). */
function rawPost(url: string, body: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Headers a hostile or careless caller sends to the gateway; none may reach the upstream. */
function callerHeaders(gatewayUrl: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: 'Bearer caller-own-token-zzz',
    cookie: 'session=caller-session-cookie',
    'x-forwarded-for': '203.0.113.9',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'https',
    'proxy-authorization': 'Basic Y2FsbGVyOnB3',
    'x-api-key': 'caller-api-key',
    host: `localhost:${new URL(gatewayUrl).port}`,
  };
}

const CALLER_SECRETS = [
  'caller-own-token-zzz',
  'caller-session-cookie',
  '203.0.113.9',
  'evil.example',
  'Y2FsbGVyOnB3',
  'caller-api-key',
];

function expectNothingOfTheCaller(headers: Record<string, unknown>): void {
  const text = JSON.stringify(headers);
  for (const s of CALLER_SECRETS) expect(text).not.toContain(s);
  expect(headers.cookie).toBeUndefined();
  expect(headers['x-forwarded-for']).toBeUndefined();
  expect(headers['x-forwarded-host']).toBeUndefined();
  expect(headers['proxy-authorization']).toBeUndefined();
}

interface EnvelopeJson {
  coverage: {
    truncated: boolean;
    bytes: number;
    over_budget: boolean;
    items: { path: string; length?: number; count?: number; kept?: number }[];
  };
  result: unknown;
}

/** The 200 envelope for an upstream JSON answer, coverage serialized first. */
function expectEnvelope(reply: Reply, upstreamResult: unknown): EnvelopeJson {
  expect(reply.status).toBe(200);
  expect(reply.text.startsWith('{"coverage":{"truncated":false,')).toBe(true);
  const env = reply.json as EnvelopeJson;
  expect(Object.keys(env)).toEqual(['coverage', 'result']);
  expect(Object.keys(env.coverage)).toEqual(['truncated', 'bytes', 'over_budget', 'items']);
  expect(env.coverage.truncated).toBe(false);
  expect(env.coverage.over_budget).toBe(false);
  expect(env.coverage.bytes).toBe(Buffer.byteLength(JSON.stringify(upstreamResult), 'utf8'));
  expect(env.result).toEqual(upstreamResult);
  return env;
}

function answerJson(upstream: Upstream, value: unknown, status = 200): void {
  upstream.handle((_req, res) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(value));
  });
}

const TRACEPARENT: unknown = expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

describe('github-issues.mcp.kdl over REST', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let upstreamHost: string;

  const githubHeaders = (extra: Record<string, string> = {}) => ({
    host: upstreamHost,
    connection: 'keep-alive',
    'user-agent': 'mcp-beaver',
    'accept-encoding': 'identity',
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    authorization: `Bearer ${GITHUB_TOKEN}`,
    // Every call continues (or starts) a W3C trace and hands the upstream a child span.
    traceparent: TRACEPARENT,
    ...extra,
  });

  beforeAll(async () => {
    upstream = await startUpstream();
    upstreamHost = new URL(upstream.url).host;
    gw = await startGateway(exampleSpec('github-issues.mcp.kdl', upstream.url), {
      env: { GITHUB_TOKEN },
    });
  });
  afterEach(() => {
    upstream.requests.length = 0;
    upstream.handle(echoJson);
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it('list_issues sends a GET with defaults, aliases, repeated labels in caller order and encoded values', async () => {
    const issues = [
      { number: 2, title: 'Crash on start', labels: [{ name: 'bug' }] },
      { number: 1, title: 'Docs', labels: [] },
    ];
    answerJson(upstream, issues);
    const reply = await rawPost(
      `${gw.url}/api/list_issues`,
      JSON.stringify({
        owner: 'acme',
        repo: 'web-app',
        labels: ['needs triage', 'bug', 'a&b=c#d'],
        state: 'all',
        assignee: '*',
        search: 'crash on start',
        per_page: 50,
      }),
      callerHeaders(gw.url),
    );
    const env = expectEnvelope(reply, issues);
    expect(env.coverage.items).toEqual([
      { path: '$', length: 2 },
      { path: '$[*].labels', count: 2, min: 0, max: 1, total: 1 },
    ]);
    expect(upstream.requests).toHaveLength(1);
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.path).toBe('/repos/acme/web-app/issues');
    expect(seen.query).toBe(
      'state=all&labels=needs+triage&labels=bug&labels=a%26b%3Dc%23d&assignee=*' +
        '&sort=created&direction=desc&q=crash+on+start&per_page=50&page=1',
    );
    expect(new URLSearchParams(seen.query).getAll('labels')).toEqual([
      'needs triage',
      'bug',
      'a&b=c#d',
    ]);
    expect(seen.headers).toEqual(githubHeaders());
    expectNothingOfTheCaller(seen.headers);
    expect(seen.body).toBe('');
  });

  it('get_issue puts an integer path argument in its segment and sends no query', async () => {
    const issue = { number: 42, title: 'Flaky test', state: 'open' };
    answerJson(upstream, issue);
    const reply = await postJson(`${gw.url}/api/get_issue`, {
      owner: 'acme-labs',
      repo: 'api.v2',
      number: 42,
    });
    expectEnvelope(reply, issue);
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/repos/acme-labs/api.v2/issues/42');
    expect(seen.query).toBe('');
    expect(seen.headers).toEqual(githubHeaders());
  });

  it('create_issue_comment posts exactly the declared JSON body', async () => {
    const created = { id: 9001, body: 'Looks good & ready = yes #1' };
    answerJson(upstream, created, 201);
    const reply = await rawPost(
      `${gw.url}/api/create_issue_comment`,
      JSON.stringify({
        owner: 'acme',
        repo: 'web',
        number: 7,
        body: 'Looks good & ready = yes #1',
      }),
      callerHeaders(gw.url),
    );
    expectEnvelope(reply, created);
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/repos/acme/web/issues/7/comments');
    const body = '{"body":"Looks good & ready = yes #1"}';
    expect(seen.body).toBe(body);
    expect(seen.headers).toEqual(
      githubHeaders({
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      }),
    );
    expectNothingOfTheCaller(seen.headers);
  });

  it('update_issue sends a PATCH whose body keeps nested objects, arrays and raw fields', async () => {
    answerJson(upstream, { number: 3, state: 'closed' });
    const reply = await postJson(`${gw.url}/api/update_issue`, {
      custom_fields: { priority: { level: 2, label: 'P2' }, tags: ['x', 'y'] },
      labels: [{ name: 'bug', color: 'ff0000' }, { name: 'ui' }],
      assignees: ['octocat', 'hubot'],
      state_reason: 'completed',
      state: 'closed',
      title: 'Fixed: crash on start',
      number: 3,
      repo: 'web',
      owner: 'acme',
    });
    expectEnvelope(reply, { number: 3, state: 'closed' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('PATCH');
    expect(seen.url).toBe('/repos/acme/web/issues/3');
    // Fields go out in the spec's order, each under its upstream name.
    expect(seen.body).toBe(
      JSON.stringify({
        title: 'Fixed: crash on start',
        state: 'closed',
        state_reason: 'completed',
        assignees: ['octocat', 'hubot'],
        labels: [{ name: 'bug', color: 'ff0000' }, { name: 'ui' }],
        custom_fields: { priority: { level: 2, label: 'P2' }, tags: ['x', 'y'] },
      }),
    );
    expect(seen.headers['content-type']).toBe('application/json');
  });

  it('update_file projects commit_message to commit.message and merges the set committer', async () => {
    answerJson(upstream, { content: { name: 'README.md' }, commit: { sha: 'abc' } });
    const reply = await postJson(`${gw.url}/api/update_file`, {
      owner: 'acme',
      repo: 'web',
      path: 'README.md',
      content: 'SGVsbG8sIHdvcmxkIQ==',
      sha: '95b966ae1c166bd92f8ae7d1c313e738c731dfc3',
      branch: 'main',
      commit_message: 'Update README',
      extra: { author: { name: 'Jane', email: 'jane@example.com' } },
    });
    expectEnvelope(reply, { content: { name: 'README.md' }, commit: { sha: 'abc' } });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('PUT');
    expect(seen.url).toBe('/repos/acme/web/contents/README.md');
    expect(seen.body).toBe(
      JSON.stringify({
        content: 'SGVsbG8sIHdvcmxkIQ==',
        sha: '95b966ae1c166bd92f8ae7d1c313e738c731dfc3',
        branch: 'main',
        extra: { author: { name: 'Jane', email: 'jane@example.com' } },
        commit: { message: 'Update README' },
        committer: { name: 'mcp-beaver', email: 'mcp-beaver@users.noreply.example.com' },
      }),
    );
  });

  it('delete_label percent-encodes a label name with spaces and non-ASCII into one segment', async () => {
    upstream.handle((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    const reply = await postJson(`${gw.url}/api/delete_label`, {
      owner: 'acme',
      repo: 'web',
      name: 'good first issue 🐛 é',
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(
      '{"coverage":{"truncated":false,"bytes":4,"over_budget":false,"items":[]},"result":null}',
    );
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('DELETE');
    expect(seen.url).toBe('/repos/acme/web/labels/good%20first%20issue%20%F0%9F%90%9B%20%C3%A9');
    expect(seen.body).toBe('');
    expect(seen.headers).toEqual(githubHeaders());
  });

  it('GET /api lists every grant of the spec as a POST endpoint', async () => {
    const res = await fetch(`${gw.url}/api`);
    expect(res.status).toBe(200);
    const listing = (await res.json()) as {
      tools: { name: string; path: string; method: string }[];
    };
    expect(listing.tools.map((t) => t.name)).toEqual([
      'list_issues',
      'get_issue',
      'create_issue_comment',
      'update_issue',
      'update_file',
      'delete_label',
    ]);
    for (const t of listing.tools) {
      expect(t.method).toBe('POST');
      expect(t.path).toBe(`/api/${t.name}`);
    }
  });

  it('an unknown tool is a 404 UNKNOWN_TOOL and reaches no upstream', async () => {
    for (const name of ['list_pulls', '__proto__', 'hasOwnProperty', 'constructor']) {
      const reply = await postJson(`${gw.url}/api/${name}`, { owner: 'acme' });
      expect(reply.status).toBe(404);
      expect((reply.json as { error: { code: string } }).error.code).toBe('UNKNOWN_TOOL');
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('a body that is not application/json is a 415', async () => {
    const res = await fetch(`${gw.url}/api/get_issue`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"owner":"acme","repo":"web","number":1}',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const form = await fetch(`${gw.url}/api/get_issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'owner=acme&repo=web&number=1',
    });
    expect(form.status).toBe(415);
    expect(upstream.requests).toHaveLength(0);
  });

  it('accepts application/json with a charset parameter, as many HTTP clients send it', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const reply = await postJson(
        `${gw.url}/api/get_issue`,
        { owner: 'acme', repo: 'web', number: 1 },
        { 'content-type': type },
      );
      expect(reply.status).toBe(200);
    }
  });

  it('malformed JSON is a 400 INVALID_JSON', async () => {
    for (const text of ['{"owner":"acme",', '{owner: acme}', '[1,2', 'nul']) {
      const reply = await postJson(`${gw.url}/api/get_issue`, text);
      expect(reply.status).toBe(400);
      expect((reply.json as { error: { code: string } }).error.code).toBe('INVALID_JSON');
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('a body over 4 MiB is a 413', async () => {
    const big = JSON.stringify({
      owner: 'acme',
      repo: 'web',
      number: 1,
      body: 'x'.repeat(5 << 20),
    });
    const reply = await postJson(`${gw.url}/api/create_issue_comment`, big).catch((err: Error) => ({
      status: -1,
      text: err.message,
      json: undefined,
    }));
    expect(reply.status).toBe(413);
    expect((reply.json as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers /healthz and /readyz with 200', async () => {
    const health = await fetch(`${gw.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('never writes the upstream token to the logs', () => {
    expect(gw.logs()).not.toContain(GITHUB_TOKEN);
  });
});

describe('payments-form.mcp.kdl over REST', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let upstreamHost: string;

  const stripeHeaders = (extra: Record<string, string> = {}) => ({
    host: upstreamHost,
    connection: 'keep-alive',
    'user-agent': 'mcp-beaver/0.1',
    'accept-encoding': 'identity',
    accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
    'stripe-version': '2024-06-20',
    authorization: `Bearer ${STRIPE_KEY}`,
    traceparent: TRACEPARENT,
    ...extra,
  });
  const formHeaders = (body: string, extra: Record<string, string> = {}) =>
    stripeHeaders({
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
      ...extra,
    });

  beforeAll(async () => {
    upstream = await startUpstream();
    upstreamHost = new URL(upstream.url).host;
    gw = await startGateway(exampleSpec('payments-form.mcp.kdl', upstream.url), {
      env: { STRIPE_SECRET_KEY: STRIPE_KEY },
    });
  });
  afterEach(() => {
    upstream.requests.length = 0;
    upstream.handle(echoJson);
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it('list_customers keeps the /v1 prefix and sends the as= alias with encoded brackets and @', async () => {
    const page = { object: 'list', data: [{ id: 'cus_A1' }], has_more: false };
    answerJson(upstream, page);
    const reply = await rawPost(
      `${gw.url}/api/list_customers`,
      JSON.stringify({
        email: 'jane+vip@example.com',
        created_gte: 1700000000,
        limit: 25,
        starting_after: 'cus_ABC123',
      }),
      callerHeaders(gw.url),
    );
    const env = expectEnvelope(reply, page);
    expect(env.coverage.items).toEqual([{ path: '$.data', length: 1 }]);
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.path).toBe('/v1/customers');
    expect(seen.query).toBe(
      'email=jane%2Bvip%40example.com&created%5Bgte%5D=1700000000&limit=25&starting_after=cus_ABC123',
    );
    expect(seen.headers).toEqual(stripeHeaders());
    expectNothingOfTheCaller(seen.headers);
  });

  it('get_customer fills the id segment under /v1', async () => {
    answerJson(upstream, { id: 'cus_9s6XKzkNRiz8i3' });
    const reply = await postJson(`${gw.url}/api/get_customer`, { id: 'cus_9s6XKzkNRiz8i3' });
    expectEnvelope(reply, { id: 'cus_9s6XKzkNRiz8i3' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/v1/customers/cus_9s6XKzkNRiz8i3');
    expect(seen.headers).toEqual(stripeHeaders());
  });

  it('create_customer sends a form body with bracket notation for objects and raw metadata', async () => {
    answerJson(upstream, { id: 'cus_new' });
    const reply = await rawPost(
      `${gw.url}/api/create_customer`,
      JSON.stringify({
        email: 'jane@example.com',
        name: 'Jane Doe',
        address: { line1: '1 Main St', city: 'Springfield', country: 'US' },
        metadata: { tier: 'gold', ref: 'a&b=c#d' },
      }),
      callerHeaders(gw.url),
    );
    expectEnvelope(reply, { id: 'cus_new' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/customers');
    const body =
      'email=jane%40example.com&name=Jane+Doe&address%5Bline1%5D=1+Main+St' +
      '&address%5Bcity%5D=Springfield&address%5Bcountry%5D=US' +
      '&metadata%5Btier%5D=gold&metadata%5Bref%5D=a%26b%3Dc%23d';
    expect(seen.body).toBe(body);
    expect([...new URLSearchParams(seen.body)]).toEqual([
      ['email', 'jane@example.com'],
      ['name', 'Jane Doe'],
      ['address[line1]', '1 Main St'],
      ['address[city]', 'Springfield'],
      ['address[country]', 'US'],
      ['metadata[tier]', 'gold'],
      ['metadata[ref]', 'a&b=c#d'],
    ]);
    expect(seen.headers).toEqual(formHeaders(body, { 'idempotency-key-source': 'mcp-beaver' }));
    expectNothingOfTheCaller(seen.headers);
  });

  it('list_payment_intents appends the set expand[] after the caller query', async () => {
    answerJson(upstream, { object: 'list', data: [] });
    const reply = await postJson(`${gw.url}/api/list_payment_intents`, {
      customer: 'cus_X1',
      limit: 3,
    });
    expectEnvelope(reply, { object: 'list', data: [] });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/v1/payment_intents?customer=cus_X1&limit=3&expand%5B%5D=data.customer');
    expect(seen.headers).toEqual(stripeHeaders());
  });

  it('a caller cannot override a set query value', async () => {
    const reply = await postJson(`${gw.url}/api/list_payment_intents`, {
      'expand[]': 'data.payment_method',
    });
    expect(reply.status).toBe(400);
    expect((reply.json as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENTS');
    expect(upstream.requests).toHaveLength(0);
  });

  it('create_payment_intent repeats payment_method_types[] in caller order', async () => {
    answerJson(upstream, { id: 'pi_1', status: 'requires_confirmation' });
    const reply = await postJson(`${gw.url}/api/create_payment_intent`, {
      amount: 2000,
      currency: 'eur',
      customer: 'cus_X1',
      payment_method_types: ['link', 'card', 'sepa_debit'],
      metadata: { order_id: '6735' },
    });
    expectEnvelope(reply, { id: 'pi_1', status: 'requires_confirmation' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/payment_intents');
    const body =
      'amount=2000&currency=eur&customer=cus_X1' +
      '&payment_method_types%5B%5D=link&payment_method_types%5B%5D=card' +
      '&payment_method_types%5B%5D=sepa_debit&metadata%5Border_id%5D=6735';
    expect(seen.body).toBe(body);
    expect(new URLSearchParams(seen.body).getAll('payment_method_types[]')).toEqual([
      'link',
      'card',
      'sepa_debit',
    ]);
    expect(seen.headers).toEqual(formHeaders(body, { 'idempotency-key-source': 'mcp-beaver' }));
  });

  it('cancel_payment_intent posts a form body to the sub-resource', async () => {
    answerJson(upstream, { id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', status: 'canceled' });
    const reply = await postJson(`${gw.url}/api/cancel_payment_intent`, {
      id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
      cancellation_reason: 'requested_by_customer',
    });
    expectEnvelope(reply, { id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', status: 'canceled' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/payment_intents/pi_3MtwBwLkdIwHu7ix28a3tqPa/cancel');
    const body = 'cancellation_reason=requested_by_customer';
    expect(seen.body).toBe(body);
    expect(seen.headers).toEqual(formHeaders(body));
  });

  it('create_refund sends amount, reason and nested metadata as a form', async () => {
    answerJson(upstream, { id: 're_1', amount: 500 });
    const reply = await postJson(`${gw.url}/api/create_refund`, {
      payment_intent: 'pi_ABC',
      amount: 500,
      reason: 'duplicate',
      metadata: { note: 'double charge', source: { kind: 'agent', n: 1 } },
    });
    expectEnvelope(reply, { id: 're_1', amount: 500 });
    const seen = upstream.requests[0]!;
    expect(seen.url).toBe('/v1/refunds');
    const body =
      'payment_intent=pi_ABC&amount=500&reason=duplicate&metadata%5Bnote%5D=double+charge' +
      '&metadata%5Bsource%5D%5Bkind%5D=agent&metadata%5Bsource%5D%5Bn%5D=1';
    expect(seen.body).toBe(body);
    expect(seen.headers).toEqual(formHeaders(body, { 'idempotency-key-source': 'mcp-beaver' }));
  });

  it('create_checkout_session indexes line_items and appends the set body value', async () => {
    answerJson(upstream, { id: 'cs_1', url: 'https://checkout.example/cs_1' });
    const reply = await postJson(`${gw.url}/api/create_checkout_session`, {
      mode: 'payment',
      success_url: 'https://shop.example.com/done?x=1&y=2#top',
      line_items: [
        { quantity: 2, price: 'price_1A' },
        { price: 'price_2B', quantity: 1 },
      ],
    });
    expectEnvelope(reply, { id: 'cs_1', url: 'https://checkout.example/cs_1' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/checkout/sessions');
    const body =
      'mode=payment&success_url=https%3A%2F%2Fshop.example.com%2Fdone%3Fx%3D1%26y%3D2%23top' +
      '&line_items%5B0%5D%5Bprice%5D=price_1A&line_items%5B0%5D%5Bquantity%5D=2' +
      '&line_items%5B1%5D%5Bprice%5D=price_2B&line_items%5B1%5D%5Bquantity%5D=1' +
      '&billing_address_collection=required';
    expect(seen.body).toBe(body);
    expect([...new URLSearchParams(seen.body)]).toEqual([
      ['mode', 'payment'],
      ['success_url', 'https://shop.example.com/done?x=1&y=2#top'],
      ['line_items[0][price]', 'price_1A'],
      ['line_items[0][quantity]', '2'],
      ['line_items[1][price]', 'price_2B'],
      ['line_items[1][quantity]', '1'],
      ['billing_address_collection', 'required'],
    ]);
    expect(seen.headers).toEqual(formHeaders(body));
  });

  it('cancel_subscription sends a DELETE with boolean query values', async () => {
    answerJson(upstream, { id: 'sub_1', status: 'canceled' });
    const reply = await postJson(`${gw.url}/api/cancel_subscription`, {
      id: 'sub_1',
      invoice_now: true,
      prorate: false,
    });
    expectEnvelope(reply, { id: 'sub_1', status: 'canceled' });
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe('DELETE');
    expect(seen.url).toBe('/v1/subscriptions/sub_1?invoice_now=true&prorate=false');
    expect(seen.body).toBe('');
    expect(seen.headers).toEqual(stripeHeaders());
  });

  it('GET /api lists the payment tools', async () => {
    const res = await fetch(`${gw.url}/api`);
    const listing = (await res.json()) as { tools: { name: string }[] };
    expect(listing.tools.map((t) => t.name)).toEqual([
      'list_customers',
      'get_customer',
      'create_customer',
      'list_payment_intents',
      'create_payment_intent',
      'cancel_payment_intent',
      'create_refund',
      'create_checkout_session',
      'cancel_subscription',
    ]);
  });

  it('never writes the upstream key to the logs', () => {
    expect(gw.logs()).not.toContain(STRIPE_KEY);
  });
});
