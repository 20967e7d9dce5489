/**
 * What `serve --workers N` refuses to serve without Redis: grants whose state (rate-limit
 * counts, approvals, spent confirmation states) each worker would otherwise keep alone.
 */
import { describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { workersRefusal } from '../../src/server/workers/shared-state.js';

function spec(top: string, grant: string) {
  const { compiled, diagnostics } = compileSpecText(
    `wrap "s" version="1.0.0"
base-url "http://127.0.0.1:9"
${top}
can get plain {
    describe "Nothing to share."
    path "/plain"
}
can get held {
    describe "Maybe something to share."
    path "/held"
    ${grant}
}
`,
    'spec.mcp.kdl',
  );
  if (!compiled) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  return compiled;
}

describe('workers without Redis', () => {
  it('refuses a rate-limited grant, naming it, its line, the code and limits redis-env', () => {
    const why = workersRefusal(spec('', 'rate-limit "5/m"'), 2);
    expect(why).toMatch(/^WORKERS_NEED_REDIS: --workers 2 runs 2 processes/);
    expect(why).toContain('rate-limit counts (grant "get_held" at line 8)');
    expect(why).toContain('a caller would get 2 times its rate limit');
    expect(why).toContain('Add `limits redis-env="REDIS_URL"`');
  });

  it('refuses a spec with access sign-in, for its spent codes and refresh tokens', () => {
    const why = workersRefusal(
      spec(
        `access token-key-env="TK" {
    sign-in issuer="https://idp.example" client-id-env="ID" client-secret-env="SECRET"
}`,
        '',
      ),
      2,
    );
    expect(why).toMatch(/^WORKERS_NEED_REDIS: --workers 2/);
    expect(why).toContain('spent sign-in codes and refresh tokens (access sign-in)');
    expect(
      workersRefusal(
        spec(
          `limits redis-env="R"
access token-key-env="TK" {
    sign-in issuer="https://idp.example" client-id-env="ID" client-secret-env="SECRET"
}`,
          '',
        ),
        2,
      ),
    ).toBeUndefined();
  });

  it('refuses a grant with confirm, for its spent confirmation states', () => {
    const why = workersRefusal(spec('', 'confirm "Really?"'), 3);
    expect(why).toContain(
      'pending approvals and confirmations, spent confirmation states and open 2025-era questions (grant "get_held"',
    );
  });

  it('serves a spec with no such grant, one worker of any spec, and any spec with redis-env', () => {
    expect(workersRefusal(spec('', ''), 4)).toBeUndefined();
    expect(workersRefusal(spec('', 'rate-limit "5/m"'), 1)).toBeUndefined();
    expect(
      workersRefusal(spec('limits redis-env="REDIS_URL"', 'rate-limit "5/m"'), 4),
    ).toBeUndefined();
  });
});
