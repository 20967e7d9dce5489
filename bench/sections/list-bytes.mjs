// Section 8 of `npm run bench`: what a model pays for the tool list (issue 17), the bytes
// of each example spec's tools as `mcp-beaver tools <spec> --json` prints the list
// tools/list serves, compact JSON; and issue 40's yardstick, a grant with three typed
// query fields and a short description (target ≤ 550 bytes a tool).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markdownTable } from './markdown-table.mjs';

/** Issue 40's grant: three typed query fields, each with a short describe. */
const THREE_FIELDS_SPEC = `wrap "three-fields" version="1.0.0" {
    describe "Issue 40's yardstick grant."
}
base-url "http://127.0.0.1:9/api"
can list issues {
    describe "List issues of a repository."
    path "/issues"
    query {
        state "string" default="open" describe="Issue state." { enum "open" "closed" "all"; }
        per_page "integer" min=1 max=100 default=30 describe="Page size."
        since "string" format="date-time" describe="Updated at or after."
    }
}
`;

function run(ctx) {
  const specs = readdirSync(join(ctx.root, 'specs'))
    .filter((f) => f.endsWith('.mcp.kdl'))
    .map((f) => ({ name: f, path: join('specs', f) }));
  const dir = mkdtempSync(join(tmpdir(), 'mcpb-listbytes-'));
  try {
    const three = join(dir, 'three-fields.mcp.kdl');
    writeFileSync(three, THREE_FIELDS_SPEC);
    return [...specs, { name: 'three typed query fields (issue 40)', path: three }].map(measure);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  function measure({ name: file, path }) {
    const run = spawnSync('node', [ctx.main, 'tools', path, '--json'], {
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
  }
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
