// @engine-independent: reads the test files' text; no database
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineIndependentFiles } from './engine-independent.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const MARKED = engineIndependentFiles(ROOT, ['src', 'test', 'daemon']);

/** A test or group that runs only on PostgreSQL, however it is written. */
const POSTGRES_ONLY = /(?:runIf\((?:ENGINE === 'postgres'|TEST_DATABASE_URL|Boolean\(TEST_DATABASE_URL\))|skipIf\((?:ENGINE !== 'postgres'|ENGINE === 'sqlite'|!TEST_DATABASE_URL))\)/;

describe('files marked engine-independent', () => {
  it('are found, each with its reason', () => {
    expect(MARKED.length).toBeGreaterThan(0);
    expect(MARKED).toContain('test/engine-independent.test.ts');
  });

  it('hold no test that runs only on PostgreSQL: the PostgreSQL pass leaves them out, so it would never run', () => {
    const offending = MARKED.filter((file) => POSTGRES_ONLY.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(offending).toEqual([]);
  });
});
