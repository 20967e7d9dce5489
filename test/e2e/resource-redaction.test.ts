/**
 * Fixed resources (`text=` and `file`) leave the gateway redacted like every result: an
 * operator's document that quotes the upstream credential (a runbook pasting the token)
 * must not hand it to agents. Both surfaces, and the prompts that embed the resources.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { leaksIn } from '../helpers/leaks.js';

const TOKEN = 'upstream-token-4f9a1c2e77';

const SPEC = `
wrap "redacted-docs" version="1"
base-url "http://127.0.0.1:9/api"
auth bearer env="UPSTREAM_TOKEN"
can get ticket {
    describe "Get one ticket."
    path "/tickets/{id}" {
        id "integer" min=1
    }
}
resource "docs://inline" text="Call with Bearer ${TOKEN} if asked."
resource "docs://runbook" file="runbook.md"
resource "docs://dump" file="dump.bin"
prompt "runbook" {
    message "user" "Follow the runbook; the token is ${TOKEN}."
    message "user" resource="docs://runbook"
    message "user" resource="docs://inline"
}
`;

let folder: string;
let gw: TestGateway;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'beaver-resource-redaction-'));
  writeFileSync(join(folder, 'runbook.md'), `# Runbook\n\nexport TOKEN=${TOKEN}\n`);
  // A binary blob with the token's bytes inside, between bytes that are no UTF-8.
  writeFileSync(
    join(folder, 'dump.bin'),
    Buffer.concat([Buffer.from([0xff, 0x00, 0x81]), Buffer.from(TOKEN), Buffer.from([0xfe])]),
  );
  const file = join(folder, 'spec.mcp.kdl');
  gw = await startGateway(SPEC, { file, env: { UPSTREAM_TOKEN: TOKEN } });
});

afterAll(async () => {
  await gw?.close();
  rmSync(folder, { recursive: true, force: true });
});

const mcp = (method: string, params: Record<string, unknown>) =>
  postJson(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method, params });

/** The bytes of every base64 `blob` in a reply (MCP's result, or REST's body). */
function decodedBlobs(reply: string): Buffer[] {
  const out: Buffer[] = [];
  JSON.stringify(JSON.parse(reply), (key, v: unknown) => {
    if (key === 'blob' && typeof v === 'string') out.push(Buffer.from(v, 'base64'));
    return v;
  });
  return out;
}

describe('fixed resources quoting the upstream credential', () => {
  for (const uri of ['docs://inline', 'docs://runbook', 'docs://dump']) {
    it(`serves ${uri} redacted on MCP resources/read and REST /api/resources/read`, async () => {
      const viaMcp = await mcp('resources/read', { uri });
      const viaRest = await postJson(`${gw.url}/api/resources/read`, { uri });
      expect(viaMcp.status).toBe(200);
      expect(viaRest.status).toBe(200);
      for (const reply of [viaMcp.text, viaRest.text]) {
        expect(leaksIn(reply, [TOKEN])).toEqual([]);
        expect(decodedBlobs(reply).some((b) => b.includes(TOKEN))).toBe(false);
      }
    });
  }

  it('keeps the text around the credential, with [REDACTED] in its place', async () => {
    const r = await postJson(`${gw.url}/api/resources/read`, { uri: 'docs://runbook' });
    expect((r.json as { contents: { text: string }[] }).contents[0]!.text).toBe(
      '# Runbook\n\nexport TOKEN=[REDACTED]\n',
    );
    const blob = await postJson(`${gw.url}/api/resources/read`, { uri: 'docs://dump' });
    const bytes = Buffer.from(
      (blob.json as { contents: { blob: string }[] }).contents[0]!.blob,
      'base64',
    );
    // The bytes around the credential are kept as they were.
    expect(bytes).toEqual(
      Buffer.concat([
        Buffer.from([0xff, 0x00, 0x81]),
        Buffer.from('[REDACTED]'),
        Buffer.from([0xfe]),
      ]),
    );
  });

  it('gets a prompt embedding them redacted, on MCP prompts/get and REST /api/prompts/get', async () => {
    const viaMcp = await mcp('prompts/get', { name: 'runbook' });
    const viaRest = await postJson(`${gw.url}/api/prompts/get`, { name: 'runbook' });
    expect(viaMcp.status).toBe(200);
    expect(viaRest.status).toBe(200);
    expect(viaRest.text).toContain('[REDACTED]');
    for (const reply of [viaMcp.text, viaRest.text]) expect(leaksIn(reply, [TOKEN])).toEqual([]);
  });

  it('writes no spelling of the credential to the log', () => {
    expect(leaksIn(gw.logs(), [TOKEN])).toEqual([]);
  });
});
