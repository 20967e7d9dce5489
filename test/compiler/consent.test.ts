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
    confirm "Delete order {id}? This cannot be undone." clients="eliciting"
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
    confirm "Delete customer {id}?" clients="eliciting"
}
can update ticket {
    describe "d"
    tool "tracker" "update_ticket"
    args { ticket "string" required=#true }
    confirm "Close {ticket}?" clients="eliciting"
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

describe('a confirm that only clients declaring elicitation can answer', () => {
  const grant = (consent: string) => `access {
    api-key env="AGENT_KEY" scopes="orders:write orders:approve"
}
can delete order {
    describe "d"
    path "/orders/{id}" { id "integer" }
    ${consent}
}
`;

  it('is warned about at the confirm, with both fixes, and the spec still loads', () => {
    const { compiled, diagnostics } = compile(grant('confirm "Delete order {id}?"'));
    expect(compiled).toBeDefined();
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'SPEC_CONFIRM_CLIENTS',
        file: FILE,
        line: 9,
        column: 5,
        message:
          'grant delete_order: confirm: only clients that declare elicitation can call this tool; REST, the catalog page and MCP clients without elicitation get CONFIRMATION_UNAVAILABLE. Add `approve "<message>" by="<scope>"` to the grant so someone else can say yes for them, or write clients="eliciting" on confirm if that is meant',
      },
    ]);
  });

  it('is not warned about when clients="eliciting" says so, and the note changes nothing served', () => {
    const noted = compile(grant('confirm "Delete order {id}?" clients="eliciting"'));
    expect(noted.diagnostics).toEqual([]);
    const plain = compile(grant('confirm "Delete order {id}?"'));
    expect(noted.compiled!.tools[0]!.consent).toEqual(plain.compiled!.tools[0]!.consent);
    expect(noted.compiled!.tools[0]!.description).toBe(plain.compiled!.tools[0]!.description);
  });

  it('is not warned about when approve lets someone else say yes for the other clients', () => {
    const { diagnostics } = compile(
      grant('confirm "Delete order {id}?"\n    approve "Delete order {id}" by="orders:approve"'),
    );
    expect(diagnostics).toEqual([]);
  });

  it('warns at clients= when approve beside it lets every other client call the tool too', () => {
    const { compiled, diagnostics } = compile(
      grant(
        'confirm "Delete order {id}?" clients="eliciting"\n    approve "Delete order {id}" by="orders:approve"',
      ),
    );
    expect(compiled).toBeDefined();
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'SPEC_CONFIRM_CLIENTS',
        file: FILE,
        line: 9,
        column: 34,
        message:
          'grant delete_order: confirm: clients="eliciting" says only clients that declare elicitation call this tool, but `approve` lets every other client call it once approved: remove clients= (or approve)',
      },
    ]);
  });
});

describe('the description of a consent grant ends with a sentence saying who is asked', () => {
  const described = (text: string, name: string) => tool(ACCESS + text, name).description;

  it('says a confirm grant asks its user', () => {
    expect(described(GRANTS, 'delete_order')).toBe('d Asks its user to confirm before it runs.');
  });

  it('says an approve grant waits for someone holding its scope', () => {
    expect(described(GRANTS, 'create_refund')).toBe(
      'd Runs only after someone holding payments:approve approves it.',
    );
  });

  it('says both in one sentence when the grant has both', () => {
    expect(described(GRANTS, 'cancel_order')).toBe(
      'd Asks its user to confirm, and runs only after someone holding payments:approve approves it.',
    );
  });

  it('puts it after what shaping keeps, and is the whole description without describe', () => {
    const text = `
can delete order {
    path "/orders/{id}" { id "integer" }
    pick "id"
    confirm "Delete order {id}?" clients="eliciting"
}
`;
    const { compiled } = compile(ACCESS + text);
    expect(compiled!.tools[0]!.description).toBe(
      'The result keeps only these fields: id. Asks its user to confirm before it runs.',
    );
    const bare = text.replace('    pick "id"\n', '');
    expect(compile(ACCESS + bare).compiled!.tools[0]!.description).toBe(
      'Asks its user to confirm before it runs.',
    );
  });

  it('leaves the description of a grant without consent as written', () => {
    expect(described(GRANTS, 'get_order')).toBe('d');
  });
});
