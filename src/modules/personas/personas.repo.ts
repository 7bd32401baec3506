import type { Transaction } from 'kysely';
import type { Executor } from '../../storage/columns.js';
import type { PersonasTable, PersonasTables } from './personas.tables.js';

export function createPersonasRepo(db: Executor<PersonasTables>) {
  return {
    async insert(row: PersonasTable, trx?: Executor<PersonasTables>): Promise<void> {
      await (trx ?? db).insertInto('personas').values(row).execute();
    },

    async get(ownerId: string, id: string, trx?: Executor<PersonasTables>): Promise<PersonasTable | undefined> {
      return (trx ?? db).selectFrom('personas').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async getActive(ownerId: string): Promise<PersonasTable | undefined> {
      return db.selectFrom('personas').selectAll().where('owner_id', '=', ownerId).where('active', '=', 1).executeTakeFirst();
    },

    /** Newest first; ids are ULIDs, so id order is creation order and the cursor is the last id. */
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined }): Promise<PersonasTable[]> {
      let q = db.selectFrom('personas').selectAll().where('owner_id', '=', ownerId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /** The changed row, or undefined when the owner has no such persona. */
    async update(
      ownerId: string,
      id: string,
      changes: Partial<Pick<PersonasTable, 'name' | 'description' | 'soul_content' | 'active' | 'updated_at'>>,
      trx?: Executor<PersonasTables>,
    ): Promise<PersonasTable | undefined> {
      return (trx ?? db)
        .updateTable('personas')
        .set(changes)
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    /** Clears the owner's active flag except on `keepId`, which the caller sets next. */
    async deactivateOthers(ownerId: string, keepId: string, at: string, trx: Transaction<PersonasTables>): Promise<void> {
      await trx
        .updateTable('personas')
        .set({ active: 0, updated_at: at })
        .where('owner_id', '=', ownerId)
        .where('active', '=', 1)
        .where('id', '!=', keepId)
        .execute();
    },

    /** The link tables cascade, so this also removes the persona's attachments. */
    async delete(ownerId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('personas').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type PersonasRepo = ReturnType<typeof createPersonasRepo>;
