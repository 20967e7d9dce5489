import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  INSPECTOR_NODE,
  INSPECTOR_VERSION,
  inspectorLines,
  nodeAtLeast,
} from '../../src/cli/inspector-lines.js';

const MCP_URL = 'http://127.0.0.1:8080/mcp';
const KEY = 'agent-0123';

describe("the demo banner's MCP Inspector lines", () => {
  it('on a Node the Inspector runs on, give the pinned Inspector with the key', () => {
    const lines = inspectorLines(MCP_URL, 'DEMO_AGENT_KEY', KEY, '24.11.0');
    expect(lines).toEqual([
      '  Or from an MCP client (MCP Inspector: transport "Streamable HTTP", URL above), e.g.',
      `    npx @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${MCP_URL} --transport http --header "Authorization: Bearer ${KEY}" --method tools/list`,
      `    npx @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${MCP_URL} --transport http --header "Authorization: Bearer ${KEY}" --method prompts/get --prompt-name triage-ticket --prompt-args id=1`,
    ]);
  });

  it("on Node 20, say the Node the Inspector needs and give the same requests with mcp-beaver's own client", () => {
    const text = inspectorLines(MCP_URL, 'DEMO_AGENT_KEY', KEY, '20.20.2').join('\n');
    expect(text).toContain("The MCP Inspector's CLI needs Node >= 22.19 (this is Node 20.20.2,");
    expect(text).toContain(
      `npx @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${MCP_URL}`,
    );
    expect(text).toContain(
      `    DEMO_AGENT_KEY=${KEY} npx mcp-beaver tools ${MCP_URL} --bearer-env DEMO_AGENT_KEY\n`,
    );
    expect(text).toMatch(
      new RegExp(
        ` {4}DEMO_AGENT_KEY=${KEY} npx mcp-beaver prompt ${MCP_URL} triage-ticket id=1 --bearer-env DEMO_AGENT_KEY$`,
      ),
    );
  });

  it('holds below the oldest Node the pinned Inspector declares, and from it on', () => {
    expect(INSPECTOR_NODE).toBe('22.19.0');
    expect(nodeAtLeast('22.18.9', INSPECTOR_NODE)).toBe(false);
    expect(nodeAtLeast('22.13.0', INSPECTOR_NODE)).toBe(false);
    expect(nodeAtLeast('22.19.0', INSPECTOR_NODE)).toBe(true);
    expect(nodeAtLeast('22.20.1', INSPECTOR_NODE)).toBe(true);
    expect(nodeAtLeast('23.0.0', INSPECTOR_NODE)).toBe(true);
  });

  it('pins the Inspector that `npm run check:inspector` runs in CI', () => {
    const script = readFileSync(
      new URL('../../scripts/inspector-strict.sh', import.meta.url),
      'utf8',
    );
    expect(script).toContain(`\nINSPECTOR_VERSION=${INSPECTOR_VERSION}\n`);
  });
});
