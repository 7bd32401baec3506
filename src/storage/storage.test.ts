import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/harness.js';

describe('storage', () => {
  // On PostgreSQL each test app has a schema of its own in one database. Kysely's migrator,
  // left to itself, saw another schema's kysely_migration tables, skipped creating its own
  // and failed ("relation kysely_migration_lock does not exist") whenever two apps overlapped.
  it('migrates a new database while another one is open beside it', async () => {
    const first = await createTestApp();
    try {
      const second = await createTestApp();
      try {
        const a = await first.createOwner();
        const b = await second.createOwner();
        expect(a.role).toBe('admin');
        expect(b.role).toBe('admin');
        const users = await second.storage.db.selectFrom('users').select('id').execute();
        expect(users.map((u) => u.id)).toEqual([b.id]);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
