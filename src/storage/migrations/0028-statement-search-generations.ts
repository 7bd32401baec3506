import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/** The tables whose rows the in-memory search index (storage/search/index-cache.ts) holds. */
const SEARCHED_TABLES = ['skills', 'memory_entries', 'kb_documents'];

/**
 * The search generations of 0020, bumped once per statement instead of once per row. A group
 * commit writes the rows of many requests with one multi-row INSERT; a row trigger bumped the
 * same generation row once per row, each bump an upsert that left a dead row version behind and
 * cost more than inserting the row itself. A statement trigger bumps each owner written once,
 * reading the rows from the statement's transition tables. What a search sees is unchanged: the
 * generation still grows with every write to the owner's rows, in the writing transaction.
 *
 * PostgreSQL allows transition tables on a trigger of one event only: three triggers per table,
 * each with its function. A statement that changes no row bumps nothing.
 */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'postgres') return;
  const bump = (owners: string) => `
    INSERT INTO search_generations (owner_id, table_name, shard, generation)
    SELECT owner_id, TG_TABLE_NAME, pg_backend_pid() % 64, 1 FROM (${owners}) AS written
    ON CONFLICT (owner_id, table_name, shard) DO UPDATE SET generation = search_generations.generation + 1`;
  const functions: Array<[name: string, owners: string]> = [
    ['bump_search_generations_inserted', 'SELECT DISTINCT owner_id FROM new_rows'],
    ['bump_search_generations_deleted', 'SELECT DISTINCT owner_id FROM old_rows'],
    // The old owner and, when a row moved, the new one (UNION leaves each once, as ON CONFLICT needs).
    ['bump_search_generations_updated', 'SELECT owner_id FROM old_rows UNION SELECT owner_id FROM new_rows'],
  ];
  for (const [name, owners] of functions) {
    await sql
      .raw(`CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN ${bump(owners)}; RETURN NULL; END $$ LANGUAGE plpgsql`)
      .execute(db);
  }
  for (const table of SEARCHED_TABLES) {
    await sql.raw(`DROP TRIGGER ${table}_search_generation ON ${table}`).execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${table}_search_generation_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_search_generations_inserted()`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${table}_search_generation_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_search_generations_deleted()`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${table}_search_generation_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_search_generations_updated()`,
      )
      .execute(db);
  }
  await sql`DROP FUNCTION bump_search_generation()`.execute(db);
}
