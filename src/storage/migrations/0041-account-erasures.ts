import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Deleting an account erases its audit log too, which the database otherwise refuses (the log is
 * append-only: migration 0001). `account_erasures` names the accounts being erased; the
 * deletion's transaction inserts the owner's row, deletes, and removes the row again before it
 * commits, so the table is always empty to everyone else. The triggers still refuse every UPDATE
 * and TRUNCATE, and every DELETE but of an entry that is the erased owner's own (`owner_id`) or
 * names that owner as its target (the administrator's "created this account", "changed its
 * plan"): no other code path can thin the log out.
 */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('account_erasures')
    .addColumn('owner_id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'sqlite') {
    await sql`DROP TRIGGER audit_log_no_delete`.execute(db);
    await sql`CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      WHEN NOT EXISTS (SELECT 1 FROM account_erasures e WHERE e.owner_id = OLD.owner_id OR (OLD.target_type = 'user' AND e.owner_id = OLD.target_id))
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
  } else {
    // The same function serves the row trigger (UPDATE, DELETE) and the TRUNCATE statement trigger.
    await sql`CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          IF EXISTS (SELECT 1 FROM account_erasures e WHERE e.owner_id = OLD.owner_id OR (OLD.target_type = 'user' AND e.owner_id = OLD.target_id)) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only';
      END; $$ LANGUAGE plpgsql`.execute(db);
  }
}
