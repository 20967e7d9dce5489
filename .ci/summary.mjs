// Reads vitest's JSON reports (the machine's Node pass and the Node 24 pass) and prints
// the closing line CI reads: "N passed, N failed". A failed step (its status, the first
// argument: lint, typecheck, conformance, the Inspector) counts as one failure, so a red
// step can never hide behind green tests; a report that is missing counts as one too.
//
//   node .ci/summary.mjs <status> <report.json>...
import { existsSync, readFileSync } from 'node:fs';

const [stepStatus = '0', ...files] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  if (!existsSync(file)) {
    console.error(`summary: no report at ${file}`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A test file that fails to load has no tests but is a failure.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
}
if (files.length === 0) failed += 1;
const stepFailed = stepStatus !== '0' && failed === 0 ? 1 : 0;
console.log(
  `${passed} passed, ${failed + stepFailed} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed + stepFailed > 0 || passed === 0 ? 1 : 0);
