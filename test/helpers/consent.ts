/**
 * What the consent end-to-end tests share (issue 29): the refund spec (an `approve`
 * grant, a `confirm` grant, one with both), the callers, the approver's REST calls, and
 * the 2026-07-28 tools/call written out as JSON-RPC with the retry fields
 * (`inputResponses`, `requestState`) the SDK would send, for the tests that forge,
 * replay or alter them.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { useGatewayOnUpstream, type GatewayOnUpstream } from './upstream-fixtures.js';
import { postJson } from './gateway.js';
import { okJson, type UpstreamHandler } from './upstream.js';
import { META_CAPS, META_VERSION, MODERN } from './mcp-wire.js';

export const AGENT_KEY = 'agent-key-7d41c0e9b2';
export const OTHER_AGENT_KEY = 'other-agent-key-5a19f3c8';
export const FINANCE_KEY = 'finance-key-e08b6d27f4';
/** A caller holding both scopes: it may ask and approve, but never its own call. */
export const BOTH_KEY = 'both-key-3f6a90c1d8';
export const CONFIRM_KEY = 'c7'.repeat(32);

export const KEYS_ENV = {
  AGENT_KEY,
  OTHER_AGENT_KEY,
  FINANCE_KEY,
  BOTH_KEY,
};

/**
 * The spec; `extra` goes at the top level (a `limits` node, a `timeout`), `tools` after
 * the three grants, `keyEnv` names the sealing key's variable (false: none, the key is
 * then random per process).
 */
export function consentSpec(
  upstream: string,
  {
    extra = '',
    tools = '',
    keyEnv = 'CONFIRM_KEY',
  }: { extra?: string; tools?: string; keyEnv?: string | false } = {},
): string {
  const key = keyEnv === false ? '' : ` confirm-key-env="${keyEnv}"`;
  return `
wrap "consent-approve" version="1.0.0"
base-url "${upstream}"
${extra}
access${key} {
    api-key env="AGENT_KEY" scopes="payments:write"
    api-key env="OTHER_AGENT_KEY" scopes="payments:write"
    api-key env="FINANCE_KEY" scopes="payments:approve"
    api-key env="BOTH_KEY" scopes="payments:write payments:approve"
}
can create refund {
    describe "Refund part of a payment."
    path "/payments/{payment}/refunds" { payment "integer" min=1 }
    body { amount "integer" required=#true min=1 }
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="15m"
}
can delete payment {
    describe "Delete a payment."
    path "/payments/{payment}" { payment "integer" min=1 }
    confirm "Delete payment {payment}? This cannot be undone."
}
can update payment {
    describe "Void a payment."
    path "/payments/{payment}/void" { payment "integer" min=1 }
    confirm "Void payment {payment}?"
    approve "Void payment {payment}" by="payments:approve" expires="1h"
}
${tools}
`;
}

/**
 * The consent suites' set-up: an upstream answering `answer` (`{"ok":true}` by default)
 * and a gateway serving `consentSpec` on it with every key and the sealing key; the
 * upstream's record is emptied before each test.
 */
export function useConsentGateway(
  spec: { extra?: string; tools?: string; answer?: UpstreamHandler },
  take: (started: GatewayOnUpstream) => void,
): void {
  const { answer = okJson, ...parts } = spec;
  useGatewayOnUpstream(
    (upstream) => consentSpec(upstream, parts),
    { answer, env: { ...KEYS_ENV, CONFIRM_KEY }, forgetEach: true },
    take,
  );
}

export const bearer = (key: string): Record<string, string> => ({
  authorization: `Bearer ${key}`,
});

export interface ApprovalJson {
  id: string;
  tool: string;
  message: string;
  scope: string;
  status: string;
  requested_by: string;
  requested_at: string;
  expires_at: string;
  url: string;
  own: boolean;
  decided_by?: string;
}

export async function listApprovals(url: string, key: string): Promise<ApprovalJson[]> {
  const res = await fetch(`${url}/api/approvals`, { headers: bearer(key) });
  if (res.status !== 200) throw new Error(`GET /api/approvals: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { approvals: ApprovalJson[] }).approvals;
}

export function decide(
  url: string,
  key: string,
  id: string,
  decision: 'approve' | 'decline',
  headers: Record<string, string> = {},
): ReturnType<typeof postJson> {
  return postJson(`${url}/api/approvals/${id}`, { decision }, { ...bearer(key), ...headers });
}

/** A REST call of the refund tool. */
export function restRefund(
  url: string,
  key: string,
  args: { payment: number; amount: number },
): ReturnType<typeof postJson> {
  return postJson(`${url}/api/create_refund`, args, bearer(key));
}

/** The approval a 202 APPROVAL_REQUIRED carries. */
export function approvalOf(json: unknown): {
  id: string;
  url: string;
  message: string;
  scope: string;
  expires_at: string;
} {
  const e = (json as { error?: { code?: string; details?: { approval?: unknown } } }).error;
  if (e?.code !== 'APPROVAL_REQUIRED' || !e.details?.approval)
    throw new Error(`not APPROVAL_REQUIRED: ${JSON.stringify(json)}`);
  return e.details.approval as ReturnType<typeof approvalOf>;
}

let rpcId = 100;

/**
 * One 2026-07-28 tools/call POSTed as JSON-RPC, declaring `capabilities` in `_meta`, with
 * the retry fields when given; the answer as it came.
 */
export function postModernCall(
  url: string,
  key: string,
  tool: string,
  args: Record<string, unknown>,
  {
    capabilities = {},
    inputResponses,
    requestState,
  }: {
    capabilities?: Record<string, unknown>;
    inputResponses?: unknown;
    requestState?: unknown;
  } = {},
): ReturnType<typeof postJson> {
  return postJson(
    `${url}/mcp`,
    {
      jsonrpc: '2.0',
      id: ++rpcId,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        _meta: { [META_VERSION]: MODERN, [META_CAPS]: capabilities },
        ...(inputResponses !== undefined && { inputResponses }),
        ...(requestState !== undefined && { requestState }),
      },
    },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
      ...bearer(key),
    },
  );
}

/** The `input_required` result of a written-out call, or an error naming what came instead. */
export function inputRequiredOf(json: unknown): {
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
} {
  const result = (json as { result?: { resultType?: string } }).result;
  if (result?.resultType !== 'input_required')
    throw new Error(`not input_required: ${JSON.stringify(json)}`);
  return result as ReturnType<typeof inputRequiredOf>;
}

/** The text of a tools/call result written out (its first content item). */
export function resultText(json: unknown): { isError: boolean | undefined; text: string } {
  const result = (json as { result?: { isError?: boolean; content?: { text: string }[] } }).result;
  return { isError: result?.isError, text: result?.content?.[0]?.text ?? JSON.stringify(json) };
}

export const ACCEPT_CONFIRM = { confirm: { action: 'accept', content: { confirm: true } } };
export const FORM_CAPS = { elicitation: { form: {} } };
export const URL_CAPS = { elicitation: { url: {} } };

/** The requestState of the confirmation `key` is asked when deleting `payment`. */
export async function askDeleteConfirm(url: string, key: string, payment: number): Promise<string> {
  const asked = await postModernCall(
    url,
    key,
    'delete_payment',
    { payment },
    {
      capabilities: FORM_CAPS,
    },
  );
  return inputRequiredOf(asked.json).requestState;
}

/** The retry of that confirmation, answered yes. */
export function deleteConfirmedRetry(
  url: string,
  key: string,
  payment: number,
  requestState: string,
): ReturnType<typeof postJson> {
  return postModernCall(
    url,
    key,
    'delete_payment',
    { payment },
    {
      capabilities: FORM_CAPS,
      inputResponses: ACCEPT_CONFIRM,
      requestState,
    },
  );
}

/**
 * A refund asked by a client that takes URL elicitation: its requestState and the id of
 * the approval the elicitation's URL names (its last path segment).
 */
export async function askRefundByUrl(
  url: string,
  key: string,
  args: { payment: number; amount: number },
): Promise<{ requestState: string; id: string }> {
  const asked = inputRequiredOf(
    (await postModernCall(url, key, 'create_refund', args, { capabilities: URL_CAPS })).json,
  );
  const approveUrl = String(asked.inputRequests.approve!.params.url);
  return {
    requestState: asked.requestState,
    id: approveUrl.slice(approveUrl.lastIndexOf('/') + 1),
  };
}

/** The retry of that refund once someone has decided: the client says the URL step is done. */
export function refundUrlRetry(
  url: string,
  key: string,
  args: { payment: number; amount: number },
  requestState: string,
): ReturnType<typeof postJson> {
  return postModernCall(url, key, 'create_refund', args, {
    capabilities: URL_CAPS,
    inputResponses: { approve: { action: 'accept' } },
    requestState,
  });
}

/** An SDK v2 client at 2026-07-28 with the given elicitation capability and handler. */
export async function modernClient(
  url: string,
  key: string,
  capabilities: Record<string, unknown> | undefined,
  onElicit?: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<Client> {
  const client = new Client(
    { name: 'consent-e2e', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      ...(capabilities && { capabilities }),
    },
  );
  if (onElicit)
    client.setRequestHandler('elicitation/create', async (request) => {
      return (await onElicit(request.params as Record<string, unknown>)) as never;
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: bearer(key) },
    }),
  );
  return client;
}

/** An SDK v2 client in the 2025-11-25 era (an `initialize` handshake), with no capabilities. */
export async function legacyClient(url: string, key: string): Promise<Client> {
  const client = new Client(
    { name: 'consent-e2e-legacy', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: bearer(key) },
    }),
  );
  return client;
}

/** What GET and POST /api/confirmations/<id> show of one confirmation. */
export interface ConfirmationJson {
  id: string;
  tool: string;
  message: string;
  status: 'pending' | 'confirmed' | 'declined' | 'expired';
  requested_at: string;
  expires_at: string;
  url: string;
}

/** GET /api/confirmations/<id> as `key`, the answer as it came. */
export async function showConfirmation(
  url: string,
  key: string,
  id: string,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}/api/confirmations/${encodeURIComponent(id)}`, {
    headers: bearer(key),
  });
  return { status: res.status, json: await res.json() };
}

/** POST /api/confirmations/<id> with the decision, as `key`. */
export function answerConfirmation(
  url: string,
  key: string,
  id: string,
  decision: 'confirm' | 'decline',
): ReturnType<typeof postJson> {
  return postJson(`${url}/api/confirmations/${encodeURIComponent(id)}`, { decision }, bearer(key));
}

/**
 * A payment deleted by a client that takes only URL elicitation: the confirmation page's
 * question, its requestState, and the id its URL names (the elicitationId too).
 */
export async function askDeleteByPage(
  url: string,
  key: string,
  payment: number,
  requestState?: string,
): Promise<{ params: Record<string, unknown>; requestState: string; id: string }> {
  const asked = inputRequiredOf(
    (
      await postModernCall(
        url,
        key,
        'delete_payment',
        { payment },
        {
          capabilities: URL_CAPS,
          ...(requestState !== undefined && {
            requestState,
            inputResponses: { confirm: { action: 'accept' } },
          }),
        },
      )
    ).json,
  );
  const params = asked.inputRequests.confirm!.params;
  const page = String(params.url);
  return {
    params,
    requestState: asked.requestState,
    id: decodeURIComponent(page.slice(page.lastIndexOf('/') + 1)),
  };
}

/** The retry of that deletion, the client saying the page was opened (`answer` otherwise). */
export function deleteByPageRetry(
  url: string,
  key: string,
  payment: number,
  requestState: string,
  answer: Record<string, unknown> = { action: 'accept' },
): ReturnType<typeof postJson> {
  return postModernCall(
    url,
    key,
    'delete_payment',
    { payment },
    {
      capabilities: URL_CAPS,
      inputResponses: { confirm: answer },
      requestState,
    },
  );
}
