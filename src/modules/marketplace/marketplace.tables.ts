import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const marketplaceTables = ownedTables({
  /** Listings: shared across owners; `snapshot` is what an install copies. */
  marketplace_listings: table(
    {
      id: column.text(),
      owner_id: column.text(),
      type: column.text<'skill' | 'persona'>(),
      /** The original's id as text (skill ids are integers). */
      ref_id: column.text(),
      title: column.text(),
      description: column.text(),
      price: column.integer(),
      /** JSON: the published content. */
      snapshot: column.json(),
      snapshot_at: column.time(),
      rating_sum: column.integer(),
      rating_count: column.integer(),
      /** round(average × 1 000 000), 0 when unrated: the rating sort key. */
      rating_key: column.integer(),
      installs: column.integer(),
      created_at: column.time(),
      updated_at: column.time(),
    },
    { fullText: { columns: ['title', 'description'], sqliteRowKey: 'rid' } },
  ),
  /** One rating per user and listing; a second replaces the first. */
  marketplace_ratings: table({
    listing_id: column.text(),
    user_id: column.text(),
    rating: column.integer(),
    review: column.text().orNull(),
    created_at: column.time(),
    updated_at: column.time(),
  }),
});

export type MarketplaceTables = TablesOf<typeof marketplaceTables>;
export type MarketplaceListingsTable = MarketplaceTables['marketplace_listings'];
export type MarketplaceRatingsTable = MarketplaceTables['marketplace_ratings'];
