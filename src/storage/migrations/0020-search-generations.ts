import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/** The tables whose rows the in-memory search index (storage/search/index-cache.ts) holds. */
const SEARCHED_TABLES = ['skills', 'memory_entries', 'kb_documents'];

/**
 * A generation per owner and searched table, bumped by every write to the owner's rows in the
 * writing transaction. A node's in-memory search index reads it with one indexed query before
 * it answers and rebuilds when it changed, so a write made on any node of a shared PostgreSQL
 * is seen by the next search everywhere. SQLite needs no table: one process makes every write
 * there, and its write tracker tells the index.
 *
 * The generation is the sum of counters in shards, one chosen by the writing connection: a
 * single counter row would make concurrent transactions writing one owner's rows wait for one
 * another's commit on its lock; a connection runs one transaction at a time, so with shards
 * by connection they do not wait (unless two connections share a shard). Every commit adds
 * to one shard, so the sum grows with every write whatever the order of the commits.
 */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`CREATE TABLE search_generations (
    owner_id TEXT NOT NULL,
    table_name TEXT NOT NULL,
    shard SMALLINT NOT NULL,
    generation BIGINT NOT NULL,
    PRIMARY KEY (owner_id, table_name, shard)
  )`.execute(db);
  await sql`CREATE FUNCTION bump_search_generation() RETURNS trigger AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        INSERT INTO search_generations (owner_id, table_name, shard, generation) VALUES (OLD.owner_id, TG_TABLE_NAME, pg_backend_pid() % 64, 1)
        ON CONFLICT (owner_id, table_name, shard) DO UPDATE SET generation = search_generations.generation + 1;
      END IF;
      IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.owner_id IS DISTINCT FROM OLD.owner_id) THEN
        INSERT INTO search_generations (owner_id, table_name, shard, generation) VALUES (NEW.owner_id, TG_TABLE_NAME, pg_backend_pid() % 64, 1)
        ON CONFLICT (owner_id, table_name, shard) DO UPDATE SET generation = search_generations.generation + 1;
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`.execute(db);
  for (const table of SEARCHED_TABLES) {
    await sql
      .raw(`CREATE TRIGGER ${table}_search_generation AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION bump_search_generation()`)
      .execute(db);
  }
}
