// Section 3 of `npm run bench`: an HTTP grant call (GET upstream, small JSON) over MCP and
// over REST, against a bare fastify proxying with undici (the floor) and the upstream
// itself (a reference).
import { join } from 'node:path';
import { stop } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { f1 } from '../lib/stats.mjs';
import { callSpec, floorCall, gatewayCalls } from './call-spec.mjs';
import { floorOf, groupTable, runGroup } from './group.mjs';

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
    const results = await runGroup(
      ctx,
      'http',
      floorOf('floor: bare fastify + undici proxy', floor, floorCall(floor.url), /widget/),
      [
        ...gatewayCalls(gw, 'get_item', { restExpect: /"coverage"/, target: 0.9 }),
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
