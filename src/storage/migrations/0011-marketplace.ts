import type { Kysely } from 'kysely';
import { createFullTextIndex } from '../search/full-text.js';
import type { MigrationContext } from '../dialect.js';

/**
 * The marketplace: listings shared across owners, each holding a snapshot of what was published,
 * and one rating per user and listing.
 */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  // Searched text-keyed table: on SQLite an explicit integer `rid` is the rowid FTS5 rows point at
  // (an implicit rowid would be renumbered by VACUUM); see migration 0003.
  const table = db.schema.createTable('marketplace_listings');
  const keyed =
    dialect === 'sqlite'
      ? table.addColumn('rid', 'integer', (c) => c.primaryKey()).addColumn('id', 'text', (c) => c.notNull().unique())
      : table.addColumn('id', 'text', (c) => c.primaryKey());
  await keyed
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    // The published skill's id (as text) or persona's id; the original may later be deleted.
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('price', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON: what an install copies; taken at publish time, refreshed only on request.
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .addColumn('snapshot_at', 'text', (c) => c.notNull())
    .addColumn('rating_sum', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    // round(average × 1 000 000), 0 when unrated: an integer sort key that cursors carry exactly.
    .addColumn('rating_key', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('installs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One listing per original: republishing is refreshing the existing listing's snapshot.
  await db.schema.createIndex('marketplace_listings_ref').unique().on('marketplace_listings').columns(['owner_id', 'type', 'ref_id']).execute();
  await db.schema.createIndex('marketplace_listings_owner').on('marketplace_listings').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('marketplace_listings_rating').on('marketplace_listings').columns(['rating_key', 'rating_count', 'id']).execute();
  await db.schema.createIndex('marketplace_listings_installs').on('marketplace_listings').columns(['installs', 'id']).execute();
  await createFullTextIndex(db, dialect, {
    table: 'marketplace_listings',
    rowKey: dialect === 'sqlite' ? 'rid' : 'id',
    columns: [
      { name: 'title', weight: 4 },
      { name: 'description', weight: 1 },
    ],
  });

  await db.schema
    .createTable('marketplace_ratings')
    .addColumn('listing_id', 'text', (c) => c.notNull().references('marketplace_listings.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('rating', 'integer', (c) => c.notNull())
    .addColumn('review', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('marketplace_ratings_pk', ['listing_id', 'user_id'])
    .execute();
  await db.schema.createIndex('marketplace_ratings_listing_updated').on('marketplace_ratings').columns(['listing_id', 'updated_at']).execute();
}
