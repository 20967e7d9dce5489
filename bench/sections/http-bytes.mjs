// Beside section 3 of `npm run bench` (`--only http-bytes`, issue 40): an HTTP grant call
// whose upstream answers 1 KB, 100 KB and 1 MB of JSON, all kept (max-bytes above the
// largest), over MCP (2026-07-28) and over REST, each size against the bare proxy
// (bench/servers/floor-proxy.mjs) passing the same body on, in one run. The figure is
// server CPU per request, as this ÷ the floor's (the targets: ≤ 1.6× at 1 KB,
// ≤ 4× at 1 MB); beside it the bytes of each answer ÷ the upstream's body.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSON_HEADERS, modernRequest } from '../lib/mcp-requests.mjs';
import { stop } from '../lib/processes.mjs';
import { f0, f2, range, stats } from '../lib/stats.mjs';
import { floorOf, runGroup, verify } from './group.mjs';
import { markdownTable } from './markdown-table.mjs';

/** Each size, with the most CPU per request it may cost × the floor's (issue 40). */
const SIZES = [
  { label: '1 KB', bytes: 1024, maxCpuRatio: 1.6 },
  { label: '100 KB', bytes: 100 * 1024 },
  { label: '1 MB', bytes: 1024 * 1024, maxCpuRatio: 4 },
];
/** The most an MCP answer may weigh × the upstream's body, for the largest size. */
const MAX_MCP_BYTES_RATIO = 1.3;

function sizedSpec(work) {
  const file = join(work, 'bench-bytes.mcp.kdl');
  // max-bytes above the largest body: every size is answered whole (uncut).
  writeFileSync(
    file,
    `wrap "bench-bytes" version="1.0.0" {
    describe "An HTTP grant answering JSON bodies of a given size."
}
base-url "http://127.0.0.1:9"
limits max-bytes=4000000
can get sized {
    describe "A JSON document of about n bytes."
    path "/bytes/{n}" {
        n "integer" min=1
    }
}
`,
  );
  return file;
}

async function run(ctx, { work }) {
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const gw = await ctx.startGateway(sizedSpec(work), {
    extraArgs: ['--base-url', upstream.url],
    ...(ctx.profile && { profileDir: join(ctx.profile, 'http-bytes') }),
  });
  const floors = [];
  try {
    const sizes = [];
    for (const size of SIZES) {
      const floor = await ctx.startScript(
        'floor-proxy.mjs',
        { UPSTREAM_URL: upstream.url, UPSTREAM_PATH: `/bytes/${size.bytes}` },
        'floor-proxy',
      );
      floors.push(floor);
      const args = JSON.stringify({ n: size.bytes });
      const floorTarget = floorOf(
        `floor: bare proxy, ${size.label}`,
        floor,
        { url: `${floor.url}/call`, headers: JSON_HEADERS, body: args },
        /widget/,
      );
      const mcp = {
        name: `mcp-beaver tools/call (modern), ${size.label}`,
        pid: gw.child.pid,
        request: modernRequest(
          gw.url,
          'tools/call',
          { name: 'get_sized', arguments: { n: size.bytes } },
          'get_sized',
        ),
        expect: /"truncated":false.*"isError":false/s,
      };
      const rest = {
        name: `mcp-beaver POST /api/get_sized, ${size.label}`,
        pid: gw.child.pid,
        request: { url: `${gw.url}/api/get_sized`, headers: JSON_HEADERS, body: args },
        expect: /"truncated":false/,
      };
      // The bytes of one answer each: the floor's is the upstream's body as sent.
      const [upstreamBytes, mcpBytes, restBytes] = (
        await Promise.all([floorTarget, mcp, rest].map((t) => verify(t)))
      ).map((text) => Buffer.byteLength(text));
      const results = await runGroup(ctx, `bytes ${size.label}`, floorTarget, [mcp, rest]);
      sizes.push({ ...size, upstreamBytes, mcpBytes, restBytes, results });
    }
    return { sizes };
  } finally {
    await Promise.all([stop(gw.child), stop(upstream.child), ...floors.map((f) => stop(f.child))]);
  }
}

/** This subject's CPU per request ÷ the floor's, round by round (the figure). */
function cpuOverFloor(subject, floor) {
  return stats(subject.runs.map((r, i) => r.cpuUsPerReq / floor.runs[i].cpuUsPerReq));
}

function verdict(ratio, max) {
  if (max === undefined || ratio === undefined) return '';
  return ratio.median <= max ? `met (≤ ${max})` : `**missed** (target ≤ ${max})`;
}

function report(s) {
  const rows = [];
  for (const size of s.sizes) {
    const [floor, mcp, rest] = size.results;
    rows.push([
      size.label,
      floor.name,
      range(floor.cpuUsPerReq, f0),
      '',
      `${size.upstreamBytes}`,
      '',
      '',
    ]);
    for (const [subject, bytes, bytesTarget] of [
      [mcp, size.mcpBytes, size.maxCpuRatio === 4 ? MAX_MCP_BYTES_RATIO : undefined],
      [rest, size.restBytes, undefined],
    ]) {
      const ratio = cpuOverFloor(subject, floor);
      const bytesRatio = bytes / size.upstreamBytes;
      rows.push([
        size.label,
        subject.name,
        range(subject.cpuUsPerReq, f0),
        range(ratio, f2),
        `${bytes}`,
        f2(bytesRatio),
        [
          verdict(ratio, size.maxCpuRatio),
          bytesTarget === undefined
            ? ''
            : bytesRatio <= bytesTarget
              ? `bytes met (≤ ${bytesTarget})`
              : `bytes **missed** (target ≤ ${bytesTarget})`,
        ]
          .filter(Boolean)
          .join('; '),
      ]);
    }
  }
  return [
    '### 3b. HTTP grant call by body size (1 KB, 100 KB, 1 MB, uncut)',
    '',
    ...markdownTable(
      [
        'size',
        'server',
        'server CPU µs/req',
        'CPU/req ÷ floor',
        'answer bytes',
        'answer ÷ upstream bytes',
        'target',
      ],
      rows,
    ),
    '',
  ];
}

export const httpBytesSection = {
  key: 'httpBytes',
  only: 'http-bytes',
  label: 'HTTP grant call by body size',
  run,
  report,
};
