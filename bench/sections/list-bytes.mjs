// Section 8 of `npm run bench`: what a model pays for the tool list (issue 17), the bytes
// of each example spec's tools as `mcp-beaver tools <spec> --json` prints the list
// tools/list serves, compact JSON.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTable } from './markdown-table.mjs';

function run(ctx) {
  const specs = readdirSync(join(ctx.root, 'specs')).filter((f) => f.endsWith('.mcp.kdl'));
  return specs.map((file) => {
    const run = spawnSync('node', [ctx.main, 'tools', join('specs', file), '--json'], {
      cwd: ctx.root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`tools ${file} failed: ${run.stderr}`);
    const { tools } = JSON.parse(run.stdout);
    const bytes = (v) => Buffer.byteLength(JSON.stringify(v));
    return {
      spec: file,
      tools: tools.length,
      bytes: bytes({ tools }),
      outputSchemaBytes: tools.reduce((n, t) => n + bytes(t.outputSchema ?? {}), 0),
      perTool: Object.fromEntries(tools.map((t) => [t.name, bytes(t)])),
    };
  });
}

function report(s) {
  return [
    '### 8. tools/list bytes (what a model reads before its first call)',
    '',
    ...markdownTable(
      ['spec', 'tools', 'bytes', 'bytes per tool', 'of which outputSchema', 'largest tool'],
      s.map((r) => {
        const [name, n] = Object.entries(r.perTool).sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
        const perTool = Math.round(r.bytes / r.tools);
        return [r.spec, r.tools, r.bytes, perTool, r.outputSchemaBytes, `${name} (${n})`];
      }),
    ),
    '',
  ];
}

export const listBytesSection = { key: 'listbytes', label: 'tools/list bytes', run, report };
