// Section 16 of `npm run bench`: an HTTP grant call whose upstream is called with a token
// the gateway obtained (`auth client-credentials`, issue 43) against the same call with a
// static bearer token. One gateway holds both upstreams (the same loopback upstream under
// two names), so the ratio is the token kind's own cost per call: its identity answered
// from the cache and the obtained token's redactor scanning the result. The token lives a
// day: it is obtained once, before the measurement, and the section checks that the token
// endpoint was asked exactly once. The target: the obtained-token call costs at most 1.05×
// the static one, that is ≥ 0.95 of its throughput.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSON_HEADERS, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { groupTable, runGroup } from './group.mjs';

const ARGS = { id: 42 };
const STATIC_TOKEN = `bench-static-token-${'y'.repeat(41)}`;

function writeSpec(work, upstream, tokenUrl) {
  const file = join(work, 'bench-token.mcp.kdl');
  writeFileSync(
    file,
    `wrap "bench-token" version="1.0.0" {
    describe "A static and an obtained upstream credential, side by side."
}
upstream "static" base-url="${upstream}" {
    auth bearer env="BENCH_STATIC_TOKEN"
}
upstream "obtained" base-url="${upstream}" {
    auth client-credentials token-url="${tokenUrl}/token" client-id-env="BENCH_CLIENT_ID" client-secret-env="BENCH_CLIENT_SECRET" scope="items.read"
}
can get item-static {
    describe "One item by id, with the static token."
    upstream "static"
    path "/items/{id}" {
        id "integer" min=1
    }
}
can get item-obtained {
    describe "One item by id, with the obtained token."
    upstream "obtained"
    path "/items/{id}" {
        id "integer" min=1
    }
}
`,
  );
  return file;
}

const mcp = (gw, tool) =>
  modernRequest(gw.url, 'tools/call', { name: tool, arguments: ARGS }, tool);
const rest = (gw, tool) => ({
  url: `${gw.url}/api/${tool}`,
  headers: JSON_HEADERS,
  body: JSON.stringify(ARGS),
});

async function answered(tokenUrl) {
  const res = await fetch(`${tokenUrl}/count`);
  return (await res.json()).answered;
}

async function run(ctx, { work }) {
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const endpoint = await ctx.startScript('token-endpoint.mjs', {}, 'token endpoint');
  const gw = await ctx.startGateway(writeSpec(work, upstream.url, endpoint.url), {
    env: {
      BENCH_STATIC_TOKEN: STATIC_TOKEN,
      BENCH_CLIENT_ID: 'bench-gateway',
      BENCH_CLIENT_SECRET: 'bench-client-secret-0123456789',
    },
  });
  try {
    const groups = {};
    for (const [surface, make, expect] of [
      ['MCP', mcp, /"isError":false/],
      ['REST', rest, /widget/],
    ]) {
      groups[surface] = {
        results: await runGroup(
          ctx,
          `token ${surface}`,
          {
            name: `static bearer (${surface})`,
            pid: gw.child.pid,
            request: make(gw, 'get_item_static'),
            expect,
          },
          [
            {
              name: `client-credentials, cached (${surface})`,
              pid: gw.child.pid,
              request: make(gw, 'get_item_obtained'),
              expect,
              target: 0.95,
            },
          ],
        ),
      };
    }
    const tokenRequests = await answered(endpoint.url);
    if (tokenRequests !== 1)
      throw new Error(`the token endpoint was asked ${tokenRequests} times, not once`);
    return { groups, tokenRequests };
  } finally {
    await Promise.all([stop(gw.child), stop(upstream.child), stop(endpoint.child)]);
  }
}

function report(s) {
  return Object.entries(s.groups).map(([surface, g]) =>
    groupTable(
      `16. HTTP grant call with an obtained token, ${surface} (auth client-credentials, cached)`,
      g,
      () =>
        `Floor: the same call with a static bearer token on the same gateway. The token endpoint answered ${s.tokenRequests} request for the whole run; target ≥ 0.95 (≤ 1.05× the cost).`,
    ),
  );
}

export const tokenCallSection = {
  key: 'token-call',
  only: 'token',
  label: 'token call',
  run,
  report,
};
