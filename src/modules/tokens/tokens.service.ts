import type { Transaction } from 'kysely';
import { AppError, notFound } from '../../http/errors.js';
import { SCOPE_NAMES, type Principal, type Scope } from '../../http/access.js';
import { constantTimeEqual, generateTokenSecret, hashToken, isWellFormedToken, tokenHint, type TokenKind } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { isoIn, isoNow, isPast } from '../../lib/time.js';
import type { Database, TokensTable } from '../../storage/tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { TokensRepo } from './tokens.repo.js';

export interface TokenRecord {
  id: string;
  name: string;
  kind: TokensTable['kind'];
  scopes: Scope[];
  hint: string;
  status: 'active' | 'revoked' | 'expired';
  handshakeId: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Who asks to replace the master token, and the password a login session must confirm. */
export interface MasterProof {
  callerKind: TokensTable['kind'];
  password?: string | undefined;
}

/**
 * Replaces the master token once the caller has proved who they are: the master token itself,
 * or a login session with the account password. The accounts service does it, since it checks
 * passwords; the token routes call it for the master token and this service for the others.
 */
export interface MasterTokenReplacer {
  regenerateMaster(ownerId: string, actor: AuditActor, proof: MasterProof): Promise<IssuedToken>;
}

/** A record together with its secret: only ever returned by create and regenerate. */
export interface IssuedToken {
  record: TokenRecord;
  secret: string;
}

const ALL_SCOPES_KINDS = new Set<TokensTable['kind']>(['master', 'session']);
/** lastUsedAt is precise to this interval: writing it on every request would double the work of a read. */
const LAST_USED_RESOLUTION_MS = 60_000;
const CACHE_MAX = 10_000;

export function toTokenRecord(row: TokensTable): TokenRecord {
  const allScopes = ALL_SCOPES_KINDS.has(row.kind);
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    scopes: allScopes ? [...SCOPE_NAMES] : (JSON.parse(row.scopes) as Scope[]),
    hint: row.hint,
    status: row.revoked_at ? 'revoked' : isPast(row.expires_at) ? 'expired' : 'active',
    handshakeId: row.handshake_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

interface CachedPrincipal {
  principal: Principal;
  secretHash: string;
  expiresAtMs: number | null;
}

export interface TokensServiceOptions {
  repo: TokensRepo;
  audit: AuditService;
  sessionTtlMs: number;
  /**
   * Keep authenticated tokens in memory. Only safe when this process makes every change to
   * the tokens table (embedded SQLite): revoke, regenerate and update invalidate the entry
   * at once. With PostgreSQL several nodes may share the table, so every request looks up.
   */
  cacheTokens: boolean;
}

export function createTokensService(deps: TokensServiceOptions) {
  const { repo, audit } = deps;
  const cache = new Map<string, CachedPrincipal>(); // by secret hash
  const hashById = new Map<string, string>();
  const lastTouched = new Map<string, number>();
  /**
   * Bumped by every invalidation. A lookup that started before a revoke may finish after it;
   * it caches its answer only if no invalidation happened meanwhile, so a revoked token can
   * never be put back into the cache.
   */
  let generation = 0;

  function forget(tokenId: string): void {
    generation += 1;
    const hash = hashById.get(tokenId);
    if (hash) cache.delete(hash);
    hashById.delete(tokenId);
  }

  function remember(entry: CachedPrincipal): void {
    if (cache.size >= CACHE_MAX) {
      const oldest = cache.keys().next().value!;
      const evicted = cache.get(oldest);
      cache.delete(oldest);
      if (evicted) hashById.delete(evicted.principal.tokenId);
    }
    cache.set(entry.secretHash, entry);
    hashById.set(entry.principal.tokenId, entry.secretHash);
  }

  function touch(tokenId: string, now: number): void {
    const last = lastTouched.get(tokenId) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    lastTouched.set(tokenId, now);
    if (lastTouched.size > CACHE_MAX) lastTouched.clear();
    // Off the request path: a failed write of lastUsedAt must never fail the request.
    repo.touch(tokenId, new Date(now).toISOString()).catch(() => lastTouched.delete(tokenId));
  }

  function newRow(
    ownerId: string,
    kind: TokenKind,
    fields: { name: string; scopes: Scope[]; expiresAt: string | null; handshakeId?: string | null },
  ): { row: TokensTable; secret: string } {
    const secret = generateTokenSecret(kind);
    const now = isoNow();
    return {
      secret,
      row: {
        id: newId('tok'),
        owner_id: ownerId,
        kind,
        name: fields.name,
        scopes: JSON.stringify(ALL_SCOPES_KINDS.has(kind) ? [] : [...new Set(fields.scopes)]),
        secret_hash: hashToken(secret),
        hint: tokenHint(secret),
        handshake_id: fields.handshakeId ?? null,
        created_at: now,
        updated_at: now,
        expires_at: fields.expiresAt,
        last_used_at: null,
        revoked_at: null,
      },
    };
  }

  async function requireToken(ownerId: string, id: string, trx?: Transaction<Database>): Promise<TokensTable> {
    const row = await repo.get(ownerId, id, trx);
    if (!row) throw notFound('Token', id);
    return row;
  }

  function checkFutureExpiry(expiresAt: string | null | undefined): void {
    if (expiresAt && isPast(expiresAt)) {
      throw new AppError('VALIDATION_ERROR', 'expiresAt must be in the future', {
        details: [{ field: 'body.expiresAt', message: 'must be in the future' }],
      });
    }
  }

  async function rotateSecret(ownerId: string, row: TokensTable, actor: AuditActor, action: string): Promise<IssuedToken> {
    if (row.revoked_at) throw new AppError('CONFLICT', `Token ${row.id} is revoked; create a new one instead`);
    const secret = generateTokenSecret(row.kind);
    const updated = await repo.update(ownerId, row.id, {
      secret_hash: hashToken(secret),
      hint: tokenHint(secret),
      updated_at: isoNow(),
    });
    forget(row.id);
    await audit.record(actor, { action, outcome: 'success', targetType: 'token', targetId: row.id });
    return { record: toTokenRecord(updated!), secret };
  }

  return {
    /** Resolves a bearer secret to its principal; null for anything that is not a live token. */
    async authenticate(secret: string): Promise<Principal | null> {
      // A malformed or mistyped token never reaches the database.
      if (!isWellFormedToken(secret)) return null;
      const secretHash = hashToken(secret);
      const now = Date.now();

      const cached = deps.cacheTokens ? cache.get(secretHash) : undefined;
      if (cached) {
        if (cached.expiresAtMs !== null && cached.expiresAtMs <= now) {
          forget(cached.principal.tokenId);
          return null;
        }
        touch(cached.principal.tokenId, now);
        return cached.principal;
      }

      const startedAt = generation;
      const row = await repo.findLiveByHash(secretHash);
      if (!row || !constantTimeEqual(row.secret_hash, secretHash) || row.revoked_at || isPast(row.expires_at, now)) {
        return null;
      }
      const allScopes = ALL_SCOPES_KINDS.has(row.kind);
      const principal: Principal = {
        tokenId: row.id,
        ownerId: row.owner_id,
        kind: row.kind,
        allScopes,
        scopes: new Set(allScopes ? SCOPE_NAMES : (JSON.parse(row.scopes) as Scope[])),
        role: row.role,
      };
      if (deps.cacheTokens && generation === startedAt) {
        remember({ principal, secretHash, expiresAtMs: row.expires_at ? Date.parse(row.expires_at) : null });
      }
      touch(row.id, now);
      return principal;
    },

    /** The owner's one master token, made with the account. */
    async createMaster(ownerId: string, trx: Transaction<Database>): Promise<IssuedToken> {
      const { row, secret } = newRow(ownerId, 'master', { name: 'Master token', scopes: [], expiresAt: null });
      await repo.insert(row, trx);
      return { record: toTokenRecord(row), secret };
    },

    async createSession(ownerId: string, actor: AuditActor, trx?: Transaction<Database>): Promise<IssuedToken> {
      const { row, secret } = newRow(ownerId, 'session', {
        name: `Login session${actor.userAgent ? ` (${actor.userAgent.slice(0, 60)})` : ''}`,
        scopes: [],
        expiresAt: isoIn(deps.sessionTtlMs),
      });
      await repo.insert(row, trx);
      return { record: toTokenRecord(row), secret };
    },

    async createForHandshake(
      ownerId: string,
      fields: { handshakeId: string; agentId: string; scopes: Scope[]; expiresAt: string | null },
      trx: Transaction<Database>,
    ): Promise<IssuedToken> {
      const { row, secret } = newRow(ownerId, 'handshake', {
        name: `Agent ${fields.agentId}`,
        scopes: fields.scopes,
        expiresAt: fields.expiresAt,
        handshakeId: fields.handshakeId,
      });
      await repo.insert(row, trx);
      return { record: toTokenRecord(row), secret };
    },

    async create(
      ownerId: string,
      input: { name: string; scopes: Scope[]; expiresAt?: string | null | undefined },
      actor: AuditActor,
    ): Promise<IssuedToken> {
      checkFutureExpiry(input.expiresAt);
      const { row, secret } = newRow(ownerId, 'api', {
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      });
      await repo.insert(row);
      await audit.record(actor, {
        action: 'token.create',
        outcome: 'success',
        targetType: 'token',
        targetId: row.id,
        details: { name: row.name, scopes: input.scopes, expiresAt: row.expires_at },
      });
      return { record: toTokenRecord(row), secret };
    },

    async list(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined; kind?: TokensTable['kind'] | undefined; includeRevoked?: boolean | undefined },
    ): Promise<{ tokens: TokenRecord[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, {
        limit: query.limit + 1,
        cursor: query.cursor,
        // Login sessions are many and short-lived: listed only when asked for.
        kinds: query.kind ? [query.kind] : ['master', 'api', 'handshake'],
        includeRevoked: query.includeRevoked ?? false,
      });
      const page = rows.slice(0, query.limit);
      return { tokens: page.map(toTokenRecord), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
    },

    async get(ownerId: string, id: string): Promise<TokenRecord> {
      return toTokenRecord(await requireToken(ownerId, id));
    },

    async update(
      ownerId: string,
      id: string,
      input: { name?: string | undefined; scopes?: Scope[] | undefined; expiresAt?: string | null | undefined },
      actor: AuditActor,
    ): Promise<TokenRecord> {
      const row = await requireToken(ownerId, id);
      if (row.revoked_at) throw new AppError('CONFLICT', `Token ${id} is revoked and cannot be changed`);
      if (ALL_SCOPES_KINDS.has(row.kind) && (input.scopes !== undefined || input.expiresAt !== undefined)) {
        throw new AppError('CONFLICT', `A ${row.kind} token always holds every scope and its lifetime is fixed; only its name can change`);
      }
      checkFutureExpiry(input.expiresAt);
      const updated = await repo.update(ownerId, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.scopes !== undefined ? { scopes: JSON.stringify([...new Set(input.scopes)]) } : {}),
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
        details: { name: input.name, scopes: input.scopes, expiresAt: input.expiresAt },
      });
      return toTokenRecord(updated!);
    },

    /** Revokes a token; it is refused from its very next request. */
    async revoke(ownerId: string, id: string, actor: AuditActor, trx?: Transaction<Database>): Promise<TokenRecord> {
      const row = await requireToken(ownerId, id, trx);
      if (row.kind === 'master') {
        throw new AppError('CONFLICT', 'The master token cannot be revoked; replace it with POST /api/v1/tokens/master/regenerate');
      }
      if (row.revoked_at) return toTokenRecord(row);
      const now = isoNow();
      const updated = await repo.update(ownerId, id, { revoked_at: now, updated_at: now }, trx);
      forget(id);
      await audit.record(actor, { action: 'token.revoke', outcome: 'success', targetType: 'token', targetId: id }, trx);
      return toTokenRecord(updated!);
    },

    /** A new secret for an API token; the master token is replaced through MasterTokenReplacer only. */
    async regenerate(ownerId: string, id: string, actor: AuditActor): Promise<IssuedToken> {
      const row = await requireToken(ownerId, id);
      if (row.kind === 'master') throw new AppError('CONFLICT', 'The master token is replaced with POST /api/v1/tokens/master/regenerate');
      if (row.kind === 'session') throw new AppError('CONFLICT', 'A login session cannot be regenerated; log in again');
      return rotateSecret(ownerId, row, actor, 'token.regenerate');
    },

    /**
     * A new secret for the master token. Only for a caller that has checked the proof
     * (the accounts service's regenerateMaster): the master token alone reveals vault secrets.
     */
    async rotateMaster(ownerId: string, actor: AuditActor): Promise<IssuedToken> {
      const row = await repo.getMaster(ownerId);
      if (!row) throw notFound('Master token of user', ownerId);
      return rotateSecret(ownerId, row, actor, 'token.master_regenerate');
    },

    /** Drops cached principals after a change made outside this service (e.g. a role change). */
    forget,
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
