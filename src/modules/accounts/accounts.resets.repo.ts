import type { Executor } from '../../storage/columns.js';
import type { AccountsTables, PasswordResetsTable } from './accounts.tables.js';

/** How long an ended link's row is kept (to say "used" or "expired" rather than "unknown"). */
const KEEP_ENDED_MS = 7 * 24 * 3_600_000;

/** The password reset links' rows (accounts.resets.ts). */
export function createPasswordResetsRepo(db: Executor<AccountsTables>) {
  return {
    /**
     * Stores a new link for its account and ends the account's earlier ones, in one transaction:
     * only the newest link works. Rows of links that ended a week ago go at the same time.
     */
    async replace(row: PasswordResetsTable): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('password_resets')
          .set({ superseded_at: row.created_at })
          .where('owner_id', '=', row.owner_id)
          .where('used_at', 'is', null)
          .where('superseded_at', 'is', null)
          .execute();
        await trx
          .deleteFrom('password_resets')
          .where('owner_id', '=', row.owner_id)
          .where('expires_at', '<', new Date(Date.parse(row.created_at) - KEEP_ENDED_MS).toISOString())
          .execute();
        await trx.insertInto('password_resets').values(row).execute();
      });
    },

    async findBySecretHash(secretHash: string): Promise<PasswordResetsTable | undefined> {
      return db.selectFrom('password_resets').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();
    },

    /**
     * Marks the link used if it still works at `now`: true for exactly one of any number of
     * requests racing with the same link.
     */
    async claim(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('superseded_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type PasswordResetsRepo = ReturnType<typeof createPasswordResetsRepo>;
