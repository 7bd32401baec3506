import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../http/access.js';
import { AppError, notFound } from '../../http/errors.js';
import { isoNow, isPast } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { TokensTable, TokensTables } from './tokens.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import { checkFutureExpiry } from './tokens.issue.js';
import { agentOf, ALL_SCOPES_KINDS, scopesOf, toTokenRecord, type TokenRecord } from './tokens.records.js';

import { storedMemoryTagsOf, type TokensRepo } from './tokens.repo.js';
import { memoryTagsColumn } from './tokens.memory-tags.js';
import type { ListTokensQuery, UpdateTokenBody } from './tokens.schemas.js';

export type TokenListOptions = Omit<Static<typeof ListTokensQuery>, 'limit'> & { limit: number };
export type TokenChanges = Static<typeof UpdateTokenBody>;

export interface TokenManagementDeps {
  repo: Pick<TokensRepo, 'get' | 'findPrincipalById' | 'list' | 'update'>;
  audit: Pick<AuditService, 'record'>;
  /** Drops a changed token's cached principal, so the change holds from the very next request. */
  forget(tokenId: string): void;
  /** Told of each revocation (the console's live view; open event streams of the token end). */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/** The owner's tokens: listing, reading, renaming and rescoping, revoking. */
export function createTokenManagement(deps: TokenManagementDeps) {
  const { repo, audit, forget } = deps;

  async function requireToken(ownerId: string, id: string, trx?: Executor<TokensTables>): Promise<TokensTable> {
    const row = await repo.get(ownerId, id, trx);
    if (!row) throw notFound('Token', id);
    return row;
  }

  return {
    requireToken,

    async list(ownerId: string, query: TokenListOptions): Promise<{ tokens: TokenRecord[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, {
        limit: query.limit + 1,
        cursor: query.cursor,
        // Login sessions are many and short-lived: listed only when asked for.
        kinds: query.kind ? [query.kind] : ['master', 'api', 'handshake', 'oauth'],
        includeRevoked: query.includeRevoked ?? false,
      });
      const page = rows.slice(0, query.limit);
      return { tokens: page.map(toTokenRecord), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
    },

    /**
     * The principal of a live token, by id: how an approved request runs again as the token that
     * asked, whose secret is not kept. Null when the token is gone, revoked or expired, or when the
     * administrator disabled its account. Only for tokens without owner rights (the only ones a
     * policy holds back): `role` matters only with owner rights, so it reads `user`.
     */
    async livePrincipal(ownerId: string, id: string): Promise<Principal | null> {
      const row = await repo.findPrincipalById(ownerId, id);
      if (!row || row.revoked_at || row.owner_disabled_at !== null || isPast(row.expires_at) || ALL_SCOPES_KINDS.has(row.kind)) return null;
      return {
        tokenId: row.id,
        ownerId: row.owner_id,
        kind: row.kind,
        allScopes: false,
        scopes: new Set(scopesOf(row)),
        role: 'user',
        name: row.name,
        agent: agentOf(row),
        memoryTags: storedMemoryTagsOf(row),
      };
    },

    async get(ownerId: string, id: string): Promise<TokenRecord> {
      return toTokenRecord(await requireToken(ownerId, id));
    },

    async update(ownerId: string, id: string, input: TokenChanges, actor: AuditActor): Promise<TokenRecord> {
      const row = await requireToken(ownerId, id);
      if (row.revoked_at) throw new AppError('CONFLICT', `Token ${id} is revoked and cannot be changed`);
      if (ALL_SCOPES_KINDS.has(row.kind) && (input.scopes !== undefined || input.expiresAt !== undefined || input.memoryTags !== undefined)) {
        throw new AppError('CONFLICT', `A ${row.kind} token always holds every scope and all memory, and its lifetime is fixed; only its name can change`);
      }
      const memoryTags = input.memoryTags === undefined ? undefined : memoryTagsColumn(input.memoryTags);
      checkFutureExpiry(input.expiresAt);
      const updated = await repo.update(ownerId, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.scopes !== undefined ? { scopes: JSON.stringify([...new Set(input.scopes)]) } : {}),
        ...(memoryTags !== undefined ? { memory_tags: memoryTags } : {}),
        ...(input.expiresAt !== undefined
          ? { expires_at: input.expiresAt === null ? null : new Date(input.expiresAt).toISOString() }
          : {}),
        updated_at: isoNow(),
      });
      forget(id);
      await audit.record(actor, {
        action: 'token.update',
        outcome: 'success',
        targetType: 'token',
        targetId: id,
        details: { name: input.name, scopes: input.scopes, expiresAt: input.expiresAt, memoryTags: input.memoryTags },
      });
      return toTokenRecord(updated!);
    },

    /**
     * Revokes a token; it is refused from its very next request. Inside a caller's transaction
     * (`trx`) the caller announces the revocation once it has committed; alone, this does.
     */
    async revoke(ownerId: string, id: string, actor: AuditActor, trx?: Executor): Promise<TokenRecord> {
      const row = await requireToken(ownerId, id, trx);
      if (row.kind === 'master') {
        throw new AppError('CONFLICT', 'The master token cannot be revoked; replace it with POST /api/v1/tokens/master/regenerate');
      }
      if (row.revoked_at) return toTokenRecord(row);
      const now = isoNow();
      const updated = await repo.update(ownerId, id, { revoked_at: now, updated_at: now }, trx);
      forget(id);
      await audit.record(actor, { action: 'token.revoke', outcome: 'success', targetType: 'token', targetId: id }, trx);
      if (!trx) deps.events?.publish(ownerId, { type: 'token.revoked', data: { tokenId: id, kind: row.kind } });
      return toTokenRecord(updated!);
    },
  };
}
