import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The nodes sharing one PostgreSQL, and what remote PCs need across them.
 *
 * - `cluster_nodes`: every node's row, its heartbeat refreshed every CLUSTER_HEARTBEAT_MS by the
 *   node itself; a node whose heartbeat is older than three intervals is dead (a killed process
 *   leaves its row, which simply stops being fresh). On PostgreSQL the times are the database's
 *   own clock (timestamptz), so that nodes with skewed clocks agree on who is alive.
 * - `afp_links`: which node holds each connected device's daemon link. A row counts only while
 *   its node is alive.
 * - `afp_payloads`: request arguments and answers too large for a notification (a write's
 *   content, a read's file, up to 16 MiB), kept for the seconds a request takes. UNLOGGED on
 *   PostgreSQL: nothing in it must outlive a crash, and it skips the write-ahead log.
 *
 * SQLite has one node per data directory: the tables exist there too (one schema for both
 * engines) but nothing writes them.
 */
export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  const pg = ctx.dialect === 'postgres';
  const time = pg ? 'timestamptz' : 'text';
  await db.schema
    .createTable('cluster_nodes')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', time, (c) => c.notNull())
    .addColumn('heartbeat_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('afp_links')
    .addColumn('device_id', 'text', (c) => c.primaryKey().references('afp_devices.id').onDelete('cascade'))
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('connected_at', time, (c) => c.notNull())
    .addColumn('last_seen_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('afp_links_node').on('afp_links').column('node_id').execute();
  if (pg) {
    await sql`CREATE UNLOGGED TABLE afp_payloads (id text PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`.execute(db);
  } else {
    await db.schema
      .createTable('afp_payloads')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  }
}
