import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The per-account lockout of the first design (`users.failed_logins`, `locked_until`) gave way to
 * the login slowdown kept in memory (see accounts.attempts.ts): a lock in the database let anyone
 * who knew an address lock its owner out. Nothing reads the columns, so they go. No index, view
 * or trigger uses them, which SQLite (3.35 and later) requires of a dropped column.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('users').dropColumn('failed_logins').execute();
  await db.schema.alterTable('users').dropColumn('locked_until').execute();
}
