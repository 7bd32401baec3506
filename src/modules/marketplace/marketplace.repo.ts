import { sql, type Expression, type SqlBool } from 'kysely';
import { pgTsQueryText, sqliteMatchExpression } from '../../storage/search/full-text.js';
import type { Dialect } from '../../storage/dialect.js';
import type { Executor } from '../../storage/columns.js';
import type { MarketplaceListingsTable, MarketplaceRatingsTable, MarketplaceTables } from './marketplace.tables.js';
import type { ListingSort, ListingType, PersonaSnapshot, SkillSnapshot } from './marketplace.schemas.js';

// Columns by name: SQLite's table also has `rid`, PostgreSQL's `search_vector`; neither is read.
const SUMMARY_COLUMNS = [
  'id',
  'owner_id',
  'type',
  'ref_id',
  'title',
  'description',
  'price',
  'snapshot_at',
  'rating_sum',
  'rating_count',
  'rating_key',
  'installs',
  'created_at',
  'updated_at',
] as const;
const FULL_COLUMNS = [...SUMMARY_COLUMNS, 'snapshot'] as const;

export type ListingRow = MarketplaceListingsTable;
export type ListingSummaryRow = Omit<MarketplaceListingsTable, 'snapshot'>;
export type RatingRow = MarketplaceRatingsTable;

/** Where the previous page ended, in the order of the sort: its sort keys and the last id. */
export type ListingAfter =
  | { sort: 'newest'; id: string }
  | { sort: 'installs'; installs: number; id: string }
  | { sort: 'rating'; ratingKey: number; ratingCount: number; id: string };

export interface ListingListOptions {
  /** Only this publisher's listings (my-listings); every owner's otherwise. */
  ownerId?: string | undefined;
  type?: ListingType | undefined;
  /** Already split into words (queryTerms); an empty list matches nothing. */
  terms?: string[] | undefined;
  sort: ListingSort;
  limit: number;
  after?: ListingAfter | undefined;
}


export function createMarketplaceRepo(db: Executor<MarketplaceTables>, dialect: Dialect) {
  function matches(terms: string[]): Expression<SqlBool> {
    if (dialect === 'sqlite') {
      return sql<SqlBool>`rid IN (SELECT rowid FROM marketplace_listings_fts WHERE marketplace_listings_fts MATCH ${sqliteMatchExpression(terms, 'all')})`;
    }
    return sql<SqlBool>`search_vector @@ to_tsquery('english', ${pgTsQueryText(terms, 'all')})`;
  }

  return {
    async insert(row: ListingRow, trx?: Executor<MarketplaceTables>): Promise<void> {
      await (trx ?? db).insertInto('marketplace_listings').values(row).execute();
    },

    /**
     * Any owner's listing: the marketplace is shared. Inside a transaction on PostgreSQL the row
     * is locked, so that ratings of one listing are counted one after another.
     */
    async get(id: string, trx?: Executor<MarketplaceTables>): Promise<ListingRow | undefined> {
      let query = (trx ?? db).selectFrom('marketplace_listings').select(FULL_COLUMNS).where('id', '=', id);
      if (trx && dialect === 'postgres') query = query.forUpdate();
      return query.executeTakeFirst();
    },

    async getOwned(ownerId: string, id: string, trx?: Executor<MarketplaceTables>): Promise<ListingRow | undefined> {
      let query = (trx ?? db).selectFrom('marketplace_listings').select(FULL_COLUMNS).where('owner_id', '=', ownerId).where('id', '=', id);
      if (trx && dialect === 'postgres') query = query.forUpdate();
      return query.executeTakeFirst();
    },

    async findByRef(ownerId: string, type: ListingType, refId: string): Promise<{ id: string } | undefined> {
      return db
        .selectFrom('marketplace_listings')
        .select('id')
        .where('owner_id', '=', ownerId)
        .where('type', '=', type)
        .where('ref_id', '=', refId)
        .executeTakeFirst();
    },

    /** One page of summaries in the sort's order, starting after `after`. */
    async list(options: ListingListOptions): Promise<ListingSummaryRow[]> {
      if (options.terms && options.terms.length === 0) return [];
      let q = db.selectFrom('marketplace_listings').select(SUMMARY_COLUMNS);
      if (options.ownerId !== undefined) q = q.where('owner_id', '=', options.ownerId);
      if (options.type !== undefined) q = q.where('type', '=', options.type);
      if (options.terms) q = q.where(matches(options.terms));
      const after = options.after;
      if (after) {
        q = q.where((eb) => {
          switch (after.sort) {
            case 'newest':
              return eb('id', '<', after.id);
            case 'installs':
              return eb.or([eb('installs', '<', after.installs), eb.and([eb('installs', '=', after.installs), eb('id', '<', after.id)])]);
            case 'rating':
              return eb.or([
                eb('rating_key', '<', after.ratingKey),
                eb.and([
                  eb('rating_key', '=', after.ratingKey),
                  eb.or([
                    eb('rating_count', '<', after.ratingCount),
                    eb.and([eb('rating_count', '=', after.ratingCount), eb('id', '<', after.id)]),
                  ]),
                ]),
              ]);
          }
        });
      }
      switch (options.sort) {
        case 'newest':
          q = q.orderBy('id', 'desc');
          break;
        case 'installs':
          q = q.orderBy('installs', 'desc').orderBy('id', 'desc');
          break;
        case 'rating':
          q = q.orderBy('rating_key', 'desc').orderBy('rating_count', 'desc').orderBy('id', 'desc');
          break;
      }
      return q.limit(options.limit).execute();
    },

    async update(
      ownerId: string,
      id: string,
      changes: Partial<Pick<ListingRow, 'title' | 'description' | 'snapshot' | 'snapshot_at' | 'updated_at'>>,
      trx?: Executor<MarketplaceTables>,
    ): Promise<boolean> {
      const result = await (trx ?? db)
        .updateTable('marketplace_listings')
        .set(changes)
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Ratings go with the listing (ON DELETE CASCADE); installed copies are not touched. */
    async delete(ownerId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('marketplace_listings').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Counted in the database (`installs = installs + 1`), so concurrent installs are all counted. */
    async countInstall(id: string): Promise<void> {
      await db
        .updateTable('marketplace_listings')
        .set((eb) => ({ installs: eb('installs', '+', 1) }))
        .where('id', '=', id)
        .execute();
    },

    /** The user's rating of the listing, replacing an earlier one. */
    async upsertRating(row: RatingRow, trx: Executor<MarketplaceTables>): Promise<void> {
      await trx
        .insertInto('marketplace_ratings')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['listing_id', 'user_id']).doUpdateSet({ rating: row.rating, review: row.review, updated_at: row.updated_at }),
        )
        .execute();
    },

    async ratingTotals(listingId: string, trx: Executor<MarketplaceTables>): Promise<{ sum: number; count: number }> {
      const row = await trx
        .selectFrom('marketplace_ratings')
        .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('rating'), sql<number>`0`).as('sum'), eb.fn.countAll<number>().as('count')])
        .where('listing_id', '=', listingId)
        .executeTakeFirstOrThrow();
      return { sum: Number(row.sum), count: Number(row.count) };
    },

    /** Deletes the user's ratings of every listing; the listings they rated, for their totals to be recomputed. */
    async deleteRatingsBy(userId: string, trx: Executor<MarketplaceTables>): Promise<string[]> {
      const rows = await trx.deleteFrom('marketplace_ratings').where('user_id', '=', userId).returning('listing_id').execute();
      return rows.map((row) => row.listing_id);
    },

    async setRatingTotals(
      id: string,
      totals: Pick<ListingRow, 'rating_sum' | 'rating_count' | 'rating_key'>,
      trx: Executor<MarketplaceTables>,
    ): Promise<void> {
      await trx.updateTable('marketplace_listings').set(totals).where('id', '=', id).execute();
    },

    /** Most recently rated first; `after` is where the previous page ended. */
    async listRatings(listingId: string, options: { limit: number; after?: { updatedAt: string; userId: string } | undefined }): Promise<RatingRow[]> {
      let q = db
        .selectFrom('marketplace_ratings')
        .select(['listing_id', 'user_id', 'rating', 'review', 'created_at', 'updated_at'])
        .where('listing_id', '=', listingId);
      const after = options.after;
      if (after) {
        q = q.where((eb) =>
          eb.or([
            eb('updated_at', '<', after.updatedAt),
            eb.and([eb('updated_at', '=', after.updatedAt), eb('user_id', '<', after.userId)]),
          ]),
        );
      }
      return q.orderBy('updated_at', 'desc').orderBy('user_id', 'desc').limit(options.limit).execute();
    },
  };
}

export type MarketplaceRepo = ReturnType<typeof createMarketplaceRepo>;

export function snapshotOf(row: ListingRow): SkillSnapshot | PersonaSnapshot {
  const value = JSON.parse(row.snapshot) as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : '');
  if (row.type === 'skill') {
    return { name: text('name'), description: text('description'), category: text('category'), scriptContent: text('scriptContent') };
  }
  return { name: text('name'), description: text('description'), soul_content: text('soul_content') };
}
