import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../../storage/dialect.js';
import type { Database, OAuthConnectionsTable, OAuthStatesTable } from '../../storage/tables.js';

export type ConnectionRow = OAuthConnectionsTable;
export type StateRow = OAuthStatesTable;

type Db = Kysely<Database> | Transaction<Database>;

export function createOAuthRepo(db: Kysely<Database>, dialect: Dialect) {
  return {
    async insertState(row: StateRow): Promise<void> {
      await db.insertInto('oauth_states').values(row).execute();
    },

    /** Expired states are useless; they are dropped as new flows start. */
    async deleteExpiredStates(now: string): Promise<void> {
      await db.deleteFrom('oauth_states').where('expires_at', '<', now).execute();
    },

    /** A state still usable: unused, unexpired, for this provider. */
    async findPendingState(id: string, provider: string, now: string): Promise<StateRow | undefined> {
      return db
        .selectFrom('oauth_states')
        .selectAll()
        .where('id', '=', id)
        .where('provider', '=', provider)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
    },

    /** Binds a pending state to a browser (replacing an earlier binding by the same owner). */
    async bindState(id: string, binding: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('oauth_states')
        .set({ browser_binding: binding })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Marks a state used if it is still unused, unexpired and bound to this browser, in one
     * statement: of two callbacks carrying the same state exactly one gets the row, and a
     * callback from another browser spends nothing. Answers the row, or undefined when the state
     * is unknown, used, expired, for another provider or bound to another browser.
     */
    async consumeState(id: string, provider: string, now: string, binding: string): Promise<StateRow | undefined> {
      const result = await db
        .updateTable('oauth_states')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('provider', '=', provider)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .where('browser_binding', '=', binding)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return undefined;
      return db.selectFrom('oauth_states').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async getConnection(ownerId: string, provider: string, trx?: Transaction<Database>): Promise<ConnectionRow | undefined> {
      return (trx ?? db)
        .selectFrom('oauth_connections')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .executeTakeFirst();
    },

    /**
     * The connection, locked until the transaction ends on PostgreSQL, so that of several API
     * nodes refreshing the same connection one calls the provider and the others wait and read
     * its result. SQLite has one writer process; the service's in-process guard is enough there.
     */
    async getConnectionForUpdate(trx: Transaction<Database>, ownerId: string, provider: string): Promise<ConnectionRow | undefined> {
      let q = trx.selectFrom('oauth_connections').selectAll().where('owner_id', '=', ownerId).where('provider', '=', provider);
      if (dialect === 'postgres') q = q.forUpdate();
      return q.executeTakeFirst();
    },

    async listConnections(ownerId: string): Promise<ConnectionRow[]> {
      return db.selectFrom('oauth_connections').selectAll().where('owner_id', '=', ownerId).orderBy('provider').execute();
    },

    /** Creates the connection or replaces its tokens (a reconnection), in one statement. */
    async upsertConnection(row: ConnectionRow): Promise<void> {
      const { id: _id, owner_id: _owner, provider: _provider, ...changes } = row;
      await db
        .insertInto('oauth_connections')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['owner_id', 'provider']).doUpdateSet({
            ...changes,
            token_version: (eb) => eb('oauth_connections.token_version', '+', 1),
          }),
        )
        .execute();
    },

    /**
     * Stores a refresh's result only over the token version it started from: a reconnection or
     * another node's refresh in the meantime wins, and this answer is dropped. Answers whether
     * the row was written.
     */
    async updateTokens(
      ownerId: string,
      provider: string,
      expectedVersion: number,
      changes: Pick<ConnectionRow, 'access_token_sealed' | 'refresh_token_sealed' | 'expires_at' | 'scopes' | 'refreshed_at' | 'updated_at'> &
        Partial<Pick<ConnectionRow, 'account_email' | 'account_id'>>,
      trx?: Transaction<Database>,
    ): Promise<boolean> {
      const result = await (trx ?? db)
        .updateTable('oauth_connections')
        .set({ ...changes, status: 'connected', last_error: null, token_version: expectedVersion + 1 })
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .where('token_version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Marks the connection as needing the owner's consent again, unless it changed meanwhile. */
    async markNeedsReauth(
      ownerId: string,
      provider: string,
      expectedVersion: number,
      lastError: string,
      now: string,
      trx?: Transaction<Database>,
    ): Promise<boolean> {
      const result = await (trx ?? db)
        .updateTable('oauth_connections')
        .set({ status: 'needs_reauth', last_error: lastError, updated_at: now })
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .where('token_version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async deleteConnection(ownerId: string, provider: string, conn: Db = db): Promise<boolean> {
      const result = await conn
        .deleteFrom('oauth_connections')
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type OAuthRepo = ReturnType<typeof createOAuthRepo>;
