import { configDefaults, defineConfig } from 'vitest/config';
import { engineIndependentFiles } from './test/engine-independent.js';

const ROOT = import.meta.dirname;
const TEST_DIRS = ['src', 'test', 'daemon'];

// CI's PostgreSQL pass leaves out the files marked engine-independent: the SQLite pass has run
// them, and they cannot answer differently on PostgreSQL (test/engine-independent.ts).
const ONCE_ONLY = process.env.TEST_DATABASE_URL && process.env.TEST_SKIP_ENGINE_INDEPENDENT === '1' ? engineIndependentFiles(ROOT, TEST_DIRS) : [];

export default defineConfig({
  test: {
    include: TEST_DIRS.map((dir) => `${dir}/**/*.test.ts`),
    exclude: [...configDefaults.exclude, ...ONCE_ONLY],
    // A run that finds no test must fail (CI relies on it).
    passWithNoTests: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A worker process runs file after file with the modules it has loaded: a fresh process per
    // file spent about 2 s importing and compiling the app's modules each time, over a third of
    // a file's time for most. Files share no state through them: each builds its own app on its
    // own data (test/harness.ts), as several apps in one file always have.
    isolate: false,
  },
});
