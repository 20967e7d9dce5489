// Section 10 of `npm run bench`: what `confirm` and `approve` cost (issue 29). The floor
// is an ordinary HTTP grant on a gateway whose spec has neither; the subjects are the
// same grant on a gateway whose spec also has a confirm and an approve grant (the
// step must cost an ordinary call nothing), the first leg of a confirmed call (the
// input_required answer: a sealed state, nothing sent upstream) and the repeat of a
// call whose approval is pending (an approval-store lookup, answered as a tool result). Then, sequentially, a whole
// confirmed call (ask + retry, two requests) against a plain call, per call.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { JSON_HEADERS, MODERN, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { f2, stats } from '../lib/stats.mjs';
import { groupTable, runGroup } from './group.mjs';

const KEY = 'bench-agent-key-0123456789';
const APPROVER = 'bench-approver-key-9876543210';
const AUTH = { authorization: `Bearer ${KEY}` };
const CONSENT_KEY = 'cd'.repeat(32);

/** `withAccess` false: no `access` block, the floor of what an API key costs. */
function writeSpec(work, name, withConsent, withAccess = true) {
  const file = join(work, `${name}.mcp.kdl`);
  writeFileSync(
    file,
    `wrap "bench-consent" version="1.0.0"
base-url "http://127.0.0.1:9"
${
  withAccess
    ? `access confirm-key-env="BENCH_CONFIRM_KEY" {
    api-key env="BENCH_KEY" scopes="items:write"
    api-key env="BENCH_APPROVER" scopes="items:approve"
}`
    : ''
}
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1
    }
}
${
  withConsent
    ? `can delete item {
    describe "Delete one item."
    path "/items/{id}" {
        id "integer" min=1
    }
    confirm "Delete item {id}?"
}
can archive item {
    describe "Archive one item."
    method "POST"
    path "/items/{id}/archive" {
        id "integer" min=1
    }
    approve "Archive item {id}" by="items:approve" expires="1h"
}
`
    : ''
}`,
  );
  return file;
}

const withAuth = (request) => ({ ...request, headers: { ...request.headers, ...AUTH } });

/** A 2026-07-28 tools/call whose client declares form elicitation. */
function askingRequest(url, tool, args, extra = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'mcp-beaver-bench', version: '1.0.0' },
  };
  return {
    url: `${url}/mcp`,
    headers: {
      ...JSON_HEADERS,
      ...AUTH,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args, ...extra, _meta: meta },
    }),
  };
}

async function post(request) {
  const res = await fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
  });
  return res.json();
}

/** `n` sequential whole calls of each kind, alternating in blocks; ms per call of each. */
async function sequential(url, n) {
  const plain = withAuth(
    modernRequest(url, 'tools/call', { name: 'get_item', arguments: { id: 42 } }, 'get_item'),
  );
  const ask = askingRequest(url, 'delete_item', { id: 42 });
  const confirmed = async () => {
    const first = await post(ask);
    const state = first.result?.requestState;
    if (typeof state !== 'string') throw new Error(`no requestState: ${JSON.stringify(first)}`);
    const done = await post(
      askingRequest(
        url,
        'delete_item',
        { id: 42 },
        {
          requestState: state,
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        },
      ),
    );
    if (done.result?.isError !== false) throw new Error(`not run: ${JSON.stringify(done)}`);
  };
  const plainCall = async () => {
    const done = await post(plain);
    if (done.result?.isError !== false) throw new Error(`not run: ${JSON.stringify(done)}`);
  };
  const times = { plain: [], confirmed: [] };
  for (let block = 0; block < 4; block++) {
    for (const [kind, call] of [
      ['plain', plainCall],
      ['confirmed', confirmed],
    ]) {
      const t0 = performance.now();
      for (let i = 0; i < n / 4; i++) await call();
      times[kind].push((performance.now() - t0) / (n / 4));
    }
  }
  return { plainMs: stats(times.plain), confirmedMs: stats(times.confirmed) };
}

async function run(ctx, { work }) {
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const env = { BENCH_KEY: KEY, BENCH_APPROVER: APPROVER, BENCH_CONFIRM_KEY: CONSENT_KEY };
  const extraArgs = ['--base-url', upstream.url];
  const plainGw = await ctx.startGateway(writeSpec(work, 'bench-plain', false), { env, extraArgs });
  const consentGw = await ctx.startGateway(writeSpec(work, 'bench-consent', true), {
    env,
    extraArgs,
  });
  const openGw = await ctx.startGateway(writeSpec(work, 'bench-open', false, false), {
    env,
    extraArgs,
  });
  try {
    // One pending approval, so that its repeat is a lookup that finds it.
    const parked = await fetch(`${consentGw.url}/api/archive_item`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: '{"id":42}',
    });
    if (parked.status !== 202) throw new Error(`approve grant answered ${parked.status}`);
    const call = (gw) =>
      withAuth(
        modernRequest(
          gw.url,
          'tools/call',
          { name: 'get_item', arguments: { id: 42 } },
          'get_item',
        ),
      );
    const results = await runGroup(
      ctx,
      'consent',
      {
        name: 'ordinary grant, spec without confirm/approve',
        pid: plainGw.child.pid,
        request: call(plainGw),
        expect: /"isError":false/,
      },
      [
        {
          name: 'ordinary grant, spec with confirm/approve grants',
          pid: consentGw.child.pid,
          request: call(consentGw),
          expect: /"isError":false/,
          target: 0.97,
        },
        {
          name: 'confirm grant, first leg (input_required)',
          pid: consentGw.child.pid,
          request: askingRequest(consentGw.url, 'delete_item', { id: 42 }),
          expect: /"resultType":"input_required"/,
          reference: true,
        },
        {
          name: 'approve grant, repeat while pending (tools/call)',
          pid: consentGw.child.pid,
          request: withAuth(
            modernRequest(
              consentGw.url,
              'tools/call',
              { name: 'archive_item', arguments: { id: 42 } },
              'archive_item',
            ),
          ),
          expect: /APPROVAL_REQUIRED/,
          reference: true,
        },
      ],
    );
    // What an API key costs a call: the same grant and call, the spec without `access`
    // (no Authorization header sent) as the floor, the key-checked one as the subject.
    const key = await runGroup(
      ctx,
      'api key',
      {
        name: 'ordinary grant, spec without access (no key)',
        pid: openGw.child.pid,
        request: modernRequest(
          openGw.url,
          'tools/call',
          { name: 'get_item', arguments: { id: 42 } },
          'get_item',
        ),
        expect: /"isError":false/,
      },
      [
        {
          name: 'ordinary grant, API key checked',
          pid: plainGw.child.pid,
          request: call(plainGw),
          expect: /"isError":false/,
          target: 0.95,
        },
      ],
    );
    const rounds = await sequential(consentGw.url, ctx.quick ? 80 : 400);
    return { results, key, ...rounds };
  } finally {
    await Promise.all([
      stop(plainGw.child),
      stop(consentGw.child),
      stop(openGw.child),
      stop(upstream.child),
    ]);
  }
}

function report(s) {
  return [
    groupTable(
      '10. Confirmation and approval: the cost of the step',
      s,
      () =>
        `Sequential whole calls (one connection): a plain call ${f2(s.plainMs?.median)} ms, a confirmed call (ask + retry, two requests) ${f2(s.confirmedMs?.median)} ms, ${f2(s.confirmedMs && s.plainMs ? s.confirmedMs.median / s.plainMs.median : undefined)}× a plain call.`,
    ),
    // Results stored before the key group was measured have none.
    ...(s.key
      ? [
          groupTable(
            '10. API key: the cost of `access` on a call',
            { results: s.key },
            () =>
              'The CPU/req column is no access ÷ with a key: the issue 40 target is a key costing ≤ 1.05×, a ratio ≥ 0.95.',
          ),
        ]
      : []),
  ];
}

export const consentSection = {
  key: 'consent',
  label: 'Confirmation and approval',
  database: 'optional',
  run,
  report,
};
