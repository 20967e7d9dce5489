/**
 * A toolset URL through the MCP Inspector CLI, a real third-party client of the 2025 era
 * (spec-language.md, "Served at `/mcp/<toolset>`"): it lists only the members, a member
 * call runs once upstream, and a non-member is not offered, so nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { hasInspector, runInspector } from '../helpers/inspector-cli.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { FULL_KEY, KEYS_ENV, TRIAGE_TOOLS, toolsetsSpec } from '../helpers/toolsets-spec.js';

describe.skipIf(
  skipBecause(
    !hasInspector,
    'the MCP Inspector CLI is not installed yet (npm run check:inspector installs it; CI runs this file on Node 24 after that step)',
  ),
)('the MCP Inspector CLI at a toolset URL', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  // The Inspector guesses the transport only from a URL ending in /mcp (or /sse): a
  // toolset URL names it.
  const auth = ['--transport', 'http', '--header', `Authorization: Bearer ${FULL_KEY}`];

  useGatewayOnUpstream(
    (url) => toolsetsSpec({ upstream: url }),
    {
      answer: answerJson((req) => ({ path: req.path })),
      env: KEYS_ENV,
    },
    (s) => ({ upstream, gw } = s),
  );

  it('lists only the members of the toolset, in spec order', async () => {
    const run = await runInspector(`${gw.url}/mcp/triage`, [...auth, '--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const { tools } = JSON.parse(run.stdout) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(TRIAGE_TOOLS);
  });

  it('lists only the member resources', async () => {
    const run = await runInspector(`${gw.url}/mcp/triage`, [...auth, '--method', 'resources/list']);
    expect(run.code, run.stderr).toBe(0);
    const { resources } = JSON.parse(run.stdout) as { resources: { uri: string }[] };
    expect(resources.map((r) => r.uri)).toEqual(['docs://handbook']);
  });

  it('calls a member once upstream, and finds no non-member to call, sending nothing', async () => {
    const member = await runInspector(`${gw.url}/mcp/triage`, [
      ...auth,
      '--method',
      'tools/call',
      '--tool-name',
      'get_ticket',
      '--tool-arg',
      'id=6',
    ]);
    expect(member.code, member.stderr).toBe(0);
    expect(member.stdout).toContain('/api/tickets/6');
    expect(upstream.requests.map((r) => r.path)).toEqual(['/api/tickets/6']);

    const other = await runInspector(`${gw.url}/mcp/triage`, [
      ...auth,
      '--method',
      'tools/call',
      '--tool-name',
      'get_customer',
      '--tool-arg',
      'id=6',
    ]);
    // The Inspector looks the name up in tools/list first (its refusal on stderr): a
    // non-member is not offered.
    expect(other.code).not.toBe(0);
    expect(JSON.parse(other.stderr)).toEqual({
      error: { code: 'tool_not_found', message: "Tool 'get_customer' not found on server." },
    });
    expect(upstream.requests).toHaveLength(1);
  });
});
