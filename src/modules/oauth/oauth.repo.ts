import type { Executor } from '../../storage/columns.js';
import type { OAuthConnectionsTable, OAuthStatesTable, OAuthTables } from './oauth.tables.js';

export type ConnectionRow = OAuthConnectionsTable;
export type StateRow = OAuthStatesTable;


export function createOAuthRepo(db: Executor<OAuthTables>) {
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

    async getConnection(ownerId: string, provider: string): Promise<ConnectionRow | undefined> {
      return db
        .selectFrom('oauth_connections')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .executeTakeFirst();
    },

    /**
     * Claims the refresh of a connection for `lease` until `until`, in one statement: only while
     * the tokens are still at `expectedVersion` and nobody else holds a live claim. Of several
     * requests or API nodes exactly one gets it; no row lock outlives the statement, so the
     * provider is called with no transaction open.
     */
    async claimRefresh(ownerId: string, provider: string, expectedVersion: number, lease: string, now: string, until: string): Promise<boolean> {
      const result = await db
        .updateTable('oauth_connections')
        .set({ refresh_lease: lease, refresh_lease_until: until })
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .where('token_version', '=', expectedVersion)
        .where('status', '=', 'connected')
        .where((eb) => eb.or([eb('refresh_lease', 'is', null), eb('refresh_lease_until', '<=', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Gives a claim up (the refresh failed without changing the tokens), if it is still held. */
    async releaseRefresh(ownerId: string, provider: string, lease: string): Promise<void> {
      await db
        .updateTable('oauth_connections')
        .set({ refresh_lease: null, refresh_lease_until: null })
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .where('refresh_lease', '=', lease)
        .execute();
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
            // A reconnection supersedes a refresh in flight: its result no longer fits the row.
            refresh_lease: null,
            refresh_lease_until: null,
          }),
        )
        .execute();
    },

    /**
     * Stores a refresh's result only while its claim holds and over the token version it started
     * from: a reconnection, or another node's refresh after this claim ran out, wins and this
     * answer is dropped. Answers whether the row was written.
     */
    async updateTokens(
      ownerId: string,
      provider: string,
      claim: { version: number; lease: string },
      changes: Pick<ConnectionRow, 'access_token_sealed' | 'refresh_token_sealed' | 'expires_at' | 'scopes' | 'refreshed_at' | 'updated_at'>,
    ): Promise<boolean> {
      const result = await db
        .updateTable('oauth_connections')
        .set({ ...changes, status: 'connected', last_error: null, token_version: claim.version + 1, refresh_lease: null, refresh_lease_until: null })
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .where('token_version', '=', claim.version)
        .where('refresh_lease', '=', claim.lease)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Marks the connection as needing the owner's consent again, unless it changed meanwhile
     * (and, given a claim's lease, only while that claim holds).
     */
    async markNeedsReauth(
      ownerId: string,
      provider: string,
      expected: { version: number; lease?: string },
      lastError: string,
      now: string,
    ): Promise<boolean> {
      let q = db
        .updateTable('oauth_connections')
        .set({ status: 'needs_reauth', last_error: lastError, updated_at: now, refresh_lease: null, refresh_lease_until: null })
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .where('token_version', '=', expected.version);
      if (expected.lease !== undefined) q = q.where('refresh_lease', '=', expected.lease);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async deleteConnection(ownerId: string, provider: string, conn: Executor<OAuthTables> = db): Promise<boolean> {
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
