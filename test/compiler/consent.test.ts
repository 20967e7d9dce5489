import { describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';

// `confirm` and `approve` on a grant, `confirm-key-env` on access (issue 29): what a
// clean spec lowers into the descriptors, and the one warning about who could approve.
// The refusals are rows of bad-specs.test.ts.

const FILE = 'consent.mcp.kdl';

const ACCESS = `access confirm-key-env="CONFIRM_KEY" {
    api-key env="AGENT_KEY" scopes="orders:write payments:write"
    api-key env="FINANCE_KEY" scopes="payments:approve"
}
`;

const GRANTS = `
can delete order {
    describe "d"
    path "/orders/{id}" { id "integer" min=1 }
    confirm "Delete order {id}? This cannot be undone."
}
can create refund {
    describe "d"
    path "/payments/{payment}/refunds" { payment "string" }
    body { amount "integer" required=#true min=1 }
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="15m"
}
can cancel order {
    describe "d"
    path "/orders/{id}/cancel" { id "integer" }
    confirm "Cancel {id}?"
    approve "Cancel order {id}, {unknown brace} kept" by="payments:approve"
}
can get order {
    describe "d"
    path "/orders/{id}" { id "integer" }
}
`;

function compile(text: string) {
  return compileSpecText(`wrap "t" version="1"\nbase-url "https://api.example.com"\n${text}`, FILE);
}

function tool(text: string, name: string) {
  const { compiled, diagnostics } = compile(text);
  expect(diagnostics).toEqual([]);
  return compiled!.tools.find((t) => t.name === name)!;
}

describe('confirm and approve lower into the tool descriptor', () => {
  it('gives a confirm its message as written and split at its placeholders', () => {
    expect(tool(ACCESS + GRANTS, 'delete_order').consent).toEqual({
      confirm: {
        message: {
          text: 'Delete order {id}? This cannot be undone.',
          parts: [
            { literal: 'Delete order ' },
            { argument: 'id' },
            { literal: '? This cannot be undone.' },
          ],
        },
      },
    });
  });

  it('gives an approve its message, its scope and its expiry in milliseconds', () => {
    expect(tool(ACCESS + GRANTS, 'create_refund').consent).toEqual({
      approve: {
        message: {
          text: 'Refund {amount} cents on payment {payment}',
          parts: [
            { literal: 'Refund ' },
            { argument: 'amount' },
            { literal: ' cents on payment ' },
            { argument: 'payment' },
          ],
        },
        scope: 'payments:approve',
        expiresMs: 15 * 60_000,
      },
    });
  });

  it('keeps both on one grant, an approve without expires= lasting an hour', () => {
    const consent = tool(ACCESS + GRANTS, 'cancel_order').consent;
    expect(consent?.confirm?.message.parts).toEqual([
      { literal: 'Cancel ' },
      { argument: 'id' },
      { literal: '?' },
    ]);
    expect(consent?.approve).toEqual({
      message: {
        text: 'Cancel order {id}, {unknown brace} kept',
        parts: [
          { literal: 'Cancel order ' },
          { argument: 'id' },
          { literal: ', {unknown brace} kept' },
        ],
      },
      scope: 'payments:approve',
      expiresMs: 3_600_000,
    });
  });

  it('leaves consent out of a grant with neither', () => {
    expect('consent' in tool(ACCESS + GRANTS, 'get_order')).toBe(false);
  });

  it('freezes the consent with the rest of the descriptor', () => {
    const consent = tool(ACCESS + GRANTS, 'cancel_order').consent!;
    expect(Object.isFrozen(consent.approve!.message.parts[1])).toBe(true);
  });

  it('accepts placeholders naming sql params and MCP arguments', () => {
    const { compiled, diagnostics } = compileSpecText(
      `wrap "t" version="1"
database env="DATABASE_URL"
mcp-server "tracker" url="https://tracker.example.com/mcp"
can delete customer {
    describe "d"
    sql "DELETE FROM customers WHERE id = $1"
    params { id "integer" }
    confirm "Delete customer {id}?"
}
can update ticket {
    describe "d"
    tool "tracker" "update_ticket"
    args { ticket "string" required=#true }
    confirm "Close {ticket}?"
}
`,
      FILE,
    );
    expect(diagnostics).toEqual([]);
    expect(compiled!.tools.map((t) => t.consent?.confirm?.message.parts[1])).toEqual([
      { argument: 'id' },
      { argument: 'ticket' },
    ]);
  });
});

describe('access confirm-key-env', () => {
  it('lowers into the access descriptor', () => {
    const { compiled } = compile(ACCESS + GRANTS);
    expect(compiled!.access?.confirmKeyEnv).toBe('CONFIRM_KEY');
  });

  it('is optional: a confirm without it, or without access at all, loads without a word', () => {
    const plain = ACCESS.replace(' confirm-key-env="CONFIRM_KEY"', '');
    const confirmOnly = GRANTS.slice(0, GRANTS.indexOf('can create refund'));
    for (const text of [plain + confirmOnly, confirmOnly]) {
      const { compiled, diagnostics } = compile(text);
      expect(diagnostics).toEqual([]);
      expect(compiled!.access?.confirmKeyEnv).toBeUndefined();
    }
  });
});

describe('an approve nobody could give', () => {
  const refund = `
can create refund {
    describe "d"
    path "/payments/{payment}/refunds" { payment "string" }
    approve "Refund on {payment}" by="payments:approve"
}
`;

  it('is warned about, at by=, when no api-key holds the scope and there is no oauth', () => {
    const { compiled, diagnostics } = compile(
      `access {\n    api-key env="AGENT_KEY" scopes="payments:write"\n}\n${refund}`,
    );
    expect(compiled).toBeDefined();
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'SPEC_NO_APPROVER',
        file: FILE,
        line: 10,
        column: 35,
        message:
          'grant create_refund: approve: no api-key in access holds payments:approve and there is no oauth: nobody could approve',
      },
    ]);
  });

  it('is not warned about when oauth can issue the scope', () => {
    const { diagnostics } = compile(
      `access {\n    oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"\n}\n${refund}`,
    );
    expect(diagnostics).toEqual([]);
  });
});
