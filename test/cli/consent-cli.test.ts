/**
 * Issue 29 from the command line, run as a user would (the real CLI in a child process,
 * stdin a pipe, so never a terminal) against a gateway whose grants `confirm` and
 * `approve`: `call --yes` confirms for a script, `call` without it declines and sends
 * nothing, an approval makes `call` exit 3 with its page, and `mcp-beaver approvals`
 * lists, approves and declines with the approver's key. Each case asserts what the
 * upstream received. The y/N prompt on a terminal is tested as a unit
 * (test/client/elicitation.test.ts): the house has no pseudo-terminal helper.
 */
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const AGENT_KEY = 'agent-key-5d1e8b7c';
const FINANCE_KEY = 'finance-key-2a9f4c3e';
const BOSS_KEY = 'boss-key-8e6b1d0a';

function spec(upstream: string): string {
  return `
wrap "cli-consent" version="1.0.0"
base-url "${upstream}"
access {
    api-key env="AGENT_KEY" scopes="orders:write payments:write"
    api-key env="FINANCE_KEY" scopes="payments:approve"
    api-key env="BOSS_KEY" scopes="payments:write payments:approve"
}
can delete order {
    describe "Delete one order."
    path "/orders/{id}" { id "integer" min=1 }
    confirm "Delete order {id}?"
}
can create refund {
    describe "Refund."
    path "/payments/{payment}/refunds" { payment "string" }
    body { amount "integer" required=#true min=1 }
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="15m"
}
`;
}

/** Each case runs the CLI up to seven times, a child process each: twice the default bound, for a busy machine. */
const SEVERAL_RUNS = { timeout: 120_000 };

let upstream: Upstream;
let gw: TestGateway;
let mcpUrl: string;

/** The CLI with every key in the environment, a bound on each request. */
function cli(args: string[]): Promise<CliResult> {
  return runCli([...args, '--timeout', '30s'], {
    env: { AGENT_KEY, FINANCE_KEY, BOSS_KEY },
  });
}

/** The pending approvals the key sees, as the API lists them. */
async function pending(keyEnv: string): Promise<{ id: string; message: string; own: boolean }[]> {
  const r = await cli(['approvals', gw.url, '--json', '--bearer-env', keyEnv]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { approvals: { id: string; message: string; own: boolean }[] })
    .approvals;
}

useGatewayOnUpstream(
  spec,
  {
    answer: answerJson(() => ({ done: true })),
    env: { AGENT_KEY, FINANCE_KEY, BOSS_KEY },
    forgetEach: true,
  },
  (s) => {
    ({ upstream, gw } = s);
    mcpUrl = `${gw.url}/mcp`;
  },
);

describe('call of a grant with confirm', SEVERAL_RUNS, () => {
  it('runs the call once with --yes, saying what it confirmed', async () => {
    const r = await cli([
      'call',
      mcpUrl,
      'delete_order',
      'id=42',
      '--yes',
      '--bearer-env',
      'AGENT_KEY',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: { done: true } });
    expect(r.stderr).toBe('Delete order 42?\nConfirmed (--yes).\n');
    expect(upstream.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['DELETE /orders/42']);
  });

  it('declines without a terminal and without --yes, sends nothing, and says why', async () => {
    const r = await cli(['call', mcpUrl, 'delete_order', 'id=42', '--bearer-env', 'AGENT_KEY']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Delete order 42?\n');
    expect(r.stderr).toContain('confirming needs a terminal to ask on, or --yes');
    expect(r.stderr).toContain('CONFIRMATION_DECLINED');
    expect(upstream.requests).toEqual([]);
  });
});

describe('call of a grant with approve, and mcp-beaver approvals', SEVERAL_RUNS, () => {
  it('exits 3 with the approval page; once approved, the same call runs once', async () => {
    const args = ['call', mcpUrl, 'create_refund', 'payment=pay_1', 'amount=500'];
    const first = await cli([...args, '--bearer-env', 'AGENT_KEY']);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stdout).toBe('');
    const [approval, ...others] = await pending('FINANCE_KEY');
    expect(others).toEqual([]);
    expect(approval).toMatchObject({ message: 'Refund 500 cents on payment pay_1', own: false });
    // The approval is told once: what is asked and its page (the URL question), then how
    // to go on; the result's text, which says both again, is not printed as well.
    expect(first.stderr).toBe(
      'Approval needed: Refund 500 cents on payment pay_1 (needs approval by someone holding payments:approve; open the link to see it)\n' +
        `  ${gw.url}/approvals/${approval!.id}\n` +
        'APPROVAL_REQUIRED: waiting for the approval above. Run the same command again once it is approved (exit 3 until then).\n',
    );
    expect(upstream.requests).toEqual([]);

    const table = await cli(['approvals', mcpUrl, '--bearer-env', 'FINANCE_KEY']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID +TOOL +MESSAGE +REQUESTED BY +EXPIRES\n/);
    expect(table.stdout).toContain(approval!.id);
    expect(table.stdout).toMatch(/create_refund +Refund 500 cents on payment pay_1 +\S+ +20\d\d-/);

    const yes = await cli([
      'approvals',
      gw.url,
      'approve',
      approval!.id,
      '--bearer-env',
      'FINANCE_KEY',
    ]);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toContain(`Approved ${approval!.id}: create_refund`);
    expect(await pending('FINANCE_KEY')).toEqual([]);

    const again = await cli([...args, '--bearer-env', 'AGENT_KEY']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ result: { done: true } });
    expect(upstream.requests.map((q) => `${q.method} ${q.path} ${q.body}`)).toEqual([
      'POST /payments/pay_1/refunds {"amount":500}',
    ]);
  });

  it('after a decline, the call is refused and nothing is sent', async () => {
    const args = [
      'call',
      mcpUrl,
      'create_refund',
      'payment=pay_2',
      'amount=700',
      '--bearer-env',
      'AGENT_KEY',
    ];
    expect((await cli(args)).code).toBe(3);
    const [approval] = await pending('FINANCE_KEY');
    const no = await cli([
      'approvals',
      gw.url,
      'decline',
      approval!.id,
      '--bearer-env',
      'FINANCE_KEY',
    ]);
    expect(no.code, no.stderr).toBe(0);
    expect(no.stdout).toContain(`Declined ${approval!.id}`);
    const again = await cli(args);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('APPROVAL_DECLINED');
    expect(upstream.requests).toEqual([]);
  });

  it('refuses to decide one’s own call with APPROVAL_OWN_CALL, exit 1', async () => {
    const call = [
      'call',
      mcpUrl,
      'create_refund',
      'payment=pay_3',
      'amount=900',
      '--bearer-env',
      'BOSS_KEY',
    ];
    expect((await cli(call)).code).toBe(3);
    const mine = (await pending('BOSS_KEY')).find((a) => a.message.includes('pay_3'));
    expect(mine).toMatchObject({ own: true });
    const table = await cli(['approvals', gw.url, '--bearer-env', 'BOSS_KEY']);
    expect(table.stdout).toContain('(yours)');
    const r = await cli(['approvals', gw.url, 'approve', mine!.id, '--bearer-env', 'BOSS_KEY']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^mcp-beaver: http:\/\/127\.0\.0\.1:\d+\/api\/approvals\/\S+: HTTP 403 APPROVAL_OWN_CALL: .+\n$/,
    );
    // Someone else declines it, so that it does not linger for the other tests.
    expect(
      (await cli(['approvals', gw.url, 'decline', mine!.id, '--bearer-env', 'FINANCE_KEY'])).code,
    ).toBe(0);
    expect(upstream.requests).toEqual([]);
  });

  it('names the code of other refusals: an unknown id, a key without the scope', async () => {
    const unknown = await cli([
      'approvals',
      gw.url,
      'approve',
      'nope',
      '--bearer-env',
      'FINANCE_KEY',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('HTTP 404 NOT_FOUND');
    const none = await cli(['approvals', gw.url]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('HTTP 401 UNAUTHENTICATED');
  });

  it('says apart a wrong command line: a decision without an id, an unknown word', async () => {
    const noId = await cli(['approvals', gw.url, 'approve']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain("approve: name the approval's id");
    const word = await cli(['approvals', gw.url, 'allow', 'x']);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('say approve <id> or decline <id>');
  });
});
