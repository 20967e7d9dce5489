/**
 * `auth exchange grant="on-behalf-of"`: Microsoft Entra ID's on-behalf-of flow, played by a
 * real OAuth server that answers the JWT bearer grant as Entra does (the caller's token as
 * `assertion`, `requested_token_use=on_behalf_of`, the API asked for by "<API>/.default"),
 * and an API that verifies every token. The upstream sees the caller, the caller's own
 * token never reaches it, and a refusal names the OAuth error with nothing sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenAuth } from '../../src/compiler/descriptor.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { formatDiagnostic } from '../../src/compiler/diagnostics.js';
import { openIdentity } from '../../src/engine/backends/upstream/upstream-identity.js';
import {
  call,
  startIdentityWorld,
  TICKETS,
  tokenCaller,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';
import type { WhoCalled } from '../helpers/token-checking-api.js';
import { JWT_BEARER } from '../helpers/oidc-provider.js';

let world: IdentityWorld;

beforeAll(async () => {
  world = await startIdentityWorld();
});

afterAll(async () => {
  await world?.close();
});

const auth = (scope = `${TICKETS}/.default`): TokenAuth & { kind: 'exchange' } => ({
  kind: 'exchange',
  tokenUrl: world.tokenUrl,
  clientIdEnv: 'X_ID',
  clientSecretEnv: 'X_SECRET',
  scope,
  grant: 'on-behalf-of',
});

const onBehalfOf = (): number =>
  world.provider.tokenRequests.filter((g) => g === JWT_BEARER).length;

describe('auth exchange grant="on-behalf-of" (Microsoft Entra ID)', () => {
  it('calls the upstream as the caller with the token the on-behalf-of grant returns', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const own = await world.provider.issueUserToken('dana', {
      audience: 'http://127.0.0.1/mcp',
      scope: 'openid tickets.read',
    });
    const before = onBehalfOf();
    const answer = await call(identity, `${world.tickets.url}/whoami`, tokenCaller('dana', own));
    if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`);
    expect(answer.status).toBe(200);
    const who = JSON.parse(answer.body) as WhoCalled;
    expect(who).toMatchObject({ sub: 'dana', aud: TICKETS, client_id: 'gateway-exchange' });
    expect(onBehalfOf() - before).toBe(1);
    // The caller's own token went to the provider only.
    expect(world.tickets.authorizations.at(-1)).not.toContain(own);
    // A second call is served from the cache.
    await call(identity, `${world.tickets.url}/whoami`, tokenCaller('dana', own));
    expect(onBehalfOf() - before).toBe(1);
  });

  it('answers UPSTREAM_AUTH with the OAuth error when the provider refuses the scope, and sends nothing upstream', async () => {
    const identity = await openIdentity(auth('https://nobody.example/.default'), {
      env: world.env,
      upstream: 'tickets',
    });
    const own = await world.provider.issueUserToken('dana', { audience: 'http://127.0.0.1/mcp' });
    const seen = world.tickets.authorizations.length;
    const answer = await call(identity, `${world.tickets.url}/whoami`, tokenCaller('dana', own));
    expect(answer.ok).toBe(false);
    const { error } = answer as { error: { code: string; details?: unknown } };
    expect(error.code).toBe('UPSTREAM_AUTH');
    expect(error.details).toEqual({ oauth_error: 'invalid_scope' });
    expect(world.tickets.authorizations.length).toBe(seen);
  });
});

describe('grant= of auth exchange in a spec', () => {
  const spec = (props: string): string => `wrap "obo" version="1"
access {
    oauth issuer="https://login.example" audience="https://gateway.example/mcp" jwks-uri="https://login.example/keys"
}
upstream "tickets" base-url="https://tickets.example" {
    auth exchange token-url="https://login.example/token" client-id-env="X_ID" client-secret-env="X_SECRET" ${props}
}
can get ticket {
    describe "One ticket."
    upstream "tickets"
    path "/tickets/{id}" {
        id "integer"
    }
}
`;
  /** Each error as `file:line:col: error CODE: message`, as `check` prints it. */
  const errorsOf = (text: string): string =>
    compileSpecText(text, 'obo.mcp.kdl')
      .diagnostics.filter((d) => d.severity === 'error')
      .map(formatDiagnostic)
      .join('\n');

  it('compiles grant="on-behalf-of" with a scope into the descriptor', () => {
    const { compiled } = compileSpecText(
      spec('grant="on-behalf-of" scope="api://tickets/.default"'),
      'obo.mcp.kdl',
    );
    expect(compiled!.upstreams[0]!.auth).toMatchObject({
      kind: 'exchange',
      grant: 'on-behalf-of',
      scope: 'api://tickets/.default',
    });
  });

  it('refuses an unknown grant, an audience with on-behalf-of, and on-behalf-of without a scope, each at its line', () => {
    expect(errorsOf(spec('grant="saml"'))).toMatch(
      /obo\.mcp\.kdl:6:\d+: error SPEC_VALUE_TYPE: .*grant="saml" is not known/,
    );
    expect(errorsOf(spec('grant="on-behalf-of" scope="api://t/.default" audience="x"'))).toMatch(
      /obo\.mcp\.kdl:6:\d+: error SPEC_VALUE_TYPE: .*not audience=/,
    );
    expect(errorsOf(spec('grant="on-behalf-of"'))).toMatch(
      /obo\.mcp\.kdl:6:\d+: error SPEC_MISSING: .*needs scope=/,
    );
  });
});
