// Section 1–2 of `npm run bench`: tools/list of specs/github-issues.mcp.kdl in both eras,
// against a bare fastify serving the same bytes precomputed (the floor) and the
// official SDK v2's createMcpHandler serving the same tools (a reference).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { legacyRequest, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { f1, range, stats } from '../lib/stats.mjs';
import { floorOf, groupTable, runGroup, verify } from './group.mjs';

const TOOLS = /"tools":\[/;

async function run(ctx, { work }) {
  const spec = join(ctx.root, 'specs', 'github-issues.mcp.kdl');
  const gw = await ctx.startGateway(spec, { env: { GITHUB_TOKEN: 'bench-token' } });
  try {
    const modern = modernRequest(gw.url, 'tools/list');
    const legacy = legacyRequest(gw.url, 'tools/list');
    const modernBody = await verify({ name: 'gateway modern', request: modern, expect: TOOLS });
    const legacyBody = await verify({ name: 'gateway legacy', request: legacy, expect: TOOLS });
    const bodyFile = join(work, 'tools-list.json');
    writeFileSync(bodyFile, modernBody);
    const toolsFile = join(work, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify(JSON.parse(legacyBody).result.tools));
    const floor = await ctx.startScript(
      'floor-tools-list.mjs',
      { BODY_FILE: bodyFile },
      'floor-tools-list',
    );
    const sdk = await ctx.startScript(
      'sdk-reference.mjs',
      { TOOLS_FILE: toolsFile },
      'sdk-reference',
    );
    try {
      const results = await runGroup(
        ctx,
        'tools/list',
        floorOf(
          'floor: bare fastify, precomputed bytes',
          floor,
          modernRequest(floor.url, 'tools/list'),
          TOOLS,
        ),
        [
          {
            name: 'mcp-beaver tools/list (modern)',
            pid: gw.child.pid,
            request: modern,
            expect: TOOLS,
            target: 0.85,
          },
          {
            name: 'mcp-beaver tools/list (legacy)',
            pid: gw.child.pid,
            request: legacy,
            expect: TOOLS,
            target: 0.85,
          },
          {
            name: 'official SDK v2 createMcpHandler tools/list (modern)',
            pid: sdk.child.pid,
            request: modernRequest(sdk.url, 'tools/list'),
            expect: TOOLS,
            reference: true,
          },
        ],
      );
      // Our ratio to the SDK reference, per repetition.
      const sdkRow = results[3];
      for (const row of results.slice(1, 3)) {
        row.ratioToSdk = stats(row.runs.map((r, i) => r.rps / sdkRow.runs[i].rps));
      }
      return {
        spec: 'specs/github-issues.mcp.kdl',
        tools: JSON.parse(legacyBody).result.tools.length,
        bodyBytes: { modern: Buffer.byteLength(modernBody), legacy: Buffer.byteLength(legacyBody) },
        results,
        rssAfterLoadMb: rssMb(gw.child.pid),
      };
    } finally {
      await Promise.all([stop(floor.child), stop(sdk.child)]);
    }
  } finally {
    await stop(gw.child);
  }
}

function report(s) {
  return [
    groupTable(
      `1–2. tools/list (${s.spec}, ${s.tools} tools, ${s.bodyBytes.modern} bytes modern)`,
      s,
      () =>
        s.results
          .filter((r) => r.ratioToSdk)
          .map((r) => `${r.name}: ${range(r.ratioToSdk, f1)}× the official SDK v2 reference.`)
          .join(' ') + ` Gateway RSS after load: ${f1(s.rssAfterLoadMb)} MB.`,
    ),
  ];
}

export const toolsListSection = { key: 'tools', label: 'tools/list', run, report };
