// Section 3 of `npm run bench`: an HTTP grant call (GET upstream, small JSON) over MCP and
// over REST, against a bare fastify proxying with undici (the floor) and the upstream
// itself (a reference). With `--before <main.js>` that build's gateway takes its turns in
// the same repetitions, so a change to the call path is measured against the build
// before it (each build's CPU per request ÷ the floor's of the same window).
import { join } from 'node:path';
import { stop } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { f1, f2, range, stats } from '../lib/stats.mjs';
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
  const before = ctx.beforeMain
    ? await ctx.startGateway(callSpec(work), {
        env: { DATABASE_URL: db.url },
        extraArgs: ['--base-url', upstream.url],
        main: ctx.beforeMain,
      })
    : undefined;
  try {
    const results = await runGroup(
      ctx,
      'http',
      floorOf('floor: bare fastify + undici proxy', floor, floorCall(floor.url), /widget/),
      [
        ...gatewayCalls(gw, 'get_item', { restExpect: /"coverage"/, target: 0.9 }),
        ...(before
          ? gatewayCalls(before, 'get_item', { restExpect: /"coverage"/ }).map((t) => ({
              ...t,
              name: `${t.name}, the --before build`,
            }))
          : []),
        {
          name: 'upstream direct (node:http)',
          pid: upstream.child.pid,
          request: { url: `${upstream.url}/items/42`, method: 'GET' },
          expect: /widget/,
          reference: true,
        },
      ],
    );
    return {
      results,
      rssIdleMb,
      rssAfterLoadMb: rssMb(gw.child.pid),
      ...(before && { before: ctx.beforeMain }),
    };
  } finally {
    await Promise.all([
      stop(gw.child),
      stop(floor.child),
      stop(upstream.child),
      ...(before ? [stop(before.child)] : []),
    ]);
  }
}

function report(s) {
  return [
    groupTable('3. HTTP grant call (GET upstream, small JSON)', s, () =>
      [
        `Gateway RSS idle ${f1(s.rssIdleMb)} MB, after load ${f1(s.rssAfterLoadMb)} MB.`,
        costLine(s),
      ].join(' '),
    ),
  ];
}

/**
 * Issue 40's yardstick: the gateway's CPU per request as a multiple of the floor's (target
 * ≤ 1.6× on tools/call), and with --before, this build's ÷ that build's in the same turns.
 */
function costLine(s) {
  const floor = s.results.find((r) => r.role === 'floor');
  const byName = new Map(s.results.map((r) => [r.name, r]));
  const parts = [];
  for (const r of s.results) {
    if (r.role === 'floor' || r.reference || r.name.endsWith('the --before build')) continue;
    const times = r.runs.map((run, i) => run.cpuUsPerReq / floor.runs[i].cpuUsPerReq);
    let part = `${r.name}: ${range(stats(times), f2)}× the floor's CPU per request`;
    const old = byName.get(`${r.name}, the --before build`);
    if (old) {
      const vs = r.runs.map((run, i) => run.cpuUsPerReq / old.runs[i].cpuUsPerReq);
      part += `, ${range(stats(vs), f2)}× the --before build's (${s.before})`;
    }
    parts.push(part);
  }
  return parts.length ? `${parts.join('; ')} (issue 40: tools/call ≤ 1.6×).` : '';
}

/** Without Postgres it still runs: the spec's database line then points nowhere. */
export const httpCallSection = {
  key: 'http',
  label: 'HTTP grant call',
  database: 'optional',
  run,
  report,
};
