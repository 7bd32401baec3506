// Prints the plain closing line CI reads ("Label: N passed, N failed") from Vitest's JSON report,
// after the ten slowest files (where the time of a run goes) and every failed test with the first
// lines of its message (the run's log is long and may be read only from its end), and fails when
// the report shows that no test ran.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, label] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const slowest = (report.testResults ?? [])
  .map((file) => ({ name: path.relative(process.cwd(), file.name), seconds: (file.endTime - file.startTime) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 10);
console.log(`${label}: the slowest files`);
for (const file of slowest) console.log(`  ${file.seconds.toFixed(1).padStart(6)} s  ${file.name}`);
const failures = (report.testResults ?? []).flatMap((file) =>
  (file.assertionResults ?? [])
    .filter((test) => test.status === 'failed')
    .map((test) => ({ file: path.relative(process.cwd(), file.name), test })),
);
// A file that fails before its tests run (an import error) has no failed test, only a message.
const brokenFiles = (report.testResults ?? []).filter(
  (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
);
for (const { file, test } of failures) {
  console.log(`${label}: FAILED ${file} > ${test.fullName ?? test.title}`);
  const message = (test.failureMessages ?? []).join('\n').split('\n').slice(0, 8);
  for (const line of message) console.log(`    ${line}`);
}
for (const file of brokenFiles) {
  console.log(`${label}: FAILED ${path.relative(process.cwd(), file.name)}`);
  for (const line of String(file.message ?? '').split('\n').slice(0, 8)) console.log(`    ${line}`);
}
console.log(`${label}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed + failed === 0) {
  console.error('No test ran');
  process.exit(1);
}
