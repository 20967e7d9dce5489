// Section 4 of `npm run bench`: a sql grant call (one row by primary key) over MCP and
// over REST, against a bare fastify running the same pg prepared statement (the floor).
import { join } from 'node:path';
import { stop } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { f1 } from '../lib/stats.mjs';
import { callSpec, floorCall, gatewayCalls, ITEM_SQL } from './call-spec.mjs';
import { floorOf, groupTable, runGroup } from './group.mjs';

async function run(ctx, { work, db }) {
  const floor = await ctx.startScript(
    'floor-sql.mjs',
    { DATABASE_URL: db.url, POOL: '10', SQL: ITEM_SQL },
    'floor-sql',
  );
  const gw = await ctx.startGateway(callSpec(work), {
    env: { DATABASE_URL: db.url },
    ...(ctx.profile && { profileDir: join(ctx.profile, 'sql') }),
  });
  try {
    const results = await runGroup(
      ctx,
      'sql',
      floorOf(
        'floor: bare fastify + pg prepared statement',
        floor,
        floorCall(floor.url),
        /item-42/,
      ),
      gatewayCalls(gw, 'query_item_row', { restExpect: /item-42/, target: 0.8 }),
    );
    return { results, rssAfterLoadMb: rssMb(gw.child.pid) };
  } finally {
    await Promise.all([stop(gw.child), stop(floor.child)]);
  }
}

function report(s) {
  return [
    groupTable(
      '4. sql grant call (one row by primary key)',
      s,
      () => `Gateway RSS after load ${f1(s.rssAfterLoadMb)} MB.`,
    ),
  ];
}

export const sqlCallSection = {
  key: 'sql',
  label: 'sql grant call',
  database: 'required',
  run,
  report,
};
