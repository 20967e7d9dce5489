// Section 4 of `npm run bench`: a sql grant call (one row by primary key) over MCP and
// over REST, against a bare fastify running the same pg prepared statement (the floor).
import { join } from 'node:path';
import { JSON_HEADERS, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { f1 } from '../lib/stats.mjs';
import { callSpec, ITEM_SQL } from './call-spec.mjs';
import { groupTable, runGroup } from './group.mjs';

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
    const args = JSON.stringify({ id: 42 });
    const results = await runGroup(
      ctx,
      'sql',
      {
        name: 'floor: bare fastify + pg prepared statement',
        pid: floor.child.pid,
        request: { url: `${floor.url}/call`, headers: JSON_HEADERS, body: args },
        expect: /item-42/,
      },
      [
        {
          name: 'mcp-beaver tools/call (modern)',
          pid: gw.child.pid,
          request: modernRequest(
            gw.url,
            'tools/call',
            { name: 'query_item_row', arguments: { id: 42 } },
            'query_item_row',
          ),
          expect: /"isError":false/,
          target: 0.8,
        },
        {
          name: 'mcp-beaver POST /api/query_item_row',
          pid: gw.child.pid,
          request: { url: `${gw.url}/api/query_item_row`, headers: JSON_HEADERS, body: args },
          expect: /item-42/,
          target: 0.8,
        },
      ],
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
