import type { Scope } from '../../http/access.js';
import { decodeJson, isStringArray, type Executor } from '../../storage/columns.js';
import type { AuthorizationClientsTable, AuthorizationCodesTable, AuthorizationRefreshTokensTable, AuthorizationRequestsTable, AuthorizationTables } from './authorization.tables.js';


/** The records used once: a consent request, a code, a refresh token. */
type OneTimeTable = 'authorization_requests' | 'authorization_codes' | 'authorization_refresh_tokens';

/**
 * Marks a one-time record used if it still is unused (and, with `unexpired`, valid at `at`), in
 * one statement: of two concurrent uses exactly one changes the row. Answers whether this call did.
 */
async function spend(trx: Executor<AuthorizationTables>, table: OneTimeTable, id: string, at: string, unexpired: boolean): Promise<boolean> {
  let update = trx.updateTable(table).set({ used_at: at }).where('id', '=', id).where('used_at', 'is', null);
  if (unexpired) update = update.where('expires_at', '>', at);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The authorization server's records. Codes and refresh tokens are found by the SHA-256 of their value. */
export function createAuthorizationRepo(db: Executor<AuthorizationTables>) {
  return {
    async getClient(id: string): Promise<AuthorizationClientsTable | undefined> {
      return db.selectFrom('authorization_clients').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async getClients(ids: string[]): Promise<AuthorizationClientsTable[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('authorization_clients').selectAll().where('id', 'in', ids).execute();
    },

    async insertClient(row: AuthorizationClientsTable): Promise<void> {
      await db.insertInto('authorization_clients').values(row).execute();
    },

    /** Stores what a client metadata document said, replacing what an earlier fetch stored. */
    async saveFetchedClient(row: AuthorizationClientsTable): Promise<void> {
      await db
        .insertInto('authorization_clients')
        .values(row)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({ name: row.name, redirect_uris: row.redirect_uris, client_uri: row.client_uri, fetched_at: row.fetched_at }),
        )
        .execute();
    },

    async insertRequest(row: AuthorizationRequestsTable): Promise<void> {
      await db.insertInto('authorization_requests').values(row).execute();
    },

    async getRequest(id: string): Promise<AuthorizationRequestsTable | undefined> {
      return db.selectFrom('authorization_requests').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Uses a pending request once, while it is still valid; answers whether this call did. */
    async useRequest(id: string, at: string, trx: Executor<AuthorizationTables> = db): Promise<boolean> {
      return spend(trx, 'authorization_requests', id, at, true);
    },

    /**
     * Sends an undecided, unused, unexpired request to a console, once: of two concurrent sends
     * exactly one changes the row. Answers whether this call did.
     */
    async sendToConsole(
      id: string,
      fields: { consoleEmailHash: string; ownerId: string | null; waitHash: string },
      at: string,
    ): Promise<boolean> {
      const result = await db
        .updateTable('authorization_requests')
        .set({ console_email_hash: fields.consoleEmailHash, owner_id: fields.ownerId, wait_hash: fields.waitHash })
        .where('id', '=', id)
        .where('wait_hash', 'is', null)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Ends the waiting of all but the `keep` newest undecided requests sent with this email: they
     * expire now. Bounds what one email address can queue in a console.
     */
    async expireOldestWaiting(consoleEmailHash: string, keep: number, at: string): Promise<void> {
      const waiting = await db
        .selectFrom('authorization_requests')
        .select('id')
        .where('console_email_hash', '=', consoleEmailHash)
        .where('decision', 'is', null)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      const excess = waiting.slice(keep).map((row) => row.id);
      if (excess.length === 0) return;
      await db.updateTable('authorization_requests').set({ expires_at: at }).where('id', 'in', excess).where('decision', 'is', null).execute();
    },

    /** The owner's requests waiting in the console for a decision, oldest first. */
    async listWaiting(ownerId: string, at: string, limit: number): Promise<AuthorizationRequestsTable[]> {
      return db
        .selectFrom('authorization_requests')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('decision', 'is', null)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
    },

    async getOwned(ownerId: string, id: string): Promise<AuthorizationRequestsTable | undefined> {
      return db.selectFrom('authorization_requests').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    },

    /**
     * Records the owner's decision on a request of theirs still waiting, once: of two concurrent
     * decisions exactly one changes the row. Answers whether this call did.
     */
    async decideInConsole(ownerId: string, id: string, decision: { decision: 'approved' | 'denied'; grantedScopes: string | null }, at: string): Promise<boolean> {
      const result = await db
        .updateTable('authorization_requests')
        .set({ decision: decision.decision, granted_scopes: decision.grantedScopes, decided_at: at })
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .where('decision', 'is', null)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async insertCode(row: AuthorizationCodesTable, trx: Executor<AuthorizationTables> = db): Promise<void> {
      await trx.insertInto('authorization_codes').values(row).execute();
    },

    async getCode(id: string, trx: Executor<AuthorizationTables> = db): Promise<AuthorizationCodesTable | undefined> {
      return trx.selectFrom('authorization_codes').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Spends a code once, while it is still valid; answers whether this call did. */
    async useCode(id: string, at: string, trx: Executor<AuthorizationTables>): Promise<boolean> {
      return spend(trx, 'authorization_codes', id, at, true);
    },

    async setCodeToken(id: string, tokenId: string, trx: Executor<AuthorizationTables>): Promise<void> {
      await trx.updateTable('authorization_codes').set({ token_id: tokenId }).where('id', '=', id).execute();
    },

    async insertRefreshToken(row: AuthorizationRefreshTokensTable, trx: Executor<AuthorizationTables>): Promise<void> {
      await trx.insertInto('authorization_refresh_tokens').values(row).execute();
    },

    async getRefreshToken(id: string, trx: Executor<AuthorizationTables> = db): Promise<AuthorizationRefreshTokensTable | undefined> {
      return trx.selectFrom('authorization_refresh_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Spends a refresh token once; answers whether this call did (a second use is a replay). */
    async useRefreshToken(id: string, at: string, trx: Executor<AuthorizationTables>): Promise<boolean> {
      return spend(trx, 'authorization_refresh_tokens', id, at, false);
    },

    /** Spends every refresh token of a grant: after a replay or a revocation none may renew it. */
    async spendGrant(tokenId: string, at: string, trx: Executor<AuthorizationTables> = db): Promise<void> {
      await trx.updateTable('authorization_refresh_tokens').set({ used_at: at }).where('token_id', '=', tokenId).where('used_at', 'is', null).execute();
    },

    /** Drops requests and codes well past their expiry; they can no longer be used anyway. */
    async purgeExpired(before: string): Promise<void> {
      await db.deleteFrom('authorization_requests').where('expires_at', '<', before).execute();
      await db.deleteFrom('authorization_codes').where('expires_at', '<', before).execute();
      await db.deleteFrom('authorization_refresh_tokens').where('expires_at', '<', before).execute();
    },
  };
}

export type AuthorizationRepo = ReturnType<typeof createAuthorizationRepo>;

/** Scope names this server wrote: strings, checked as such (a scope a later version dropped is simply never granted). */
const isScopeList = (value: unknown): value is Scope[] => isStringArray(value);

/** The scopes a request asked for, decoded. */
export function requestedScopesOf(request: Pick<AuthorizationRequestsTable, 'scopes'>): Scope[] {
  return decodeJson(request.scopes, isScopeList, 'authorization_requests.scopes');
}

/** The scopes the owner granted in the console, decoded; null while undecided. */
export function consoleGrantedScopesOf(request: Pick<AuthorizationRequestsTable, 'granted_scopes'>): Scope[] | null {
  return request.granted_scopes === null ? null : decodeJson(request.granted_scopes, isScopeList, 'authorization_requests.granted_scopes');
}

/** The scopes a code grants, decoded. */
export function codeScopesOf(code: Pick<AuthorizationCodesTable, 'scopes'>): Scope[] {
  return decodeJson(code.scopes, isScopeList, 'authorization_codes.scopes');
}

/** A client's exact redirect URIs, decoded. */
export function redirectUrisOf(client: Pick<AuthorizationClientsTable, 'redirect_uris'>): string[] {
  return decodeJson(client.redirect_uris, isStringArray, 'authorization_clients.redirect_uris');
}
