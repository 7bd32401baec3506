import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'daemon/**/*.test.ts'],
    // A run that finds no test must fail (CI relies on it).
    passWithNoTests: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
