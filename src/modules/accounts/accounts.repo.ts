import type { Executor } from '../../storage/columns.js';
import type { AccountsTables, UsersTable } from './accounts.tables.js';

export function createAccountsRepo(db: Executor<AccountsTables>) {
  return {
    async insert(row: UsersTable, trx?: Executor<AccountsTables>): Promise<void> {
      await (trx ?? db).insertInto('users').values(row).execute();
    },

    async count(trx?: Executor<AccountsTables>): Promise<number> {
      const row = await (trx ?? db).selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Whether any account exists: reads one row of the primary key, however many there are. */
    async any(): Promise<boolean> {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    async findByEmail(email: string): Promise<UsersTable | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },

    /**
     * The administrator's id, or the given user's if it exists. A disabled account is addressed
     * by nobody: it could not sign in to answer.
     */
    async findAddressableId(userId: string | undefined): Promise<string | undefined> {
      let q = db.selectFrom('users').select('id').where('disabled_at', 'is', null);
      q = userId === undefined ? q.where('role', '=', 'admin') : q.where('id', '=', userId);
      return (await q.executeTakeFirst())?.id;
    },

    async findById(id: string, trx?: Executor<AccountsTables>): Promise<UsersTable | undefined> {
      return (trx ?? db).selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async list(query: { limit: number; cursor?: string | undefined }): Promise<UsersTable[]> {
      let q = db.selectFrom('users').selectAll();
      if (query.cursor) q = q.where('id', '>', query.cursor);
      return q.orderBy('id', 'asc').limit(query.limit).execute();
    },

    async update(
      id: string,
      changes: Partial<Pick<UsersTable, 'plan_id' | 'updated_at' | 'name' | 'password_hash' | 'email' | 'disabled_at'>>,
      trx?: Executor<AccountsTables>,
    ): Promise<void> {
      await (trx ?? db).updateTable('users').set(changes).where('id', '=', id).execute();
    },

    /**
     * Ends the account's password reset links still open (accounts.resets.ts): its password or
     * email changed, so a link made before no longer stands for what the owner wants.
     */
    async endResetLinks(id: string, at: string): Promise<void> {
      await db.updateTable('password_resets').set({ superseded_at: at }).where('owner_id', '=', id).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
    },
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
