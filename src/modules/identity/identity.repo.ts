import type { Transaction } from 'kysely';
import type { Dialect } from '../../storage/dialect.js';
import type { Executor } from '../../storage/columns.js';
import type { IdentityTables } from './identity.tables.js';
import { isJsonObject, type JsonObject } from '../../lib/json-merge-patch.js';

/** The tables that hold one JSON document per owner; they share one shape. */
export type OwnerDocumentKind = 'identity' | 'preferences';

/**
 * Queries of one owner-document table. Both tables have the shape of `identity`, so the name
 * is typed as that one; the query runs on `kind`.
 */
export function createOwnerDocumentRepo(db: Executor<IdentityTables>, dialect: Dialect, kind: OwnerDocumentKind) {
  const table = kind as 'identity';
  return {
    async get(ownerId: string, trx?: Executor<IdentityTables>): Promise<string | undefined> {
      const row = await (trx ?? db).selectFrom(table).select('document').where('owner_id', '=', ownerId).executeTakeFirst();
      return row?.document;
    },

    /**
     * The owner's document, held until `trx` ends so that read-merge-write cannot lose a
     * concurrent change. A missing row is first created from `initial`: PostgreSQL can only
     * lock a row that exists, and ON CONFLICT makes two first writers meet on the same row.
     * SQLite needs no lock: the driver runs one transaction at a time.
     */
    async lock(ownerId: string, initial: string, at: string, trx: Transaction<IdentityTables>): Promise<string> {
      await trx
        .insertInto(table)
        .values({ owner_id: ownerId, document: initial, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doNothing())
        .execute();
      let query = trx.selectFrom(table).select('document').where('owner_id', '=', ownerId);
      if (dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirstOrThrow();
      return row.document;
    },

    async save(ownerId: string, document: string, at: string, trx: Transaction<IdentityTables>): Promise<void> {
      await trx.updateTable(table).set({ document, updated_at: at }).where('owner_id', '=', ownerId).execute();
    },
  };
}

export type OwnerDocumentRepo = ReturnType<typeof createOwnerDocumentRepo>;

export function documentOf(text: string): JsonObject {
  const value: unknown = JSON.parse(text);
  return isJsonObject(value) ? value : {};
}
