/**
 * `mcp-beaver tools <toolset URL>` (spec-language.md, "Served at `/mcp/<toolset>`"),
 * run as a user would (the real CLI in a child process) against the gateway in each era:
 * what an agent registered at the toolset URL sees, its members only, and no resource or
 * prompt list where the toolset has none.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { FULL_KEY, KEYS_ENV, TRIAGE_TOOLS, toolsetsSpec } from '../helpers/toolsets-spec.js';

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(
  (url) => toolsetsSpec({ upstream: url }),
  { answer: okJson, env: KEYS_ENV },
  (s) => ({ upstream, gw } = s),
);

/** `tools <url>` with the key in TOOLSETS_TOKEN and a bound on each request. */
function tools(url: string, era: string, ...more: string[]): Promise<CliResult> {
  return runCli(
    ['tools', url, '--bearer-env', 'TOOLSETS_TOKEN', '--era', era, '--timeout', '30s', ...more],
    { env: { TOOLSETS_TOKEN: FULL_KEY } },
  );
}

describe.each(['modern', 'legacy'])('mcp-beaver tools <toolset URL> --era %s', (era) => {
  it('lists only the members of the toolset, with its resources and prompts', async () => {
    const r = await tools(`${gw.url}/mcp/triage`, era, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as {
      tools: { name: string }[];
      resources: { uri: string }[];
      resourceTemplates: { uriTemplate: string }[];
      prompts: { name: string }[];
    };
    expect(listed.tools.map((t) => t.name)).toEqual(TRIAGE_TOOLS);
    expect(listed.resources.map((x) => x.uri)).toEqual(['docs://handbook']);
    expect(listed.resourceTemplates.map((x) => x.uriTemplate)).toEqual([
      'helpdesk://customers/{id}',
    ]);
    expect(listed.prompts.map((x) => x.name)).toEqual(['triage-ticket']);
  });

  it('prints one line per member tool, and asks a toolset without resources for none', async () => {
    const r = await tools(`${gw.url}/mcp/billing`, era);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^get_invoice +Get invoice +read-only idempotent open-world\n$/);
  });

  it('fails with exit 2 and one line naming the URL for a name that is no toolset', async () => {
    const r = await tools(`${gw.url}/mcp/shipping`, era);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^mcp-beaver: ${gw.url}/mcp/shipping: `));
    // Pinned to 2026-07-28 the SDK says only that server/discover offered no version;
    // the line gives the status and the gateway's reason instead, in both eras.
    expect(r.stderr).toContain(
      'HTTP 404 Not Found: NOT_FOUND: nothing is served at POST /mcp/shipping',
    );
  });
});

describe('mcp-beaver tools <spec> --toolset', () => {
  let file: string;
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'toolset-tools-'));
    file = join(dir, 'toolsets.mcp.kdl');
    writeFileSync(file, toolsetsSpec({ upstream: upstream.url }));
  });

  it('prints what the toolset URL serves: its tools/list byte for byte, and its resources and prompts', async () => {
    const r = await runCli(['tools', file, '--toolset', 'triage', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const fromSpec = JSON.parse(r.stdout) as Record<string, unknown>;
    const served = await tools(`${gw.url}/mcp/triage`, 'legacy', '--json');
    expect(served.code).toBe(0);
    expect(fromSpec).toEqual(JSON.parse(served.stdout));
    expect((fromSpec.tools as { name: string }[]).map((t) => t.name)).toEqual(TRIAGE_TOOLS);
  });

  it('refuses a name the spec has no toolset of, naming those it has (exit 1)', async () => {
    const r = await runCli(['tools', file, '--toolset', 'shipping']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `mcp-beaver tools: ${file} has no toolset "shipping" (its toolsets: triage, billing)\n`,
    );
  });

  it('is refused with a URL, which names its toolset in its path (exit 2)', async () => {
    const r = await runCli(['tools', `${gw.url}/mcp`, '--toolset', 'triage']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--toolset applies to a spec; for a server, give the toolset URL');
  });
});
