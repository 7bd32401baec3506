/**
 * The write tracker on embedded SQLite hears of commits made by another connection to the same
 * file (another process: `hearth reset-password`), so that no cache, the token cache among
 * them, serves what that process changed for longer than EXTERNAL_CHECK_MS.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../test/harness.js';
import type { Storage } from './storage.js';
import { EXTERNAL_CHECK_MS } from './write-tracker.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(ENGINE === 'sqlite')('the write tracker on SQLite', () => {
  let t: TestApp;
  let other: Storage;
  beforeAll(async () => {
    t = await createTestApp();
    other = await t.openStorage();
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it("keeps its stamps while nothing is written, and changes every one within EXTERNAL_CHECK_MS of another connection's commit", async () => {
    const tables = ['tokens', 'users'];
    const before = t.storage.writes.stamp(tables);
    await later(EXTERNAL_CHECK_MS + 50);
    expect(t.storage.writes.stamp(tables)).toBe(before);

    // A real change (SQLite counts no commit that changed nothing), then back as it was.
    await sql`UPDATE kysely_migration_lock SET is_locked = 1 - is_locked`.execute(other.db);
    await sql`UPDATE kysely_migration_lock SET is_locked = 1 - is_locked`.execute(other.db);
    await later(EXTERNAL_CHECK_MS + 50);
    const after = t.storage.writes.stamp(tables);
    expect(after).not.toBe(before);
    // Counted once: the stamp then holds still again.
    await later(EXTERNAL_CHECK_MS + 50);
    expect(t.storage.writes.stamp(tables)).toBe(after);
  });
});

describe.runIf(ENGINE === 'sqlite')('raw write statements on SQLite (PostgreSQL’s pool reads them itself, postgres-pool.ts)', () => {
  it('count as writes of the one table they name, or of every table when they name none it can read', async () => {
    const t = await createTestApp();
    try {
      const { writes, db } = t.storage;
      const stamps = () => [writes.stamp(['kysely_migration_lock']), writes.stamp(['users']), writes.stamp([])];
      const [lock, users, unknown] = stamps();
      await sql`UPDATE kysely_migration_lock SET is_locked = is_locked`.execute(db);
      expect(stamps()).toEqual([lock! + 1, users, unknown]);
      await sql`update "kysely_migration_lock" set is_locked = is_locked`.execute(db);
      expect(stamps()).toEqual([lock! + 2, users, unknown]);
      // A statement it cannot place counts as a write to every table.
      await sql`INSERT OR IGNORE INTO kysely_migration_lock (id, is_locked) VALUES ('migration_lock', 0)`.execute(db);
      expect(stamps()).toEqual([lock! + 3, users! + 1, unknown! + 1]);
      // A raw read counts as nothing.
      await sql`SELECT 1`.execute(db);
      expect(stamps()).toEqual([lock! + 3, users! + 1, unknown! + 1]);
    } finally {
      await t.close();
    }
  });
});
