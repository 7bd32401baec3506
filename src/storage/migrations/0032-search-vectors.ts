import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Vectors for search by meaning, and the leases that share their computing between nodes
 * (docs/decisions/search.md, "Vectors and indexing").
 *
 * - `search_vectors`: one row per owner, source kind, item and model. The vector is stored as
 *   int8 codes (a blob of `dimensions` bytes) and one float scale. `item_updated_at` is the
 *   item's `updated_at` when it was embedded: an item whose `updated_at` differs is stale, found
 *   by an anti-join, so a write to memory or skills writes nothing more than it did. `text_hash`
 *   spares re-embedding an item touched without its text changing.
 * - `search_claims`: who computes an item's vector now, until when. A node takes an item by an
 *   upsert that succeeds only where no live lease is held; a node that dies leaves a lease that
 *   simply expires, and the work is found again by the anti-join (nothing else to resume).
 *
 * Deleting an item deletes its vectors in the same statement, by a trigger on the item's table
 * (a foreign key cannot point at several tables); deleting an owner cascades.
 */
const SOURCES: Array<{ table: string; source: string; key: string }> = [
  { table: 'memory_entries', source: 'memory', key: 'id' },
  { table: 'skills', source: 'skill', key: 'id' },
];

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  const owner = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade');
  await db.schema
    .createTable('search_vectors')
    .addColumn('owner_id', 'text', owner)
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('dimensions', 'integer', (c) => c.notNull())
    .addColumn('codes', dialect === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
    .addColumn('scale', dialect === 'sqlite' ? 'real' : 'double precision', (c) => c.notNull())
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('item_updated_at', 'text', (c) => c.notNull())
    .addColumn('embedded_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_vectors_pk', ['owner_id', 'source', 'item_id', 'model'])
    .execute();
  // "Every vector owner X has for model M": loading an owner's index, counting what is indexed.
  await db.schema.createIndex('search_vectors_owner_model').on('search_vectors').columns(['owner_id', 'model']).execute();

  await db.schema
    .createTable('search_claims')
    .addColumn('owner_id', 'text', owner)
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_claims_pk', ['owner_id', 'source', 'item_id'])
    .execute();

  for (const { table, source, key } of SOURCES) {
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_vectors_ad AFTER DELETE ON ${table} BEGIN
             DELETE FROM search_vectors WHERE owner_id = old.owner_id AND source = '${source}' AND item_id = CAST(old.${key} AS TEXT);
           END`,
        )
        .execute(db);
    } else {
      // One statement per DELETE, reading the deleted rows from the transition table.
      await sql
        .raw(
          `CREATE FUNCTION ${table}_forget_vectors() RETURNS trigger AS $$ BEGIN
             DELETE FROM search_vectors v USING old_rows o
              WHERE v.owner_id = o.owner_id AND v.source = '${source}' AND v.item_id = o.${key}::text;
             RETURN NULL;
           END $$ LANGUAGE plpgsql`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER ${table}_vectors_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_forget_vectors()`,
        )
        .execute(db);
    }
  }
}
