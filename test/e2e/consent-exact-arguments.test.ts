/**
 * Issue 37: an approval or a confirmation binds the argument text that goes upstream.
 * A `raw` value is forwarded with the caller's digits (number-text.ts), so `1e400`,
 * `1.00000000000000000001` and `-0` are sent as written although they parse to the
 * doubles of `null`, `1` and `0`. The digest was taken over those doubles: an approval of
 * one text ran another, and the approver read the double's text. Each case sends its
 * JSON as text, since JSON.stringify cannot write these numbers.
 */
import { describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  approvalOf,
  bearer,
  decide,
  FINANCE_KEY,
  FORM_CAPS,
  inputRequiredOf,
  listApprovals,
  resultText,
  ACCEPT_CONFIRM,
  useConsentGateway,
} from '../helpers/consent.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import type { Upstream } from '../helpers/upstream.js';

/** An approved and a confirmed grant, each taking a `raw` object forwarded as written. */
const TAGS = `
can create tag {
    describe "Tag a payment."
    path "/payments/{payment}/tags" { payment "integer" min=1 }
    body { meta "raw" kind="object" required=#true }
    approve "Tag payment {payment} with {meta}" by="payments:approve" expires="15m"
}
can update tag {
    describe "Retag a payment."
    path "/payments/{payment}/tags" { payment "integer" min=1 }
    body { meta "raw" kind="object" required=#true }
    confirm "Retag payment {payment} with {meta}?"
}`;

let upstream: Upstream;
let gw: TestGateway;

useConsentGateway({ tools: TAGS }, (s) => ({ upstream, gw } = s));

const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path} ${r.body}`);

/** A REST call of create_tag whose `meta` is the JSON text `meta`, as written. */
const tag = (payment: number, meta: string) =>
  postJson(`${gw.url}/api/create_tag`, `{"payment":${payment},"meta":${meta}}`, bearer(AGENT_KEY));

/** A 2026-07-28 tools/call of update_tag, its `meta` written as given, with retry fields. */
function retag(payment: number, meta: string, retry: Record<string, unknown> = {}) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'update_tag',
      arguments: '@ARGS@',
      _meta: { [META_VERSION]: MODERN, [META_CAPS]: FORM_CAPS },
      ...retry,
    },
  }).replace('"@ARGS@"', `{"payment":${payment},"meta":${meta}}`);
  return postJson(`${gw.url}/mcp`, body, {
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'update_tag',
    ...bearer(AGENT_KEY),
  });
}

/** Texts that parse to the same double as the first, each sent upstream as written. */
const TWINS: readonly (readonly [string, string])[] = [
  ['{"v":null}', '{"v":1e400}'],
  ['{"v":1}', '{"v":1.00000000000000000001}'],
  ['{"v":0}', '{"v":-0}'],
];

describe('consent binds the argument text that is sent', () => {
  it('an approval of one raw text does not run another that parses to the same doubles', async () => {
    let payment = 100;
    for (const [approved, other] of TWINS) {
      payment++;
      const parked = await tag(payment, approved);
      expect(parked.status).toBe(202);
      const { id } = approvalOf(parked.json);
      expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
      // The other text is another call: it parks an approval of its own and sends nothing.
      const twin = await tag(payment, other);
      expect(twin.status, `${other} after approving ${approved}`).toBe(202);
      expect(approvalOf(twin.json).id).not.toBe(id);
      expect(sent()).toEqual([]);
      // The approved text still runs, once, as written.
      expect((await tag(payment, approved)).status).toBe(200);
      expect(sent()).toEqual([`POST /payments/${payment}/tags {"meta":${approved}}`]);
      upstream.requests.length = 0;
    }
  });

  it('the approver reads the numbers as they will be sent, and that text runs', async () => {
    const meta = '{"v":1e400,"w":-0,"x":1.00000000000000000001,"y":12345678901234567890}';
    const parked = await tag(120, meta);
    const { id, message } = approvalOf(parked.json);
    expect(message).toBe(`Tag payment 120 with ${meta}`);
    const listed = (await listApprovals(gw.url, FINANCE_KEY)).find((a) => a.id === id);
    expect(listed?.message).toBe(`Tag payment 120 with ${meta}`);
    expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    expect((await tag(120, meta)).status).toBe(200);
    expect(sent()).toEqual([`POST /payments/120/tags {"meta":${meta}}`]);
  });

  it('a confirmation of one raw text is CONFIRMATION_INVALID for another that parses to the same doubles', async () => {
    let payment = 200;
    for (const [asked, other] of TWINS) {
      payment++;
      const question = inputRequiredOf((await retag(payment, asked)).json);
      expect(question.inputRequests.confirm!.params.message).toBe(
        `Retag payment ${payment} with ${asked}?`,
      );
      const retry = await retag(payment, other, {
        inputResponses: ACCEPT_CONFIRM,
        requestState: question.requestState,
      });
      expect(resultText(retry.json).text, `${other} confirmed as ${asked}`).toMatch(
        /^CONFIRMATION_INVALID: /,
      );
      expect(sent()).toEqual([]);
    }
  });

  it('the confirming user reads the numbers as they will be sent', async () => {
    const meta = '{"v":1e400,"w":-0}';
    const question = inputRequiredOf((await retag(220, meta)).json);
    expect(question.inputRequests.confirm!.params.message).toBe(`Retag payment 220 with ${meta}?`);
  });
});
