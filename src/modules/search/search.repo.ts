import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { SearchSource } from './search.source.js';
import type { SearchTables } from './search.tables.js';

/** An item lacking a vector of the current model (or holding a stale one), with its text. */
export interface StaleItem {
  ownerId: string;
  source: SearchSource['source'];
  itemId: string;
  updatedAt: string;
  text: string;
}

/** A vector to store: int8 codes and their scale. */
export interface StoredVector {
  ownerId: string;
  source: string;
  itemId: string;
  model: string;
  codes: Int8Array;
  scale: number;
  textHash: string;
  itemUpdatedAt: string;
}

/** The hash recorded with a vector: equal hashes mean the same text. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 32);
}

const ident = (name: string) => {
  // Source tables and columns are fixed names from code; refuse anything else outright.
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain identifier: ${name}`);
  return sql.ref(name);
};

function toCodes(value: unknown): Int8Array {
  const bytes = value as Uint8Array;
  return new Int8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/**
 * Vectors and the claims on computing them. Every query names the owner or is the indexer's
 * scan across owners (which answers items with their owner and writes only under it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tables of several modules (sources) are read by name
export function createSearchRepo(database: Kysely<any>) {
  const db = database as Kysely<SearchTables>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the source tables are named at run time
  const anyDb = database as Kysely<any>;

  /**
   * Items of `src` with no vector of `model`, or a stale one (`updated_at` differs from when it
   * was embedded), held by no live claim: an anti-join on the vectors' primary key, so finding
   * work writes nothing and costs a write to memory nothing.
   */
  async function findStale(src: SearchSource, model: string, options: { now: string; limit: number; ownerId?: string }): Promise<StaleItem[]> {
    const key = sql`CAST(s.${ident(src.key)} AS TEXT)`;
    const columns = sql.join(src.columns.map((c) => sql`s.${ident(c)}`));
    const rows = await sql<Record<string, unknown>>`
      SELECT s.owner_id AS owner_id, ${key} AS item_id, s.updated_at AS updated_at, ${columns}
      FROM ${ident(src.table)} s
      LEFT JOIN search_vectors v ON v.owner_id = s.owner_id AND v.source = ${src.source} AND v.item_id = ${key} AND v.model = ${model}
      WHERE (v.item_id IS NULL OR v.item_updated_at <> s.updated_at)
        ${options.ownerId === undefined ? sql`` : sql`AND s.owner_id = ${options.ownerId}`}
        AND NOT EXISTS (SELECT 1 FROM search_claims c WHERE c.owner_id = s.owner_id AND c.source = ${src.source} AND c.item_id = ${key} AND c.lease_until > ${options.now})
      LIMIT ${options.limit}`.execute(anyDb);
    return rows.rows.map((row) => ({
      ownerId: String(row.owner_id),
      source: src.source,
      itemId: String(row.item_id),
      updatedAt: String(row.updated_at),
      text: src.text(row),
    }));
  }

  return {
    findStale,

    /** How many items of the owner lack a current vector of `model` (claimed or not). */
    async countStale(src: SearchSource, model: string, ownerId: string): Promise<number> {
      const key = sql`CAST(s.${ident(src.key)} AS TEXT)`;
      const row = await sql<{ n: number | string }>`
        SELECT COUNT(*) AS n FROM ${ident(src.table)} s
        LEFT JOIN search_vectors v ON v.owner_id = s.owner_id AND v.source = ${src.source} AND v.item_id = ${key} AND v.model = ${model}
        WHERE s.owner_id = ${ownerId} AND (v.item_id IS NULL OR v.item_updated_at <> s.updated_at)`.execute(anyDb);
      return Number(row.rows[0]?.n ?? 0);
    },

    /** How many vectors of `model` the owner has. */
    async countIndexed(ownerId: string, model: string): Promise<number> {
      const row = await db
        .selectFrom('search_vectors')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('owner_id', '=', ownerId)
        .where('model', '=', model)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /**
     * Claims the items for `nodeId` until `leaseUntil`: an item already claimed by a live lease
     * is not taken. Answers the items this node now holds. One statement, atomic per row on both
     * engines, so two nodes never both hold an item.
     */
    async claim(items: readonly StaleItem[], nodeId: string, now: string, leaseUntil: string): Promise<StaleItem[]> {
      if (items.length === 0) return [];
      const rows = await db
        .insertInto('search_claims')
        .values(items.map((item) => ({ owner_id: item.ownerId, source: item.source, item_id: item.itemId, claimed_by: nodeId, lease_until: leaseUntil })))
        .onConflict((oc) =>
          oc
            .columns(['owner_id', 'source', 'item_id'])
            .doUpdateSet({ claimed_by: (eb) => eb.ref('excluded.claimed_by'), lease_until: (eb) => eb.ref('excluded.lease_until') })
            .where('search_claims.lease_until', '<=', now),
        )
        .returning(['owner_id', 'source', 'item_id'])
        .execute();
      const held = new Set(rows.map((row) => `${row.owner_id}\u0000${row.source}\u0000${row.item_id}`));
      return items.filter((item) => held.has(`${item.ownerId}\u0000${item.source}\u0000${item.itemId}`));
    },

    /** Drops this node's claims on the items (done, or given back after a failure). */
    async release(items: readonly StaleItem[], nodeId: string): Promise<void> {
      const byOwnerSource = new Map<string, StaleItem[]>();
      for (const item of items) {
        const k = `${item.ownerId}\u0000${item.source}`;
        byOwnerSource.set(k, [...(byOwnerSource.get(k) ?? []), item]);
      }
      for (const group of byOwnerSource.values()) {
        await db
          .deleteFrom('search_claims')
          .where('owner_id', '=', group[0]!.ownerId)
          .where('source', '=', group[0]!.source)
          .where('claimed_by', '=', nodeId)
          .where(
            'item_id',
            'in',
            group.map((item) => item.itemId),
          )
          .execute();
      }
    },

    /** The vectors of `model` already stored for these items: the item's `updated_at` then, and the text's hash. */
    async existing(items: readonly StaleItem[], model: string): Promise<Map<string, { itemUpdatedAt: string; textHash: string }>> {
      const out = new Map<string, { itemUpdatedAt: string; textHash: string }>();
      const byOwnerSource = new Map<string, StaleItem[]>();
      for (const item of items) {
        const k = `${item.ownerId}\u0000${item.source}`;
        byOwnerSource.set(k, [...(byOwnerSource.get(k) ?? []), item]);
      }
      for (const group of byOwnerSource.values()) {
        const rows = await db
          .selectFrom('search_vectors')
          .select(['owner_id', 'source', 'item_id', 'item_updated_at', 'text_hash'])
          .where('owner_id', '=', group[0]!.ownerId)
          .where('source', '=', group[0]!.source)
          .where('model', '=', model)
          .where(
            'item_id',
            'in',
            group.map((item) => item.itemId),
          )
          .execute();
        for (const row of rows) out.set(`${row.owner_id}\u0000${row.source}\u0000${row.item_id}`, { itemUpdatedAt: row.item_updated_at, textHash: row.text_hash });
      }
      return out;
    },

    /**
     * Stores the vectors, replacing the item's vector of the same model and dropping those of
     * other models (re-embedding after a model change leaves no old vector behind). A vector
     * whose item was deleted meanwhile is not stored: the insert is conditional on the item
     * existing, in the same statement.
     */
    async store(src: SearchSource, vectors: readonly StoredVector[], now: string): Promise<void> {
      const key = sql`CAST(s.${ident(src.key)} AS TEXT)`;
      await anyDb.transaction().execute(async (trx) => {
        for (const v of vectors) {
          const codes = Buffer.from(v.codes.buffer, v.codes.byteOffset, v.codes.byteLength);
          await sql`
            INSERT INTO search_vectors (owner_id, source, item_id, model, dimensions, codes, scale, text_hash, item_updated_at, embedded_at)
            SELECT ${v.ownerId}, ${v.source}, ${v.itemId}, ${v.model}, ${v.codes.length}, ${codes}, ${v.scale}, ${v.textHash}, ${v.itemUpdatedAt}, ${now}
            WHERE EXISTS (SELECT 1 FROM ${ident(src.table)} s WHERE s.owner_id = ${v.ownerId} AND ${key} = ${v.itemId})
            ON CONFLICT (owner_id, source, item_id, model) DO UPDATE SET
              dimensions = excluded.dimensions, codes = excluded.codes, scale = excluded.scale,
              text_hash = excluded.text_hash, item_updated_at = excluded.item_updated_at, embedded_at = excluded.embedded_at`.execute(trx);
          await trx
            .deleteFrom('search_vectors')
            .where('owner_id', '=', v.ownerId)
            .where('source', '=', v.source)
            .where('item_id', '=', v.itemId)
            .where('model', '<>', v.model)
            .execute();
        }
      });
    },

    /** Marks a vector current again for an item whose text did not change (only `updated_at` did). */
    async touch(item: StaleItem, model: string): Promise<void> {
      await db
        .updateTable('search_vectors')
        .set({ item_updated_at: item.updatedAt })
        .where('owner_id', '=', item.ownerId)
        .where('source', '=', item.source)
        .where('item_id', '=', item.itemId)
        .where('model', '=', model)
        .execute();
    },

    /**
     * The owner's vectors of `model` for one source whose item still exists unchanged since it
     * was embedded: a deleted item's vector (gone by trigger anyway) or an edited item's old one
     * (until the indexer stores the new) never ranks.
     */
    async loadCurrent(src: SearchSource, ownerId: string, model: string): Promise<Array<{ itemId: string; codes: Int8Array; scale: number }>> {
      const key = sql`CAST(s.${ident(src.key)} AS TEXT)`;
      const rows = await sql<{ item_id: string; codes: unknown; scale: number | string }>`
        SELECT v.item_id AS item_id, v.codes AS codes, v.scale AS scale
        FROM search_vectors v
        JOIN ${ident(src.table)} s ON s.owner_id = v.owner_id AND ${key} = v.item_id AND s.updated_at = v.item_updated_at
        WHERE v.owner_id = ${ownerId} AND v.source = ${src.source} AND v.model = ${model}`.execute(anyDb);
      return rows.rows.map((row) => ({ itemId: String(row.item_id), codes: toCodes(row.codes), scale: Number(row.scale) }));
    },

    /** Every vector of `model` the owner has, to load the in-memory index. */
    async loadOwner(ownerId: string, model: string): Promise<Array<{ source: string; itemId: string; codes: Int8Array; scale: number }>> {
      const rows = await db
        .selectFrom('search_vectors')
        .select(['source', 'item_id', 'codes', 'scale'])
        .where('owner_id', '=', ownerId)
        .where('model', '=', model)
        .execute();
      return rows.map((row) => ({ source: row.source, itemId: row.item_id, codes: toCodes(row.codes), scale: Number(row.scale) }));
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
