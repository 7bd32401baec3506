import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Rate limits and quotas counted across the nodes that share one PostgreSQL database
 * (storage/shared-counters.ts): one row per key and window, its count and when the window ends
 * (milliseconds since the epoch). UNLOGGED: counters are worth nothing after a crash and are
 * written on every flush, so they skip the write-ahead log (a crash empties the table, which
 * at worst gives every client a fresh window). Ended windows are deleted a batch at a time,
 * through the index on their end.
 *
 * SQLite serves one process per data directory, whose counters stay in its memory: no table.
 */
export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await sql`create unlogged table shared_counters (
    key text primary key,
    window_end bigint not null,
    count bigint not null
  )`.execute(db);
  await sql`create index shared_counters_window_end on shared_counters (window_end)`.execute(db);
}
