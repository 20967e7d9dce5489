/**
 * Issue 41 across processes: two `mcp-beaver serve` processes on one Redis (`limits
 * redis-env`) and one sealing key. A 2025-era client initializes on one, is asked on a
 * call to that one, and POSTs its answer to the other: the other answers 202 and the
 * call runs once on the first; a second answer, to either, is refused. And SIGTERM to the
 * asking process answers its open question on the stream and sends nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_KEY, CONFIRM_KEY, consentSpec, KEYS_ENV } from '../helpers/consent.js';
import { serveProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useUpstream } from '../helpers/upstream-fixtures.js';
import { answerRaw, initializeRaw, sseEvents, toolsCallRaw } from '../helpers/legacy-asking.js';

const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();

interface ToolResponse {
  result: { isError?: boolean; content: { text: string }[] };
}

let upstream: Upstream;
useUpstream(okJson, (u) => (upstream = u));
const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path}`);

describe.skipIf(
  skipBecause(
    NO_SHARED_REDIS !== undefined,
    `confirm-legacy-replicas.test.ts, Redis: ${NO_SHARED_REDIS}`,
  ),
)('two gateway processes sharing Redis and CONFIRM_KEY', () => {
  let dir: string;
  let a: GatewayProcess;
  let b: GatewayProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpb-confirm-replicas-'));
    const file = join(dir, 'consent.mcp.kdl');
    writeFileSync(file, consentSpec(upstream.url, { extra: 'limits redis-env="REDIS_URL"' }));
    const env = { ...KEYS_ENV, CONFIRM_KEY, REDIS_URL: SHARED_REDIS! };
    [a, b] = await Promise.all([serveProcess(file, env), serveProcess(file, env)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes the answer on the other replica (202) and runs the call once on the asking one', async () => {
    const session = await initializeRaw(a.url, AGENT_KEY);
    const events = sseEvents(
      await toolsCallRaw(a.url, AGENT_KEY, session!, 'delete_payment', { payment: 61 }),
    );
    const question = (await events.next()) as { id: string; method: string };
    expect(question.method).toBe('elicitation/create');
    const answer = {
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    };
    // The session id opens on the other replica too: it holds the same key.
    const taken = await answerRaw(b.url, AGENT_KEY, session!, answer);
    expect(taken.status).toBe(202);
    const response = (await events.next()) as ToolResponse;
    expect(response.result.isError).toBe(false);
    expect(sent()).toEqual(['DELETE /payments/61']);
    for (const replica of [a, b]) {
      const again = await answerRaw(replica.url, AGENT_KEY, session!, answer);
      expect(again.status).toBe(400);
    }
    expect(sent()).toEqual(['DELETE /payments/61']);
  });

  it('refuses on the other replica an answer whose question is not open anywhere', async () => {
    const res = await answerRaw(b.url, AGENT_KEY, undefined, {
      id: 'never-asked-0123456789abcdef',
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(res.status).toBe(400);
    expect(sent()).toEqual([]);
  });
});

describe('SIGTERM to a gateway process with a question open', () => {
  let dir: string;

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the question on its stream that the gateway is shutting down, sends nothing, and exits', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpb-confirm-drain-'));
    const file = join(dir, 'consent.mcp.kdl');
    writeFileSync(file, consentSpec(upstream.url));
    const gw = await serveProcess(file, { ...KEYS_ENV, CONFIRM_KEY });
    try {
      const session = await initializeRaw(gw.url, AGENT_KEY);
      const events = sseEvents(
        await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', { payment: 62 }),
      );
      expect(await events.next()).toMatchObject({ method: 'elicitation/create' });
      const exited = new Promise((resolve) => gw.child.once('exit', resolve));
      gw.child.kill('SIGTERM');
      const response = (await events.next()) as ToolResponse;
      expect(response.result.isError).toBe(true);
      expect(response.result.content[0]!.text).toMatch(
        /^DRAINING: the gateway is shutting down; nothing was sent/,
      );
      await exited;
      expect(gw.log()).toContain('"reason":"the gateway shut down"');
    } finally {
      await gw.stop();
    }
    expect(sent()).toEqual([]);
  }, 120_000);
});
