/**
 * Test files that run once, in the SQLite pass, rather than on both engines: a file whose outcome
 * cannot depend on the database engine (pure logic, the console in a browser, the published
 * documents, the command line's parsing) says so with a line of its own near the top,
 *
 *   // @engine-independent: <why the engine cannot change what it checks>
 *
 * and vitest.config.ts leaves it out of a run when TEST_DATABASE_URL is set together with
 * TEST_SKIP_ENGINE_INDEPENDENT=1, as CI's PostgreSQL pass sets them (.ci/run). Run by hand on
 * PostgreSQL, a marked file still runs. A file that reads or writes stored data through the app
 * is not marked: it runs on both engines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The mark, in a `//` line or a line of a doc comment, followed by the reason. */
export const ENGINE_INDEPENDENT_MARK = /^\s*(?:\/\/|\*)\s*@engine-independent:\s*\S/m;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/** The marked test files under `dirs` of `root`, as paths relative to `root` with forward slashes. */
export function engineIndependentFiles(root: string, dirs: readonly string[]): string[] {
  return dirs
    .flatMap((dir) => testFiles(path.join(root, dir)))
    .filter((file) => ENGINE_INDEPENDENT_MARK.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .sort();
}
