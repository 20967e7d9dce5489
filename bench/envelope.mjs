// In-process cost of the result envelope (coverage + truncation) on results of
// 10 KB, 1 MB and 10 MB, in ns per byte of result JSON, run in its own process by
// bench/run.mjs against the compiled build. Two cases per size: the result fits
// (coverage walk only) and the result is cut to the default max-bytes (truncation).
// JSON.parse of the same bytes is printed beside it: the work any gateway does anyway.
// Prints one JSON line.
import { pathToFileURL } from 'node:url';
import { listRows } from './lib/list-rows.mjs';
import { measureNsPerByte } from './lib/measure.mjs';

// argv[3]: the dist/ folder of the build to measure (default: this checkout's).
const dist = process.argv[3] ?? new URL('../dist', import.meta.url).pathname;
const { buildEnvelope } = await import(pathToFileURL(`${dist}/envelope/envelope.js`).href);

const SIZES = [
  ['10 KB', 10 * 1024],
  ['1 MB', 1024 * 1024],
  ['10 MB', 10 * 1024 * 1024],
];
const DEFAULT_MAX_BYTES = 262_144;
const DEFAULT_BUDGET_BYTES = 40_000;
const budgetMs = Number(process.argv[2] ?? 700);

/** Median ns per byte of `fn` over runs bounded by count and by time. */
function measure(fn, bytes) {
  return measureNsPerByte(fn, bytes, { budgetMs, warmups: 2, minRuns: 3, maxRuns: 500 });
}

const out = [];
for (const [label, target] of SIZES) {
  const result = listRows(target);
  const json = JSON.stringify(result);
  const bytes = Buffer.byteLength(json);
  const fits = measure(
    () =>
      buildEnvelope(
        { result, resultJson: json },
        { maxBytes: bytes * 2, budgetBytes: DEFAULT_BUDGET_BYTES },
      ),
    bytes,
  );
  const cut = measure(
    () =>
      buildEnvelope(
        { result, resultJson: json },
        { maxBytes: DEFAULT_MAX_BYTES, budgetBytes: DEFAULT_BUDGET_BYTES },
      ),
    bytes,
  );
  const parse = measure(() => JSON.parse(json), bytes);
  const env = buildEnvelope(
    { result, resultJson: json },
    { maxBytes: DEFAULT_MAX_BYTES, budgetBytes: DEFAULT_BUDGET_BYTES },
  );
  out.push({
    size: label,
    bytes,
    coverageNsPerByte: fits.nsPerByte,
    truncationNsPerByte: bytes > DEFAULT_MAX_BYTES ? cut.nsPerByte : null,
    jsonParseNsPerByte: parse.nsPerByte,
    truncatedTo: bytes > DEFAULT_MAX_BYTES ? Buffer.byteLength(env.json) : null,
    runs: { coverage: fits.runs, truncation: cut.runs, parse: parse.runs },
  });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
