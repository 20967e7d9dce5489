// In-process cost of redaction (src/engine/redact.ts) on results of 10 KB and 1 MB, in
// ns per byte of result JSON, run in its own process by bench/run.mjs against the
// compiled build. Cases: one bearer credential (the token and `Bearer <token>`) or a
// heavier set (bearer, basic, an `auth query` key, three API keys); a result with no
// secret (the hot path: one scan) and one that echoes a secret in a few spellings every
// ~50 rows (scan + replace). Beside them, in the same run: `indexOf` of a character
// that is not there (the cheapest full scan) and JSON.parse of the same bytes.
// Prints one JSON line.
import { pathToFileURL } from 'node:url';
import { listRows } from './lib/list-rows.mjs';
import { measureNsPerByte } from './lib/measure.mjs';

// argv[3]: the dist/ folder of the build to measure (default: this checkout's).
const dist = process.argv[3] ?? new URL('../dist', import.meta.url).pathname;
const { makeRedactor } = await import(pathToFileURL(`${dist}/engine/redact.js`).href);
const budgetMs = Number(process.argv[2] ?? 700);

const TOKEN = 'ghp_UPSTREAM/tok+en_9f8e7d6c5b4a3f2e1d0c';
const form = (v) => new URLSearchParams([['', v]]).toString().slice(1);
const PASS = 'pa/ss w0rd~(!)';
const QUERY_KEY = "qk~(!) it's*key_77";
const SETS = {
  'one bearer': makeRedactor([TOKEN], [`Bearer ${TOKEN}`]),
  'bearer + basic + query + 3 API keys': makeRedactor(
    [
      TOKEN,
      PASS,
      Buffer.from(`svc:${PASS}`).toString('base64'),
      QUERY_KEY,
      form(QUERY_KEY),
      'inbound-reader-key-123',
      'inbound-writer-key-456',
      'inbound-admin-key-789',
    ],
    [`Bearer ${TOKEN}`, `svc:${PASS}`, `api_key=${form(QUERY_KEY)}`],
  ),
};

const SIZES = [
  ['10 KB', 10 * 1024],
  ['1 MB', 1024 * 1024],
];

/** The bench rows as JSON, some echoing `echo(i)`. */
function jsonOf(bytes, echo) {
  return JSON.stringify(listRows(bytes, echo));
}

const SPELLINGS = [
  (t) => `Bearer ${t}`,
  (t) => `Bearer ${t}`.replace(/\//g, '\\/'),
  (t) => `url=/x?access_token=${encodeURIComponent(t)}`,
  (t) => Buffer.from(`Bearer ${t}`).toString('base64'),
];

/** Median ns per byte of `fn` over runs bounded by count and by time. */
function measure(fn, bytes) {
  return measureNsPerByte(fn, bytes, { budgetMs, warmups: 3, minRuns: 5, maxRuns: 2000 }).nsPerByte;
}

const out = [];
for (const [label, target] of SIZES) {
  const clean = jsonOf(target);
  const dirty = jsonOf(target, (i) => SPELLINGS[i % SPELLINGS.length](TOKEN));
  const bytes = Buffer.byteLength(clean);
  let sink = 0;
  const indexOf = measure(() => (sink += clean.indexOf('\u0001')), bytes);
  const parse = measure(() => (sink += JSON.parse(clean).length), bytes);
  for (const [secrets, redact] of Object.entries(SETS)) {
    if (redact.text(dirty).includes(TOKEN)) throw new Error('the bench data was not redacted');
    out.push({
      size: label,
      bytes,
      secrets,
      noSecretNsPerByte: measure(() => (sink += redact.found(clean) ? 1 : 0), bytes),
      withSecretsNsPerByte: measure(() => (sink += redact.text(dirty).length), bytes),
      indexOfNsPerByte: indexOf,
      jsonParseNsPerByte: parse,
    });
  }
  if (sink === 0.5) process.stderr.write('');
}
process.stdout.write(`${JSON.stringify(out)}\n`);
