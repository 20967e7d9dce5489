// One worker of `npm run bench:import-corpus`: reads one job a line on stdin
// ({file, writes}), drafts a spec from that document as `mcp-beaver import openapi`
// does, checks the draft as `mcp-beaver check` does, and writes one result line on
// stdout. It runs under tsx (the sources, no build) and is killed by the parent when a
// document takes longer than the per-document timeout, so a hang counts instead of
// stalling the run.
import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';

const { importOpenApi } = await import('../../src/import/openapi/import-openapi.ts');
const { ImportError } = await import('../../src/import/openapi/load-document.ts');
const { compileSpecText } = await import('../../src/compiler/load-spec.ts');
const { formatDiagnostic } = await import('../../src/compiler/diagnostics.ts');
const { schemaProblems } = await import('../../src/engine/guards/validate.ts');

/** The first line of an error, as the CLI prints it. */
const firstLine = (err) => String(err instanceof Error ? err.message : err).split('\n')[0];

async function run({ file, writes }) {
  const out = { file, writes, docBytes: statSync(file).size };
  const t0 = performance.now();
  let result;
  try {
    result = await importOpenApi(file, { include: [], exclude: [], tags: [], writes });
  } catch (err) {
    out.importMs = performance.now() - t0;
    out.exit = err instanceof ImportError ? err.exitCode : 1;
    out.error = firstLine(err).slice(0, 300);
    return out;
  }
  out.importMs = performance.now() - t0;
  out.exit = 0;
  const s = result.summary;
  out.seen = s.seen;
  out.selected = s.selected;
  out.imported = s.imported;
  out.skipped = Object.fromEntries(s.skipped);
  out.draftBytes = Buffer.byteLength(result.text);

  const t1 = performance.now();
  const checked = compileSpecText(result.text, 'draft.mcp.kdl');
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  const problems = checked.compiled ? schemaProblems(checked.compiled.tools) : [];
  out.checkMs = performance.now() - t1;
  out.checkOk = checked.compiled !== undefined && problems.length === 0;
  if (!out.checkOk) {
    out.checkErrors = [
      ...errors.slice(0, 3).map((d) => formatDiagnostic(d)),
      ...problems.slice(0, 3).map((p) => `grant ${p.tool}: input schema: ${p.message}`),
    ].map((line) => line.slice(0, 300));
    out.checkErrorCount = errors.length + problems.length;
  }
  return out;
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const result = await run(JSON.parse(line)).catch((err) => ({
    ...JSON.parse(line),
    exit: 1,
    error: `worker: ${firstLine(err)}`,
  }));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
