import { AppError, InputError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { queryTerms } from '../../storage/search/tokenizer.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { Executor } from '../../storage/columns.js';
import type { MarketplaceTables } from './marketplace.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { PersonasService } from '../personas/personas.service.js';
import type { SkillsService } from '../skills/skills.service.js';
import { snapshotOf, type ListingAfter, type ListingRow, type ListingSummaryRow, type MarketplaceRepo, type RatingRow } from './marketplace.repo.js';
import {
  LISTING_DESCRIPTION_MAX,
  type Listing,
  type ListingSort,
  type ListingSummary,
  type ListingType,
  type PersonaSnapshot,
  type Rating,
  type SkillSnapshot,
} from './marketplace.schemas.js';
import { decodeCursor, decodeTimeCursor, encodeCursor, encodeTimeCursor } from '../../http/cursor.js';

/** Who calls: the owner acting, and who to name in the audit log. */
export interface MarketplaceCaller {
  ownerId: string;
  actor: AuditActor;
}

export interface ListingListQuery {
  q?: string | undefined;
  type?: ListingType | undefined;
  sort?: ListingSort | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface MarketplaceServiceOptions {
  db: Executor<MarketplaceTables>;
  repo: MarketplaceRepo;
  skills: Pick<SkillsService, 'getForOwner' | 'createFromSnapshot'>;
  personas: Pick<PersonasService, 'get' | 'create'>;
  audit: Pick<AuditService, 'record'>;
}

/** Averages are kept as an integer key of this many parts per star, so that cursors carry them exactly. */
const RATING_KEY_SCALE = 1_000_000;

/** An input refused, named as the service knows it; the routes place it in the request. */
function invalid(field: string, message: string): InputError {
  return new InputError(field, message);
}

function ratingAverage(sum: number, count: number): number | null {
  return count > 0 ? Math.round((sum / count) * 100) / 100 : null;
}

function toSummary(row: ListingSummaryRow): ListingSummary {
  const count = Number(row.rating_count);
  return {
    id: row.id,
    type: row.type,
    refId: row.type === 'skill' ? Number(row.ref_id) : row.ref_id,
    title: row.title,
    description: row.description,
    price: Number(row.price),
    ratingAverage: ratingAverage(Number(row.rating_sum), count),
    ratingCount: count,
    installs: Number(row.installs),
    ownerId: row.owner_id,
    snapshotAt: row.snapshot_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}


function toListing(row: ListingRow): Listing {
  return { ...toSummary(row), snapshot: snapshotOf(row) };
}

function toRating(row: RatingRow): Rating {
  return { userId: row.user_id, rating: Number(row.rating), review: row.review, createdAt: row.created_at, updatedAt: row.updated_at };
}

const badCursor = (sort: ListingSort) =>
  invalid('cursor', `is not a nextCursor of this list with sort=${sort}: pass the nextCursor of the previous page unchanged, with the same sort`);

const isId = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function listingCursor(sort: ListingSort, row: ListingSummaryRow): string {
  switch (sort) {
    case 'newest':
      return encodeCursor(['newest', row.id]);
    case 'installs':
      return encodeCursor(['installs', Number(row.installs), row.id]);
    case 'rating':
      return encodeCursor(['rating', Number(row.rating_key), Number(row.rating_count), row.id]);
  }
}

function listingAfter(sort: ListingSort, cursor: string): ListingAfter {
  const v = decodeCursor(cursor);
  if (!v || v[0] !== sort) throw badCursor(sort);
  if (sort === 'newest' && v.length === 2 && isId(v[1])) return { sort, id: v[1] };
  if (sort === 'installs' && v.length === 3 && isCount(v[1]) && isId(v[2])) return { sort, installs: v[1], id: v[2] };
  if (sort === 'rating' && v.length === 4 && isCount(v[1]) && isCount(v[2]) && isId(v[3])) {
    return { sort, ratingKey: v[1], ratingCount: v[2], id: v[3] };
  }
  throw badCursor(sort);
}

export function createMarketplaceService(deps: MarketplaceServiceOptions) {
  const { db, repo, skills, personas, audit } = deps;

  /** The caller's own original, as the snapshot to publish; 404 when it is not theirs or is gone. */
  async function takeSnapshot(ownerId: string, type: ListingType, refId: string): Promise<SkillSnapshot | PersonaSnapshot> {
    if (type === 'skill') {
      const skill = await skills.getForOwner(ownerId, Number(refId));
      return { name: skill.name, description: skill.description, category: skill.category, scriptContent: skill.scriptContent };
    }
    const persona = await personas.get(ownerId, refId);
    return { name: persona.name, description: persona.description, soul_content: persona.soul_content };
  }

  /** The refId as stored (text), checked against the type: skill ids are positive integers. */
  function normalizeRef(type: ListingType, refId: number | string): string {
    if (type === 'skill') {
      const text = String(refId);
      if (!/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > 2_147_483_647) {
        throw invalid('refId', 'must be a skill id (a positive integer) when type is skill');
      }
      return text;
    }
    if (typeof refId !== 'string') throw invalid('refId', 'must be a persona id (a string) when type is persona');
    return refId;
  }

  async function page(
    query: ListingListQuery,
    ownerId: string | undefined,
  ): Promise<{ listings: ListingSummary[]; nextCursor: string | null }> {
    const sort = query.sort ?? 'newest';
    const after = query.cursor !== undefined ? listingAfter(sort, query.cursor) : undefined;
    const rows = await repo.list({
      ownerId,
      type: query.type,
      terms: query.q !== undefined ? queryTerms(query.q) : undefined,
      sort,
      // One row more than asked says whether another page exists.
      limit: query.limit + 1,
      after,
    });
    const pageRows = rows.slice(0, query.limit);
    const nextCursor = rows.length > query.limit ? listingCursor(sort, pageRows[pageRows.length - 1]!) : null;
    return { listings: pageRows.map(toSummary), nextCursor };
  }

  /** Counts a listing's ratings again and stores the totals (the caller holds the listing's row). */
  async function recountRatings(id: string, trx: Executor<MarketplaceTables>): Promise<Pick<ListingRow, 'rating_sum' | 'rating_count' | 'rating_key'>> {
    const { sum, count } = await repo.ratingTotals(id, trx);
    const totals = { rating_sum: sum, rating_count: count, rating_key: count > 0 ? Math.round((sum * RATING_KEY_SCALE) / count) : 0 };
    await repo.setRatingTotals(id, totals, trx);
    return totals;
  }

  async function requireListing(id: string): Promise<ListingRow> {
    const row = await repo.get(id);
    if (!row) throw notFound('Listing', id);
    return row;
  }

  return {
    /** Every owner's listings: the marketplace is shared. */
    list: (query: ListingListQuery) => page(query, undefined),

    /** The caller's own listings. */
    listMine: (ownerId: string, query: ListingListQuery) => page(query, ownerId),

    async get(id: string): Promise<Listing> {
      return toListing(await requireListing(id));
    },

    /** Publishes a snapshot of one of the caller's skills or personas. */
    async create(
      caller: MarketplaceCaller,
      input: { type: ListingType; refId: number | string; title: string; description?: string | undefined },
    ): Promise<Listing> {
      const refId = normalizeRef(input.type, input.refId);
      const snapshot = await takeSnapshot(caller.ownerId, input.type, refId);
      const conflict = (existingId: string) =>
        new AppError(
          'CONFLICT',
          `This ${input.type} is already published as listing ${existingId}. Update that listing (PUT with refreshSnapshot: true publishes the current version) or delete it first`,
          { details: { listingId: existingId } },
        );
      const existing = await repo.findByRef(caller.ownerId, input.type, refId);
      if (existing) throw conflict(existing.id);
      const now = isoNow();
      const row: ListingRow = {
        id: newId('lst'),
        owner_id: caller.ownerId,
        type: input.type,
        ref_id: refId,
        title: input.title.trim(),
        description: (input.description ?? snapshot.description).trim().slice(0, LISTING_DESCRIPTION_MAX),
        price: 0,
        snapshot: JSON.stringify(snapshot),
        snapshot_at: now,
        rating_sum: 0,
        rating_count: 0,
        rating_key: 0,
        installs: 0,
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insert(row);
      } catch (error) {
        // Two publishes of one original at once: the unique index lets one through.
        if (isUniqueViolation(error)) {
          const winner = await repo.findByRef(caller.ownerId, input.type, refId);
          throw conflict(winner?.id ?? 'already');
        }
        throw error;
      }
      await audit.record(caller.actor, {
        action: 'marketplace.publish',
        outcome: 'success',
        targetType: 'listing',
        targetId: row.id,
        details: { type: row.type, refId: row.ref_id, title: row.title },
      });
      return toListing(row);
    },

    /** Only the publisher; another owner's listing answers 404, like an unknown one. */
    async update(
      caller: MarketplaceCaller,
      id: string,
      input: { title?: string | undefined; description?: string | undefined; refreshSnapshot?: boolean | undefined },
    ): Promise<Listing> {
      const row = await repo.getOwned(caller.ownerId, id);
      if (!row) throw notFound('Listing', id);
      const now = isoNow();
      const changes: Parameters<MarketplaceRepo['update']>[2] = { updated_at: now };
      if (input.title !== undefined) changes.title = input.title.trim();
      if (input.description !== undefined) changes.description = input.description.trim();
      if (input.refreshSnapshot === true) {
        let snapshot: SkillSnapshot | PersonaSnapshot;
        try {
          snapshot = await takeSnapshot(caller.ownerId, row.type, row.ref_id);
        } catch (error) {
          if (error instanceof AppError && error.code === 'NOT_FOUND') {
            throw new AppError(
              'CONFLICT',
              `The original ${row.type} ${row.ref_id} no longer exists, so there is nothing to refresh from; the listing keeps its published snapshot`,
            );
          }
          throw error;
        }
        changes.snapshot = JSON.stringify(snapshot);
        changes.snapshot_at = now;
      }
      if (!(await repo.update(caller.ownerId, id, changes))) throw notFound('Listing', id);
      await audit.record(caller.actor, {
        action: 'marketplace.update',
        outcome: 'success',
        targetType: 'listing',
        targetId: id,
        details: { refreshedSnapshot: input.refreshSnapshot === true },
      });
      return toListing({ ...row, ...changes });
    },

    /** Only the publisher. Installed copies stay where they are; the listing's ratings go with it. */
    async remove(caller: MarketplaceCaller, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await repo.delete(caller.ownerId, id))) throw notFound('Listing', id);
      await audit.record(caller.actor, { action: 'marketplace.delete', outcome: 'success', targetType: 'listing', targetId: id });
      return { id, deleted: true };
    },

    /**
     * Copies the listing's snapshot into the caller's account. A skill keeps where it came from
     * in its origin and needs a free slug (409 otherwise); a persona is simply another copy.
     */
    async install(caller: MarketplaceCaller, id: string): Promise<{ type: ListingType; id: number | string }> {
      const row = await requireListing(id);
      const snapshot = snapshotOf(row);
      let copyId: number | string;
      if (row.type === 'skill') {
        const skill = snapshot as SkillSnapshot;
        try {
          const copy = await skills.createFromSnapshot(caller.ownerId, skill, {
            type: 'installed',
            listingId: row.id,
            installedAt: isoNow(),
            snapshotAt: row.snapshot_at,
          });
          copyId = copy.id;
        } catch (error) {
          if (error instanceof AppError && error.code === 'CONFLICT') {
            throw new AppError(
              'CONFLICT',
              `You already have a skill named "${skill.name}" (skill names are unique regardless of case). Rename or delete that skill, then install again`,
              { details: { slug: skill.name } },
            );
          }
          throw error;
        }
      } else {
        const persona = snapshot as PersonaSnapshot;
        const copy = await personas.create(caller.ownerId, {
          name: persona.name,
          description: persona.description,
          soul_content: persona.soul_content,
        });
        copyId = copy.id;
      }
      await repo.countInstall(row.id);
      await audit.record(caller.actor, {
        action: 'marketplace.install',
        outcome: 'success',
        targetType: 'listing',
        targetId: row.id,
        details: { type: row.type, copyId },
      });
      return { type: row.type, id: copyId };
    },

    /**
     * One rating per user: a second replaces the first (review included). The listing row is
     * locked while its totals are recomputed, so concurrent ratings are all counted.
     */
    async rate(ownerId: string, id: string, input: { rating: number; review?: string | undefined }): Promise<Listing> {
      return db.transaction().execute(async (trx) => {
        const row = await repo.get(id, trx);
        if (!row) throw notFound('Listing', id);
        if (row.owner_id === ownerId) {
          throw new AppError('FORBIDDEN', 'Publishers cannot rate their own listings');
        }
        const now = isoNow();
        const review = input.review !== undefined && input.review.trim() !== '' ? input.review.trim() : null;
        await repo.upsertRating({ listing_id: id, user_id: ownerId, rating: input.rating, review, created_at: now, updated_at: now }, trx);
        const totals = await recountRatings(id, trx);
        return toListing({ ...row, ...totals });
      });
    },

    /**
     * Takes an account's ratings back from every listing it rated, inside the caller's
     * transaction (an account being erased): each listing's totals are counted again without them.
     */
    async forgetRatingsBy(userId: string, trx: Executor): Promise<number> {
      const listingIds = await repo.deleteRatingsBy(userId, trx as Executor<MarketplaceTables>);
      for (const id of [...new Set(listingIds)].sort()) {
        // Locks the listing's row (PostgreSQL) as a rating does, so a rating at the same moment is counted once.
        await repo.get(id, trx as Executor<MarketplaceTables>);
        await recountRatings(id, trx as Executor<MarketplaceTables>);
      }
      return listingIds.length;
    },

    /** A listing's ratings and reviews, most recently rated first. */
    async listRatings(id: string, query: { limit: number; cursor?: string | undefined }): Promise<{ ratings: Rating[]; nextCursor: string | null }> {
      await requireListing(id);
      const after = query.cursor === undefined ? undefined : decodeTimeCursor(query.cursor);
      const rows = await repo.listRatings(id, { limit: query.limit + 1, after: after && { updatedAt: after.time, userId: after.id } });
      const pageRows = rows.slice(0, query.limit);
      const last = pageRows[pageRows.length - 1];
      const nextCursor = rows.length > query.limit && last ? encodeTimeCursor(last.updated_at, last.user_id) : null;
      return { ratings: pageRows.map(toRating), nextCursor };
    },
  };
}

export type MarketplaceService = ReturnType<typeof createMarketplaceService>;
