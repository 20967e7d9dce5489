/**
 * AUTHORIZATION_REQUIRED to a 2025-11-25 session that declared URL elicitation: the
 * URL-elicitation-required error (-32042) whose elicitation is the connect link, as the
 * approval page is put to such a session. The session's capabilities are sealed in its
 * id, which a spec with `confirm` issues (the consent key seals it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { initializeRaw, toolsCallRaw } from '../helpers/legacy-asking.js';
import {
  CAROL_KEY,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

/** The JSON-RPC message of an answer sent as JSON or as one SSE event. */
async function messageOf(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const data = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('')
    : text;
  return JSON.parse(data) as Record<string, unknown>;
}

describe('a 2025-11-25 session that declared URL elicitation, without a connected account', () => {
  let world: ConnectionsWorld;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    const spec = world
      .spec()
      .replace(
        'access token-key-env="TOKEN_KEY" {',
        'access token-key-env="TOKEN_KEY" confirm-key-env="CONFIRM_KEY" {',
      ).concat(`can delete issue {
    describe "Delete one issue."
    upstream "tracker"
    path "/issues/{id}" { id "integer" min=1 }
    confirm "Delete issue {id}?"
}
`);
    gw = await startGateway(spec, { env: { ...world.env, CONFIRM_KEY: 'c4'.repeat(32) } });
  });
  afterAll(async () => {
    await gw?.close();
    await world?.close();
  });

  it('is answered -32042 with the connect link as its URL elicitation, and nothing is sent', async () => {
    const session = await initializeRaw(gw.url, CAROL_KEY, { elicitation: { url: {} } });
    expect(session).toBeTruthy();
    const before = world.api.requests.length;
    const res = await toolsCallRaw(gw.url, CAROL_KEY, session!, 'read_whoami', {});
    expect(res.status).toBe(200);
    const message = await messageOf(res);
    const error = message.error as {
      code: number;
      message: string;
      data: { elicitations: { mode: string; url: string; elicitationId: string }[]; code: string };
    };
    expect(error.code).toBe(-32042);
    expect(error.data.code).toBe('AUTHORIZATION_REQUIRED');
    const [elicitation] = error.data.elicitations;
    expect(elicitation!.mode).toBe('url');
    expect(elicitation!.url).toMatch(new RegExp(`^${gw.url}/connect/tracker/[A-Za-z0-9_-]+$`));
    expect(elicitation!.elicitationId).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(world.api.requests.length).toBe(before);
  });

  it('is answered the error result with the code and the link when the session declared no URL elicitation', async () => {
    const session = await initializeRaw(gw.url, CAROL_KEY, { elicitation: { form: {} } });
    const res = await toolsCallRaw(gw.url, CAROL_KEY, session ?? undefined, 'read_whoami', {});
    const message = await messageOf(res);
    const result = message.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content.map((c) => c.text).join('\n')).toContain('AUTHORIZATION_REQUIRED');
  });
});
