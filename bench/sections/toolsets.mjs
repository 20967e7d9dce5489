// Section 12 of `npm run bench`: tools/list on a toolset URL against /mcp (issue 31). One
// gateway serves specs/github-issues.mcp.kdl with a toolset holding every tool (`all`:
// the same bytes as /mcp, so the ratio is the cost of the route and the toolset lookup
// alone) and one of three tools (`triage`: a smaller list, for scale), behind an API
// key holding every scope, so that every list is a caller's scope view of every tool.
// The floor is /mcp's tools/list on the same gateway in the same era; the target is
// within 5% (≥ 0.95) of it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { legacyRequest, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { groupTable, runGroup, verify } from './group.mjs';

const KEY = 'bench-toolsets-key-0123456789';
const TOOLS = /"tools":\[/;

function writeSpec(ctx, work) {
  const base = readFileSync(join(ctx.root, 'specs', 'github-issues.mcp.kdl'), 'utf8');
  const file = join(work, 'toolsets.mcp.kdl');
  writeFileSync(
    file,
    `${base}
access {
    api-key env="BENCH_KEY" scopes="issues:write contents:write issues:admin"
}
toolset "all" {
    describe "Every tool of the spec."
    tools "*"
}
toolset "triage" {
    tools "list_issues" "get_issue" "create_issue_comment"
}
`,
  );
  return file;
}

/** `request` sent to `/mcp/<toolset>` (or /mcp) with the bench key. */
function at(request, toolset) {
  return {
    ...request,
    url: toolset === undefined ? request.url : `${request.url}/${toolset}`,
    headers: { ...request.headers, authorization: `Bearer ${KEY}` },
  };
}

async function run(ctx, { work }) {
  const gw = await ctx.startGateway(writeSpec(ctx, work), {
    env: { GITHUB_TOKEN: 'bench-token', BENCH_KEY: KEY },
  });
  try {
    const groups = {};
    for (const [era, make] of [
      ['modern', modernRequest],
      ['legacy', legacyRequest],
    ]) {
      const request = make(gw.url, 'tools/list');
      const whole = { name: `/mcp tools/list (${era})`, pid: gw.child.pid, request: at(request) };
      const all = at(request, 'all');
      const mcpBody = await verify({ ...whole, expect: TOOLS });
      const allBody = await verify({ name: 'all', request: all, expect: TOOLS });
      // The same tools in the same order: the two lists differ in nothing but the route.
      if (
        JSON.stringify(JSON.parse(allBody).result.tools) !==
        JSON.stringify(JSON.parse(mcpBody).result.tools)
      )
        throw new Error('the toolset "all" does not list exactly /mcp\'s tools');
      groups[era] = {
        tools: JSON.parse(mcpBody).result.tools.length,
        bytes: Buffer.byteLength(mcpBody),
        results: await runGroup(ctx, `toolsets ${era}`, { ...whole, expect: TOOLS }, [
          {
            name: `/mcp/all tools/list (${era}, every tool)`,
            pid: gw.child.pid,
            request: all,
            expect: TOOLS,
            target: 0.95,
          },
          {
            name: `/mcp/triage tools/list (${era}, 3 tools)`,
            pid: gw.child.pid,
            request: at(request, 'triage'),
            expect: TOOLS,
            reference: true,
          },
        ]),
      };
    }
    return { spec: 'specs/github-issues.mcp.kdl + toolsets', groups };
  } finally {
    await stop(gw.child);
  }
}

function report(s) {
  return Object.entries(s.groups).map(([era, g]) =>
    groupTable(
      `12. tools/list on a toolset URL, ${era} (${s.spec}, ${g.tools} tools, ${g.bytes} bytes on /mcp)`,
      g,
      () =>
        'Floor: /mcp on the same gateway. `/mcp/all` serves the same bytes, so its ratio is the route and the toolset lookup alone; `/mcp/triage` is a smaller list, for scale.',
    ),
  );
}

export const toolsetsSection = { key: 'toolsets', label: 'toolsets', run, report };
