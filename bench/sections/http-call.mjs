// Section 3 of `npm run bench`: an HTTP grant call (GET upstream, small JSON) over MCP and
// over REST, against a bare fastify proxying with undici (the floor) and the upstream
// itself (a reference).
import { join } from 'node:path';
import { JSON_HEADERS, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { f1 } from '../lib/stats.mjs';
import { callSpec } from './call-spec.mjs';
import { groupTable, runGroup } from './group.mjs';

async function run(ctx, { work, db }) {
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const floor = await ctx.startScript(
    'floor-proxy.mjs',
    { UPSTREAM_URL: upstream.url, UPSTREAM_PATH: '/items/42' },
    'floor-proxy',
  );
  const gw = await ctx.startGateway(callSpec(work), {
    env: { DATABASE_URL: db.url },
    extraArgs: ['--base-url', upstream.url],
    ...(ctx.profile && { profileDir: join(ctx.profile, 'http') }),
  });
  const rssIdleMb = rssMb(gw.child.pid);
  try {
    const args = JSON.stringify({ id: 42 });
    const results = await runGroup(
      ctx,
      'http',
      {
        name: 'floor: bare fastify + undici proxy',
        pid: floor.child.pid,
        request: { url: `${floor.url}/call`, headers: JSON_HEADERS, body: args },
        expect: /widget/,
      },
      [
        {
          name: 'mcp-beaver tools/call (modern)',
          pid: gw.child.pid,
          request: modernRequest(
            gw.url,
            'tools/call',
            { name: 'get_item', arguments: { id: 42 } },
            'get_item',
          ),
          expect: /"isError":false/,
          target: 0.9,
        },
        {
          name: 'mcp-beaver POST /api/get_item',
          pid: gw.child.pid,
          request: { url: `${gw.url}/api/get_item`, headers: JSON_HEADERS, body: args },
          expect: /"coverage"/,
          target: 0.9,
        },
        {
          name: 'upstream direct (node:http)',
          pid: upstream.child.pid,
          request: { url: `${upstream.url}/items/42`, method: 'GET' },
          expect: /widget/,
          reference: true,
        },
      ],
    );
    return { results, rssIdleMb, rssAfterLoadMb: rssMb(gw.child.pid) };
  } finally {
    await Promise.all([stop(gw.child), stop(floor.child), stop(upstream.child)]);
  }
}

function report(s) {
  return [
    groupTable(
      '3. HTTP grant call (GET upstream, small JSON)',
      s,
      () => `Gateway RSS idle ${f1(s.rssIdleMb)} MB, after load ${f1(s.rssAfterLoadMb)} MB.`,
    ),
  ];
}

/** Without Postgres it still runs: the spec's database line then points nowhere. */
export const httpCallSection = {
  key: 'http',
  label: 'HTTP grant call',
  database: 'optional',
  run,
  report,
};
