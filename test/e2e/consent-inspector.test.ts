/**
 * Issue 29 through the MCP Inspector CLI, a real third-party client of the 2025 era: it
 * declares no elicitation when it initializes, so it cannot be asked to confirm and a
 * `confirm` grant answers CONFIRMATION_UNAVAILABLE and sends nothing; an `approve` grant answers
 * APPROVAL_REQUIRED with the approval's URL, and the same call repeated after someone
 * holding the scope approves runs once.
 */
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { hasInspector, runInspector } from '../helpers/inspector-cli.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const AGENT_KEY = 'agent-key-inspector-61d2';
const FINANCE_KEY = 'finance-key-inspector-94be';

function spec(upstream: string): string {
  return `
wrap "consent-inspector" version="1.0.0"
base-url "${upstream}"
access {
    api-key env="AGENT_KEY" scopes="orders:write payments:write"
    api-key env="FINANCE_KEY" scopes="payments:approve"
}
can delete order {
    describe "Delete one order."
    path "/orders/{id}" { id "integer" min=1 }
    confirm "Delete order {id}?"
}
can create refund {
    describe "Refund a payment."
    path "/payments/{payment}/refunds" { payment "string" max-length=40 }
    body { amount "integer" required=#true min=1 }
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="15m"
}
`;
}

describe.skipIf(
  skipBecause(
    !hasInspector,
    'the MCP Inspector CLI is not installed yet (npm run check:inspector installs it; CI runs this file on Node 24 after that step)',
  ),
)('the MCP Inspector CLI (2025 era) and confirm / approve', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  const asAgent = ['--header', `Authorization: Bearer ${AGENT_KEY}`];

  useGatewayOnUpstream(
    spec,
    {
      answer: answerJson(() => ({ refund: 're_1' })),
      env: { AGENT_KEY, FINANCE_KEY },
    },
    (s) => ({ upstream, gw } = s),
  );

  it('gets CONFIRMATION_UNAVAILABLE for a confirm grant, and the upstream gets nothing', async () => {
    const run = await runInspector(`${gw.url}/mcp`, [
      ...asAgent,
      '--method',
      'tools/call',
      '--tool-name',
      'delete_order',
      '--tool-arg',
      'id=3',
    ]);
    expect(run.stdout).toContain('CONFIRMATION_UNAVAILABLE');
    expect(run.stdout).toContain('"isError": true');
    expect(upstream.requests).toEqual([]);
  });

  it('gets APPROVAL_REQUIRED with the approval URL, and after approval the same call runs once', async () => {
    const call = [
      ...asAgent,
      '--method',
      'tools/call',
      '--tool-name',
      'create_refund',
      '--tool-arg',
      'payment=pay_7',
      '--tool-arg',
      'amount=500',
    ];
    const first = await runInspector(`${gw.url}/mcp`, call);
    expect(first.stdout).toContain('APPROVAL_REQUIRED');
    const id = /\/approvals\/([A-Za-z0-9_-]{22})/.exec(first.stdout)?.[1];
    expect(id).toBeDefined();
    expect(upstream.requests).toEqual([]);

    const decided = await fetch(`${gw.url}/api/approvals/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${FINANCE_KEY}` },
      body: '{"decision":"approve"}',
    });
    expect(decided.status).toBe(200);

    const second = await runInspector(`${gw.url}/mcp`, call);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('re_1');
    expect(upstream.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual([
      'POST /payments/pay_7/refunds {"amount":500}',
    ]);
  });
});
