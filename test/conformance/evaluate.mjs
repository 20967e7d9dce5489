// Judges conformance results against test/conformance/expected-failures.yaml.
//
//   node evaluate.mjs <expected-failures.yaml> <era>=<results dir> [<era>=<results dir>...]
//
// Each results dir is what `conformance server -o <dir>` wrote: one folder per scenario
// (`server-<scenario>-<timestamp>/checks.json`). The rules are the suite's own
// (`--expected-failures`): a check fails when its status is FAILURE or WARNING; a
// `<scenario>` entry excuses every failing check of that scenario, a
// `<scenario>:<check-id>` entry only that check (absent or SKIPPED is tolerated). One
// difference: an expected failure that now passes is reported as a note, not a failure.
// Exit code: 1 when any failure is not in the file (or a results dir is empty), else 0.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [baselineFile, ...runs] = process.argv.slice(2);
if (!baselineFile || runs.length === 0) {
  process.stderr.write('usage: evaluate.mjs <expected-failures.yaml> <era>=<results dir>...\n');
  process.exit(2);
}

/** The baseline: entries of `server:` with the comment block written above them. */
function readBaseline(file) {
  const entries = [];
  let inServer = false;
  let comment = [];
  let reason = '';
  for (const [n, raw] of readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trimEnd();
    if (/^[A-Za-z_-]+:\s*$/.test(line)) {
      inServer = line.startsWith('server:');
      continue;
    }
    if (!inServer) continue;
    const c = /^\s+#\s?(.*)$/.exec(line);
    if (c) {
      comment.push(c[1]);
      continue;
    }
    const e = /^\s+-\s+([^\s#:]+)(?::([^\s#]+))?\s*(?:#.*)?$/.exec(line);
    if (e) {
      if (comment.length > 0) reason = comment.join(' ');
      comment = [];
      entries.push({ scenario: e[1], checkId: e[2], reason, used: false });
      continue;
    }
    if (line.trim() !== '')
      throw new Error(`${file}:${n + 1}: cannot read ${JSON.stringify(line)}`);
  }
  return entries;
}

const isFailed = (c) => c.status === 'FAILURE' || c.status === 'WARNING';
const severity = (s) => (s === 'FAILURE' ? 3 : s === 'WARNING' ? 2 : s === 'SUCCESS' ? 1 : 0);

/** One verdict per check id, the most severe occurrence winning (as the suite does). */
function collapse(checks) {
  const byId = new Map();
  for (const c of checks) {
    if (c.status === 'INFO') continue;
    const cur = byId.get(c.id);
    if (!cur || severity(c.status) >= severity(cur.status)) byId.set(c.id, c);
  }
  return [...byId.values()];
}

function readResults(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'checks.json')))
    .sort()
    .map((d) => ({
      scenario: d.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, ''),
      checks: JSON.parse(readFileSync(join(dir, d, 'checks.json'), 'utf8')),
    }));
}

const baseline = readBaseline(baselineFile);
const wholesale = new Map(baseline.filter((e) => !e.checkId).map((e) => [e.scenario, e]));
const perCheck = baseline.filter((e) => e.checkId);

const rows = [];
const unexpected = [];
const stale = [];
let broken = false;

for (const run of runs) {
  const eq = run.indexOf('=');
  const era = run.slice(0, eq);
  const results = readResults(run.slice(eq + 1));
  if (results.length === 0) {
    broken = true;
    unexpected.push(`${era}: no scenario results (did the conformance CLI run?)`);
    continue;
  }
  for (const { scenario, checks } of results) {
    const collapsed = collapse(checks);
    const failed = collapsed.filter(isFailed);
    const whole = wholesale.get(scenario);
    const row = { era, scenario, verdict: 'pass', notes: [] };
    if (whole) {
      whole.used = true;
      if (failed.length > 0) {
        row.verdict = 'expected-fail';
        row.notes.push({ reason: whole.reason });
      } else {
        row.verdict = 'XPASS';
        stale.push(`${era} ${scenario}`);
        row.notes.push('listed in expected-failures but passes now: remove the entry');
      }
    } else {
      const mine = perCheck.filter((e) => e.scenario === scenario);
      for (const c of failed) {
        const entry = mine.find((e) => e.checkId === c.id);
        if (entry) {
          entry.used = true;
          row.notes.push({ check: c.id, reason: entry.reason });
          if (row.verdict === 'pass') row.verdict = 'expected-fail';
        } else {
          row.verdict = 'FAIL';
          const msg = c.errorMessage ?? c.details?.message ?? '';
          row.notes.push(`${c.id} ${c.status}: ${msg}`);
          unexpected.push(`${era} ${scenario}:${c.id} ${c.status}: ${msg}`);
        }
      }
      for (const entry of mine) {
        const seen = collapsed.find((c) => c.id === entry.checkId);
        if (seen?.status === 'SUCCESS') {
          entry.used = true;
          stale.push(`${era} ${scenario}:${entry.checkId}`);
          if (row.verdict === 'pass') row.verdict = 'XPASS';
          row.notes.push(`${entry.checkId} listed in expected-failures but passes now`);
        }
      }
    }
    rows.push(row);
  }
}

// Reasons are printed once, as a legend: [1], [2]... in the table.
const reasons = [];
const ref = (reason) => {
  if (!reasons.includes(reason)) reasons.push(reason);
  return `[${reasons.indexOf(reason) + 1}]`;
};
const label = {
  pass: 'pass',
  'expected-fail': 'expected-fail',
  FAIL: 'FAIL',
  XPASS: 'pass (note)',
};
const width = Math.max(0, ...rows.map((r) => r.scenario.length));
process.stdout.write(`\n${'era'.padEnd(11)} ${'scenario'.padEnd(width)}  result\n`);
for (const r of rows) {
  const notes = r.notes.map((n) =>
    typeof n === 'string' ? n : `${n.check ? `${n.check} ` : ''}${ref(n.reason)}`,
  );
  const head = `${r.era.padEnd(11)} ${r.scenario.padEnd(width)}  ${label[r.verdict]}`;
  process.stdout.write(
    notes.length > 0 ? `${head.padEnd(width + 30)}${notes.join('; ')}\n` : `${head}\n`,
  );
}
if (reasons.length > 0) {
  process.stdout.write('\nWhy the expected failures fail (from expected-failures.yaml):\n');
  reasons.forEach((r, i) => process.stdout.write(`  [${i + 1}] ${r}\n`));
}

const count = (v) => rows.filter((r) => r.verdict === v).length;
const unused = baseline.filter((e) => !e.used);
if (stale.length > 0) {
  process.stdout.write('\nNote: expected failures that now pass (remove them from the file):\n');
  for (const s of stale) process.stdout.write(`  ${s}\n`);
}
if (unused.length > 0) {
  process.stdout.write('\nNote: entries no run exercised (check their names):\n');
  for (const e of unused)
    process.stdout.write(`  ${e.checkId ? `${e.scenario}:${e.checkId}` : e.scenario}\n`);
}
if (unexpected.length > 0) {
  process.stdout.write('\nUnexpected failures (not in expected-failures.yaml):\n');
  for (const u of unexpected) process.stdout.write(`  ${u}\n`);
}
process.stdout.write(
  `\nconformance summary: ${count('pass') + count('XPASS')} scenario runs passed, ` +
    `${count('expected-fail')} failed as expected, ${count('FAIL')} failed unexpectedly` +
    `${stale.length > 0 ? `, ${stale.length} expected failures now pass` : ''}\n`,
);
process.exit(unexpected.length > 0 || broken ? 1 : 0);
