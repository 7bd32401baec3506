/**
 * The write tracker on embedded SQLite hears of commits made by another connection to the same
 * file (another process: `hearth reset-password`), so that no cache, the token cache among
 * them, serves what that process changed for longer than EXTERNAL_CHECK_MS.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../test/harness.js';
import type { Storage } from './storage.js';
import { CASCADED_TABLES, EXTERNAL_CHECK_MS } from './write-tracker.js';

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

describe('rows the database deletes itself', () => {
  it("are every foreign key's cascade but the owner's, and a write to the parent counts for each table it reaches", async () => {
    const t = await createTestApp();
    try {
      const { writes, db } = t.storage;
      // The schema's own cascades, read from the database this engine migrated.
      const keys =
        ENGINE === 'sqlite'
          ? (
              await sql<{ child: string; parent: string }>`
                SELECT m.name AS child, f."table" AS parent FROM sqlite_master m, pragma_foreign_key_list(m.name) f
                WHERE m.type = 'table' AND f.on_delete = 'CASCADE'`.execute(db)
            ).rows
          : (
              await sql<{ child: string; parent: string }>`
                SELECT DISTINCT child.relname AS child, parent.relname AS parent FROM pg_constraint c
                JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid
                WHERE c.contype = 'f' AND c.confdeltype = 'c' AND child.relnamespace = current_schema()::regnamespace`.execute(db)
            ).rows;
      const schema = new Map<string, string[]>();
      for (const { child, parent } of keys) if (parent !== 'users') schema.set(parent, [...(schema.get(parent) ?? []), child].sort());
      const declared = new Map([...CASCADED_TABLES].map(([parent, children]) => [parent, [...children].sort()]));
      expect(Object.fromEntries(declared)).toEqual(Object.fromEntries(schema));

      // A webhook's deliveries go with it, and their attempts with them.
      const before = [writes.stamp(['webhook_attempts']), writes.stamp(['users'])];
      writes.noteWrites(['webhook_endpoints']);
      expect([writes.stamp(['webhook_attempts']), writes.stamp(['users'])]).toEqual([before[0]! + 1, before[1]]);
    } finally {
      await t.close();
    }
  });
});
