/**
 * Issue 41, URL-mode confirmation: a client that declared only URL elicitation calling a
 * `confirm` grant is sent to the gateway's `/confirm/<id>` page, where the same caller
 * answers through `POST /api/confirmations/<id>`; the retry (2026-07-28, with its sealed
 * state) or the same call made again (as a 2025-era client repeats it) then runs once.
 * Any other identity is refused there and the call does not run; each case asserts what
 * the upstream received.
 */
import { ProtocolError, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import {
  ElicitRequestURLParamsSchema,
  JSONRPCErrorResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  answerConfirmation,
  askDeleteByPage,
  BOTH_KEY,
  CONFIRM_KEY,
  consentSpec,
  decide,
  deleteByPageRetry,
  FINANCE_KEY,
  inputRequiredOf,
  KEYS_ENV,
  modernClient,
  OTHER_AGENT_KEY,
  postModernCall,
  resultText,
  showConfirmation,
  URL_CAPS,
  useConsentGateway,
  type ConfirmationJson,
} from '../helpers/consent.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { callArguments } from '../../src/engine/call-arguments.js';
import type { RequestScope } from '../../src/engine/call-context.js';
import { approvalPageUrl, confirmPageUrl } from '../../src/projection/approval-url.js';
import { urlElicitationRequired } from '../../src/projection/mcp/consent-round-trip.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useUpstream } from '../helpers/upstream-fixtures.js';

type TextResult = { isError?: boolean; content: { type: string; text: string }[] };

const confirmationOf = (json: unknown): ConfirmationJson =>
  (json as { confirmation: ConfirmationJson }).confirmation;
/** The confirmation's id: the last segment of its page's URL. */
const idIn = (url: string): string => decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
const errorCodeOf = (json: unknown): string | undefined =>
  (json as { error?: { code?: string } }).error?.code;

describe('confirm on the page, for a client declaring only URL elicitation', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useConsentGateway({}, (s) => ({ upstream, gw } = s));

  const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path}`);

  it('sends the SDK v2 client to /confirm/<id>; confirmed there by the same caller, the SDK’s retry runs the call once', async () => {
    const seen: Record<string, unknown>[] = [];
    const client = await modernClient(gw.url, AGENT_KEY, URL_CAPS, async (params) => {
      seen.push(params);
      // The user opened the page with the caller's key and confirmed.
      const id = idIn(String(params.url));
      const answered = await answerConfirmation(gw.url, AGENT_KEY, id, 'confirm');
      if (answered.status !== 200) throw new Error(`confirm: ${answered.text}`);
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 501 },
      })) as TextResult & { structuredContent?: unknown };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ result: { ok: true } });
    } finally {
      await client.close();
    }
    expect(seen).toEqual([
      {
        mode: 'url',
        message: expect.stringMatching(/^Delete payment 501\? This cannot be undone\. \(/),
        // 2026-07-28 has no elicitationId (the draft dropped it): the URL names the page.
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/confirm\/[A-Za-z0-9][\w-]{21}$/),
      },
    ]);
    expect(sent()).toEqual(['DELETE /payments/501']);
    const lines = gw.logs();
    for (const event of ['confirmation_requested', 'confirmation_confirmed', 'confirmation_run'])
      expect(lines).toContain(`"event":"${event}"`);
    expect(lines).toContain(`"confirmationId":"${idIn(String(seen[0]!.url))}"`);
    expect(lines).not.toContain('Delete payment 501');
  });

  it('asks the same page again while the confirmation waits; once confirmed, the retry runs once and its replay is CONFIRMATION_INVALID', async () => {
    const first = await askDeleteByPage(gw.url, AGENT_KEY, 502);
    expect(first.params).toEqual({
      mode: 'url',
      message: expect.stringContaining('Delete payment 502?'),
      url: `${gw.url}/confirm/${first.id}`,
    });
    // Still waiting: the retry is asked the same page, with the same id.
    const again = await askDeleteByPage(gw.url, AGENT_KEY, 502, first.requestState);
    expect(again.id).toBe(first.id);
    expect(again.params.url).toBe(first.params.url);
    expect(upstream.requests).toEqual([]);

    expect((await answerConfirmation(gw.url, AGENT_KEY, first.id, 'confirm')).status).toBe(200);
    const ran = resultText(
      (await deleteByPageRetry(gw.url, AGENT_KEY, 502, again.requestState)).json,
    );
    expect(ran.isError).toBe(false);
    expect(sent()).toEqual(['DELETE /payments/502']);

    // Spent: the state's replay finds no confirmation, parks none, and sends nothing more.
    for (const state of [first.requestState, again.requestState]) {
      const replay = resultText((await deleteByPageRetry(gw.url, AGENT_KEY, 502, state)).json);
      expect(replay.isError).toBe(true);
      expect(replay.text).toMatch(/^CONFIRMATION_INVALID: .*used or is gone/);
    }
    expect((await showConfirmation(gw.url, AGENT_KEY, first.id)).status).toBe(404);
    expect(upstream.requests).toHaveLength(1);
  });

  it('runs the same call made again without the state, as a 2025-era client repeats it, exactly once', async () => {
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 503);
    // Repeated while waiting: the same confirmation, not a second one.
    expect((await askDeleteByPage(gw.url, AGENT_KEY, 503)).id).toBe(asked.id);
    expect((await answerConfirmation(gw.url, AGENT_KEY, asked.id, 'confirm')).status).toBe(200);
    const repeat = () =>
      postModernCall(
        gw.url,
        AGENT_KEY,
        'delete_payment',
        { payment: 503 },
        { capabilities: URL_CAPS },
      );
    expect(resultText((await repeat()).json).isError).toBe(false);
    expect(sent()).toEqual(['DELETE /payments/503']);
    // The confirmation is spent: the next repeat is asked anew, on a page of its own.
    const anew = inputRequiredOf((await repeat()).json);
    const url = String(anew.inputRequests.confirm!.params.url);
    expect(url.endsWith(`/confirm/${asked.id}`)).toBe(false);
    expect(upstream.requests).toHaveLength(1);
  });

  it('a confirmation declined on the page is CONFIRMATION_DECLINED, and nothing is sent', async () => {
    const client = await modernClient(gw.url, AGENT_KEY, URL_CAPS, async (params) => {
      await answerConfirmation(gw.url, AGENT_KEY, idIn(String(params.url)), 'decline');
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 504 },
      })) as TextResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^CONFIRMATION_DECLINED: .*confirmation page/);
    } finally {
      await client.close();
    }
    expect(gw.logs()).toContain('"event":"confirmation_declined"');
    expect(upstream.requests).toEqual([]);
  });

  it('a user declining or dismissing the link in the client is CONFIRMATION_DECLINED or CONFIRMATION_CANCELLED, and nothing is sent', async () => {
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 505);
    // Confirmed on the page meanwhile, yet the client's own no stands.
    expect((await answerConfirmation(gw.url, AGENT_KEY, asked.id, 'confirm')).status).toBe(200);
    for (const [answer, code] of [
      [{ action: 'decline' }, 'CONFIRMATION_DECLINED'],
      [{ action: 'cancel' }, 'CONFIRMATION_CANCELLED'],
    ] as const) {
      const said = resultText(
        (await deleteByPageRetry(gw.url, AGENT_KEY, 505, asked.requestState, answer)).json,
      );
      expect(said.isError).toBe(true);
      expect(said.text.startsWith(`${code}: `)).toBe(true);
    }
    expect(upstream.requests).toEqual([]);
  });

  it('any other identity is refused 403 on the confirmation, an approver holding every scope too, and the call does not run', async () => {
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 506);
    for (const key of [OTHER_AGENT_KEY, FINANCE_KEY, BOTH_KEY]) {
      const shown = await showConfirmation(gw.url, key, asked.id);
      expect(shown.status).toBe(403);
      expect(errorCodeOf(shown.json)).toBe('CONFIRMATION_OTHER_CALLER');
      expect(JSON.stringify(shown.json)).not.toContain('Delete payment');
      const answered = await answerConfirmation(gw.url, key, asked.id, 'confirm');
      expect(answered.status).toBe(403);
      expect(errorCodeOf(answered.json)).toBe('CONFIRMATION_OTHER_CALLER');
    }
    // Nor through the approvals route: a confirmation is no approval.
    expect((await decide(gw.url, FINANCE_KEY, asked.id, 'approve')).status).toBe(404);
    // Still waiting for its own caller: the retry is asked again, and nothing was sent.
    const again = await askDeleteByPage(gw.url, AGENT_KEY, 506, asked.requestState);
    expect(again.id).toBe(asked.id);
    const stillPending = confirmationOf((await showConfirmation(gw.url, AGENT_KEY, asked.id)).json);
    expect(stillPending.status).toBe('pending');
    // Another caller's same call is its own confirmation, never this one.
    expect((await askDeleteByPage(gw.url, OTHER_AGENT_KEY, 506)).id).not.toBe(asked.id);
    expect(upstream.requests).toEqual([]);
  });

  it('shows its caller the message, tool, status and a ten-minute expiry; unknown is 404, a second answer 409, a wrong body 400', async () => {
    const before = Date.now();
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 507);
    const shown = await showConfirmation(gw.url, AGENT_KEY, asked.id);
    expect(shown.status).toBe(200);
    const c = confirmationOf(shown.json);
    expect(c).toEqual({
      id: asked.id,
      tool: 'delete_payment',
      message: 'Delete payment 507? This cannot be undone.',
      status: 'pending',
      requested_at: expect.any(String),
      expires_at: expect.any(String),
      url: asked.params.url,
    });
    const lives = Date.parse(c.expires_at) - Date.parse(c.requested_at);
    expect(lives).toBe(10 * 60_000);
    expect(Date.parse(c.requested_at)).toBeGreaterThanOrEqual(before - 1);

    expect((await showConfirmation(gw.url, AGENT_KEY, 'A'.repeat(22))).status).toBe(404);
    expect((await showConfirmation(gw.url, AGENT_KEY, '../approvals')).status).toBe(404);
    const wrong = await answerConfirmation(gw.url, AGENT_KEY, asked.id, 'approve' as never);
    expect(wrong.status).toBe(400);
    expect(errorCodeOf(wrong.json)).toBe('INVALID_ARGUMENTS');

    const declined = await answerConfirmation(gw.url, AGENT_KEY, asked.id, 'decline');
    expect(declined.status).toBe(200);
    expect(confirmationOf(declined.json).status).toBe('declined');
    const twice = await answerConfirmation(gw.url, AGENT_KEY, asked.id, 'confirm');
    expect(twice.status).toBe(409);
    expect(errorCodeOf(twice.json)).toBe('CONFIRMATION_DECIDED');
    expect(upstream.requests).toEqual([]);
  });

  it('needs the caller’s credential: without one the confirmation is 401 and nothing is answered', async () => {
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 508);
    const res = await fetch(`${gw.url}/api/confirmations/${asked.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'confirm' }),
    });
    expect(res.status).toBe(401);
    expect(confirmationOf((await showConfirmation(gw.url, AGENT_KEY, asked.id)).json).status).toBe(
      'pending',
    );
  });

  it('cannot be answered cross-site: a form post is 415, a foreign Origin 403 FORBIDDEN_ORIGIN, and the confirmation still waits', async () => {
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 511);
    for (const [type, body] of [
      ['text/plain', '{"decision":"confirm"}'],
      ['application/x-www-form-urlencoded', 'decision=confirm'],
    ] as const) {
      const res = await fetch(`${gw.url}/api/confirmations/${asked.id}`, {
        method: 'POST',
        headers: { 'content-type': type, authorization: `Bearer ${AGENT_KEY}` },
        body,
      });
      expect(res.status, type).toBe(415);
    }
    const foreign = await postJson(
      `${gw.url}/api/confirmations/${asked.id}`,
      { decision: 'confirm' },
      { authorization: `Bearer ${AGENT_KEY}`, origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(errorCodeOf(foreign.json)).toBe('FORBIDDEN_ORIGIN');
    const shown = confirmationOf((await showConfirmation(gw.url, AGENT_KEY, asked.id)).json);
    expect(shown.status).toBe('pending');
    expect(upstream.requests).toEqual([]);
  });

  it('keeps today’s order for a grant with both confirm and approve: a URL-only client is sent to the approval', async () => {
    const asked = inputRequiredOf(
      (
        await postModernCall(
          gw.url,
          AGENT_KEY,
          'update_payment',
          { payment: 509 },
          {
            capabilities: URL_CAPS,
          },
        )
      ).json,
    );
    expect(Object.keys(asked.inputRequests)).toEqual(['approve']);
    expect(String(asked.inputRequests.approve!.params.url)).toMatch(/\/approvals\/[\w-]{22}$/);
    expect(upstream.requests).toEqual([]);
  });

  it('a client declaring form elicitation as well is asked in place, never sent to the page', async () => {
    const asked = inputRequiredOf(
      (
        await postModernCall(
          gw.url,
          AGENT_KEY,
          'delete_payment',
          { payment: 510 },
          {
            capabilities: { elicitation: { form: {}, url: {} } },
          },
        )
      ).json,
    );
    expect(asked.inputRequests.confirm!.params.mode).toBe('form');
  });
});

const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();

describe.skipIf(
  skipBecause(
    NO_SHARED_REDIS !== undefined,
    `consent-confirm-page.test.ts, Redis: ${NO_SHARED_REDIS}`,
  ),
)('a confirmation that lapses on its page (Redis, with limits redis-env)', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let redis: Redis;

  useUpstream(okJson, (u) => (upstream = u));

  beforeAll(async () => {
    gw = await startGateway(consentSpec(upstream.url, { extra: 'limits redis-env="REDIS_URL"' }), {
      env: { ...KEYS_ENV, CONFIRM_KEY, REDIS_URL: SHARED_REDIS! },
    });
    redis = new Redis(SHARED_REDIS!, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    redis?.disconnect();
    await gw?.close();
  });

  /** Ten minutes on, as far as this record goes: its expiry moved into the past. */
  const lapse = (id: string) => redis.hset(`mcpb:ap:a:${id}`, 'expiresAt', String(Date.now() - 1));

  it('says expired on the page, refuses an answer with 410, answers the retry CONFIRMATION_EXPIRED once, then asks anew', async () => {
    const asked = await askDeleteByPage(gw.url, AGENT_KEY, 601);
    await lapse(asked.id);
    expect(confirmationOf((await showConfirmation(gw.url, AGENT_KEY, asked.id)).json).status).toBe(
      'expired',
    );
    const late = await answerConfirmation(gw.url, AGENT_KEY, asked.id, 'confirm');
    expect(late.status).toBe(410);
    expect(errorCodeOf(late.json)).toBe('CONFIRMATION_EXPIRED');

    const retried = resultText(
      (await deleteByPageRetry(gw.url, AGENT_KEY, 601, asked.requestState)).json,
    );
    expect(retried.isError).toBe(true);
    expect(retried.text).toMatch(/^CONFIRMATION_EXPIRED: /);
    expect(gw.logs()).toContain('"event":"confirmation_expired"');
    // Said once: the call made again parks a new confirmation on a page of its own.
    const anew = await askDeleteByPage(gw.url, AGENT_KEY, 601);
    expect(anew.id).not.toBe(asked.id);
    expect(upstream.requests).toEqual([]);
  });

  it('a confirmation given on one replica runs the retry that reaches another, once', async () => {
    const other = await startGateway(
      consentSpec(upstream.url, { extra: 'limits redis-env="REDIS_URL"' }),
      { env: { ...KEYS_ENV, CONFIRM_KEY, REDIS_URL: SHARED_REDIS! } },
    );
    try {
      const asked = await askDeleteByPage(gw.url, AGENT_KEY, 602);
      expect((await answerConfirmation(other.url, AGENT_KEY, asked.id, 'confirm')).status).toBe(
        200,
      );
      const ran = resultText(
        (await deleteByPageRetry(other.url, AGENT_KEY, 602, asked.requestState)).json,
      );
      expect(ran.isError).toBe(false);
      const replay = resultText(
        (await deleteByPageRetry(gw.url, AGENT_KEY, 602, asked.requestState)).json,
      );
      expect(replay.text).toMatch(/^CONFIRMATION_INVALID: /);
    } finally {
      await other.close();
    }
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /payments/602']);
  });
});

/**
 * The 2025-11-25 era, taken apart: the engine is given the questions a legacy request
 * carries when its sealed session id says it declared URL elicitation only — no state,
 * the same call repeated — and its question is rendered as the legacy surface answers
 * it, the -32042 error, read back by both SDKs. The same flow end to end, through the
 * session id and the SDK v1 client, is test/e2e/confirm-legacy-page.test.ts.
 */
describe('the 2025-era URL-elicitation-required answer of a confirmation', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useConsentGateway({}, (s) => ({ upstream, gw } = s));

  /** A tool called as a 2025-era request declaring only URL elicitation makes it. */
  async function legacyCall(payment: number, tool = 'delete_payment', extra = {}) {
    const op = gw.gateway.view().operation(tool)!;
    const args = callArguments(op.name, { value: { payment, ...extra }, texts: undefined });
    if (!args.ok) throw new Error('arguments');
    const scope: RequestScope = {
      // The caller AGENT_KEY authenticates as (the spec's first key).
      caller: { id: 'api-key:AGENT_KEY#1', scopes: new Set(['payments:write']) },
      // No state echoed: the 2025-era client repeats the same call.
      questions: { canConfirm: false, canVisit: true, isRetry: false },
      approvalUrl: (id) => approvalPageUrl(gw.url, id),
      origin: { surface: 'mcp', era: 'legacy' },
    };
    return gw.gateway.call(op, args.args, scope);
  }

  const pages = {
    approval: (id: string) => approvalPageUrl('http://gw.test', id),
    confirmation: (id: string) => confirmPageUrl('http://gw.test', id),
  };
  const request = { id: 41, method: 'tools/call', params: {}, paramsTexts: undefined };

  /** The -32042 reply to the legacy call, checked against the 2025-11-25 schema. */
  async function askedLegacy(payment: number) {
    const out = await legacyCall(payment);
    if (!('asked' in out)) throw new Error(`not asked: ${JSON.stringify(out)}`);
    const reply = urlElicitationRequired(request, out.asked, pages);
    expect(reply?.status).toBe(200);
    const body = JSON.parse(String(reply!.body)) as {
      error: { code: number; message: string; data: { elicitations: Record<string, unknown>[] } };
    };
    expect(JSONRPCErrorResponseSchema.safeParse(body).success).toBe(true);
    return body;
  }

  it('answers -32042 with one URL elicitation of /confirm/<id>, its elicitationId the id, which SDK v2 reads as UrlElicitationRequiredError', async () => {
    const body = await askedLegacy(701);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32042 } });
    const [elicitation, ...more] = body.error.data.elicitations;
    expect(more).toEqual([]);
    const id = String(elicitation!.elicitationId);
    expect(elicitation).toEqual({
      mode: 'url',
      message: expect.stringMatching(/^Delete payment 701\? This cannot be undone\. \(/),
      url: `http://gw.test/confirm/${id}`,
      elicitationId: id,
    });
    expect(ElicitRequestURLParamsSchema.safeParse(elicitation).success).toBe(true);
    expect(body.error.message).toContain(`http://gw.test/confirm/${id}`);
    const thrown = ProtocolError.fromError(body.error.code, body.error.message, body.error.data);
    expect(thrown).toBeInstanceOf(UrlElicitationRequiredError);
    expect((thrown as UrlElicitationRequiredError).elicitations).toEqual([elicitation]);
    expect(upstream.requests).toEqual([]);
  });

  it('repeated while waiting it is the same -32042 with the same id; confirmed, the repeat runs once; then the next is asked anew', async () => {
    const first = (await askedLegacy(702)).error.data.elicitations[0]!;
    const again = (await askedLegacy(702)).error.data.elicitations[0]!;
    expect(again).toEqual(first);
    const id = String(first.elicitationId);
    expect((await answerConfirmation(gw.url, AGENT_KEY, id, 'confirm')).status).toBe(200);
    const ran = await legacyCall(702);
    expect('asked' in ran || !ran.ok).toBe(false);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /payments/702']);
    const anew = (await askedLegacy(702)).error.data.elicitations[0]!;
    expect(anew.elicitationId).not.toBe(id);
    expect(upstream.requests).toHaveLength(1);
  });

  it('an approval is not sent to its page in the 2025 era: the call is APPROVAL_REQUIRED, as for a client that cannot visit', async () => {
    for (let i = 0; i < 2; i++) {
      const out = await legacyCall(704, 'create_refund', { amount: 5 });
      expect(!('asked' in out) && !out.ok && out.error.code).toBe('APPROVAL_REQUIRED');
    }
    expect(upstream.requests).toEqual([]);
  });

  it('declined on the page, the repeat is CONFIRMATION_DECLINED and nothing is sent', async () => {
    const id = String((await askedLegacy(703)).error.data.elicitations[0]!.elicitationId);
    expect((await answerConfirmation(gw.url, AGENT_KEY, id, 'decline')).status).toBe(200);
    const refused = await legacyCall(703);
    expect(!('asked' in refused) && !refused.ok && refused.error.code).toBe(
      'CONFIRMATION_DECLINED',
    );
    expect(upstream.requests).toEqual([]);
  });
});

/** A confirmed grant with a rate limit of one call a minute, beside the shared three. */
const DISPUTE = `
can update dispute {
    describe "Mark a payment disputed."
    path "/payments/{payment}/dispute" { payment "integer" min=1 }
    confirm "Mark payment {payment} disputed?"
    rate-limit "1/m"
}`;

describe('the confirmation page and the grant’s rate limit', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useConsentGateway({ tools: DISPUTE }, (s) => ({ upstream, gw } = s));

  const dispute = (payment: number, extra: Record<string, unknown> = {}) =>
    postModernCall(
      gw.url,
      AGENT_KEY,
      'update_dispute',
      { payment },
      {
        capabilities: URL_CAPS,
        ...extra,
      },
    );

  it('parking counts as the call and its confirmed run is not counted again; one more parks nothing and is RATE_LIMITED', async () => {
    const asked = inputRequiredOf((await dispute(1)).json);
    const page = String(asked.inputRequests.confirm!.params.url);
    // Repeated while it waits: the same page, no second count.
    expect(inputRequiredOf((await dispute(1)).json).inputRequests.confirm!.params.url).toBe(page);
    expect((await answerConfirmation(gw.url, AGENT_KEY, idIn(page), 'confirm')).status).toBe(200);
    const ran = resultText(
      (
        await dispute(1, {
          inputResponses: { confirm: { action: 'accept' } },
          requestState: asked.requestState,
        })
      ).json,
    );
    expect(ran.isError).toBe(false);
    const limited = resultText((await dispute(2)).json);
    expect(limited.isError).toBe(true);
    expect(limited.text).toMatch(/^RATE_LIMITED: /);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /payments/1/dispute',
    ]);
  });
});
