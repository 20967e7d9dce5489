// Reads vitest's JSON report and prints the closing line CI reads: "N passed, N failed".
// Lint or typecheck failures (passed in as the second argument) count as one failure,
// so a red step can never hide behind green tests.
import { existsSync, readFileSync } from 'node:fs';

const [file, stepStatus = '0'] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
if (file && existsSync(file)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A test file that fails to load has no tests but is a failure.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed += 1;
}
const stepFailed = stepStatus !== '0' && failed === 0 ? 1 : 0;
console.log(
  `${passed} passed, ${failed + stepFailed} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed + stepFailed > 0 || passed === 0 ? 1 : 0);
