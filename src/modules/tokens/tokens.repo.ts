import type { Scope } from '../../http/access.js';
import { decodeJson, isStringArray, type Executor } from '../../storage/columns.js';
import type { TokensTable, TokensTables } from './tokens.tables.js';

export interface TokenListQuery {
  limit: number;
  cursor?: string | undefined;
  kinds: TokensTable['kind'][];
  includeRevoked: boolean;
}

export function createTokensRepo(db: Executor<TokensTables>) {
  /**
   * A token with its owner's role, whether the administrator disabled the owner's account, and
   * who it was issued to (an OAuth client, a handshake's agent): a principal's makings.
   */
  const principalRows = () =>
    db
      .selectFrom('tokens')
      .innerJoin('users', 'users.id', 'tokens.owner_id')
      .leftJoin('authorization_clients', 'authorization_clients.id', 'tokens.client_id')
      .leftJoin('handshakes', 'handshakes.id', 'tokens.handshake_id')
      .select([
        'tokens.id',
        'tokens.owner_id',
        'tokens.kind',
        'tokens.name',
        'tokens.scopes',
        'tokens.secret_hash',
        'tokens.expires_at',
        'tokens.revoked_at',
        'tokens.client_id',
        'tokens.handshake_id',
        'tokens.memory_tags',
        'users.role',
        'users.disabled_at as owner_disabled_at',
        'authorization_clients.name as client_name',
        'handshakes.agent_id as handshake_agent',
      ]);

  return {
    async insert(row: TokensTable, trx?: Executor<TokensTables>): Promise<void> {
      await (trx ?? db).insertInto('tokens').values(row).execute();
    },

    /** The one query on the authentication path: the token by its hash, with its owner's role and state. */
    async findLiveByHash(secretHash: string) {
      return principalRows().where('tokens.secret_hash', '=', secretHash).executeTakeFirst();
    },

    /** The same row by the token's id, for an approved request run again as the token that asked. */
    async findPrincipalById(ownerId: string, id: string) {
      return principalRows().where('tokens.owner_id', '=', ownerId).where('tokens.id', '=', id).executeTakeFirst();
    },

    async get(ownerId: string, id: string, trx?: Executor<TokensTables>): Promise<TokensTable | undefined> {
      return (trx ?? db)
        .selectFrom('tokens')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async getMaster(ownerId: string): Promise<TokensTable | undefined> {
      return db.selectFrom('tokens').selectAll().where('owner_id', '=', ownerId).where('kind', '=', 'master').executeTakeFirst();
    },

    async list(ownerId: string, query: TokenListQuery): Promise<TokensTable[]> {
      let q = db.selectFrom('tokens').selectAll().where('owner_id', '=', ownerId).where('kind', 'in', query.kinds);
      if (!query.includeRevoked) q = q.where('revoked_at', 'is', null);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    async update(
      ownerId: string,
      id: string,
      changes: Partial<Pick<TokensTable, 'name' | 'scopes' | 'memory_tags' | 'expires_at' | 'secret_hash' | 'hint' | 'revoked_at' | 'updated_at'>>,
      trx?: Executor<TokensTables>,
    ): Promise<TokensTable | undefined> {
      await (trx ?? db).updateTable('tokens').set(changes).where('owner_id', '=', ownerId).where('id', '=', id).execute();
      return this.get(ownerId, id, trx);
    },

    /**
     * Sets lastUsedAt to `at` unless it was set at or after `unlessSince`: the nodes that see a
     * token's first use within one interval each try, and the row is written once.
     */
    async touch(id: string, at: string, unlessSince: string): Promise<void> {
      await db
        .updateTable('tokens')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', unlessSince)]))
        .execute();
    },
  };
}

export type TokensRepo = ReturnType<typeof createTokensRepo>;

/** Scope names this server wrote: strings, checked as such (a scope a later version dropped is simply never granted). */
const isScopeList = (value: unknown): value is Scope[] => isStringArray(value);

/** The tags a token's memory is limited to, decoded; null when it is not limited. */
export function storedMemoryTagsOf(row: Pick<TokensTable, 'memory_tags'>): string[] | null {
  return row.memory_tags === null ? null : decodeJson(row.memory_tags, isStringArray, 'tokens.memory_tags');
}

/** The scopes stored on a token (empty for the kinds that hold every scope), decoded. */
export function storedScopesOf(row: Pick<TokensTable, 'scopes'>): Scope[] {
  return decodeJson(row.scopes, isScopeList, 'tokens.scopes');
}
