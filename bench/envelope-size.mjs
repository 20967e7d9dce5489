// Bytes an agent receives for issue 17's case: 2,000 rows with a `tags` array each,
// against the compiled build (argv[2]: its dist/ folder; default this checkout's), so
// `--gateway` compares builds. Prints one JSON line: the coverage of the whole result
// (max-bytes large enough to keep it), and the whole envelope at max-bytes=20000.
import { pathToFileURL } from 'node:url';

const dist = process.argv[2] ?? new URL('../dist', import.meta.url).pathname;
const { buildEnvelope } = await import(pathToFileURL(`${dist}/envelope/envelope.js`).href);

const rows = Array.from({ length: 2000 }, (_, i) => ({
  id: i,
  title: `Item number ${i} with a short title`,
  state: i % 3 === 0 ? 'closed' : 'open',
  tags: ['bug', 'p2', 'ui', 'backend'].slice(0, i % 5),
  created_at: '2026-01-02T03:04:05Z',
}));
const json = JSON.stringify(rows);
const bytes = (s) => Buffer.byteLength(s, 'utf8');
const whole = buildEnvelope(
  { result: rows, resultJson: json },
  { maxBytes: 10 * bytes(json), budgetBytes: 40_000 },
);
const capped = buildEnvelope(
  { result: rows, resultJson: json },
  { maxBytes: 20_000, budgetBytes: 40_000 },
);
// pick, where the build has it: what shaping saves before the cap is applied.
let picked = null;
try {
  const { prepareShaper } = await import(pathToFileURL(`${dist}/envelope/shape.js`).href);
  const shape = prepareShaper({ mode: 'pick', paths: ['id', 'title', 'tags'] });
  const env = buildEnvelope(shape({ result: rows, resultJson: json }), {
    maxBytes: 20_000,
    budgetBytes: 40_000,
  });
  picked = {
    paths: 'id title tags',
    bytes: env.envelope.coverage.bytes,
    upstreamBytes: env.envelope.coverage.upstream_bytes,
    cappedRowsKept: env.envelope.result.length,
  };
} catch {
  // A build without pick/omit.
}
process.stdout.write(
  `${JSON.stringify({
    rows: rows.length,
    resultBytes: bytes(json),
    coverageBytes: bytes(JSON.stringify(whole.envelope.coverage)),
    coverageEntries: whole.envelope.coverage.items.length,
    itemsOmitted: whole.envelope.coverage.items_omitted ?? 0,
    cap: 20_000,
    cappedEnvelopeBytes: bytes(capped.json),
    cappedCoverageBytes: bytes(JSON.stringify(capped.envelope.coverage)),
    cappedRowsKept: capped.envelope.result.length,
    picked,
  })}\n`,
);
