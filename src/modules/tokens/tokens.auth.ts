import type { Principal } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import type { TableName } from '../../storage/derived-cache.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import { constantTimeEqual, hashToken, isWellFormedToken, TOKEN_LENGTH } from '../../lib/crypto.js';
import { isPast } from '../../lib/time.js';
import { agentOf, ALL_SCOPES_KINDS, scopesOf } from './tokens.records.js';
import { storedMemoryTagsOf } from './tokens.repo.js';
import type { TokensRepo } from './tokens.repo.js';

interface CachedPrincipal {
  principal: Principal;
  secretHash: string;
  expiresAtMs: number | null;
  /** With `writes`: the stamp of the tokens and users tables and the time it was taken, before the lookup. */
  stamp: number;
  at: number;
}

/**
 * What a principal is read from: the token, and its owner's role and state (a deleted owner's
 * tokens go with it; a disabled owner's are refused).
 */
const PRINCIPAL_TABLES: readonly TableName[] = ['tokens', 'users'];

/** lastUsedAt is precise to this interval: writing it on every request would double the work of a read. */
const LAST_USED_RESOLUTION_MS = 60_000;
const CACHE_MAX = 10_000;

export interface TokenAuthenticationDeps {
  repo: Pick<TokensRepo, 'findLiveByHash' | 'touch'>;
  /**
   * Keep authenticated tokens in memory. Every change to a token made through this process
   * calls `forget` at once.
   */
  cacheTokens: boolean;
  /**
   * Where other processes change tokens too (other nodes on PostgreSQL; `hearth reset-password`
   * ending sessions, on either engine): a cached principal is served only while
   * no write to the tokens or users table has been counted since its lookup began (this
   * node's own once they commit, other nodes' when their notification arrives), never while
   * the tracker cannot see other nodes' changes, and for at most the tracker's maxAgeMs.
   */
  writes?: WriteTracker | undefined;
}

/**
 * A live token of an account the administrator disabled: refused, with its own reason where the
 * caller can be told (the access hook), as no token at all everywhere else.
 */
const DISABLED = Symbol('account disabled');

/** What a request with a disabled account's token is answered (403 ACCOUNT_DISABLED). */
function disabledAccount(): AppError {
  return new AppError(
    'ACCOUNT_DISABLED',
    "The server's administrator disabled the account this token belongs to: none of its tokens works until the administrator enables it again",
  );
}

/** Bearer secret → principal, on every request: one indexed lookup, or none from the cache. */
export function createTokenAuthentication(deps: TokenAuthenticationDeps) {
  const { repo, writes } = deps;
  const maxAgeMs = writes?.maxAgeMs;
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

  /** Drops every cached principal of one owner (the account was disabled): a walk of the cache, for a rare change. */
  function forgetOwner(ownerId: string): void {
    generation += 1;
    for (const [hash, entry] of cache) {
      if (entry.principal.ownerId !== ownerId) continue;
      cache.delete(hash);
      hashById.delete(entry.principal.tokenId);
      lastTouched.delete(entry.principal.tokenId);
    }
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
    // Written once per interval across every node: one that another node got to first writes nothing.
    repo.touch(tokenId, new Date(now).toISOString(), new Date(now - LAST_USED_RESOLUTION_MS).toISOString()).catch(() => lastTouched.delete(tokenId));
  }

  /**
   * The cached answer for a secret, without waiting: the principal or null when that is known
   * here, or what the lookup needs (the hash, the time and the write stamp) when the database
   * must be asked.
   */
  function fromCache(secret: string): Principal | null | { secretHash: string; now: number; stamp: number | undefined } {
    // Only a value of a secret's length is hashed: a long header costs nothing.
    if (secret.length !== TOKEN_LENGTH) return null;
    const secretHash = hashToken(secret);
    const now = Date.now();

    const stamp = writes ? writes.stamp(PRINCIPAL_TABLES) : 0;
    let cached = deps.cacheTokens && stamp !== undefined ? cache.get(secretHash) : undefined;
    if (cached && writes && (cached.stamp !== stamp || (maxAgeMs !== undefined && now - cached.at >= maxAgeMs))) {
      // Tokens or owners changed since (here or elsewhere), or it is too old: look up again.
      cached = undefined;
    }
    if (cached) {
      if (cached.expiresAtMs !== null && cached.expiresAtMs <= now) {
        forget(cached.principal.tokenId);
        return null;
      }
      touch(cached.principal.tokenId, now);
      return cached.principal;
    }
    // Checked only here, on the way to the database: a hash in the cache is a live token's, so
    // the usual request skips the pattern and the checksum. A malformed or mistyped token never
    // reaches the database.
    if (!isWellFormedToken(secret)) return null;
    return { secretHash, now, stamp };
  }

  function isLookup(answer: ReturnType<typeof fromCache>): answer is { secretHash: string; now: number; stamp: number | undefined } {
    return answer !== null && 'secretHash' in answer;
  }

  /** A secret's principal, DISABLED for a live token of a disabled account, or null. */
  async function lookUp(secret: string): Promise<Principal | null | typeof DISABLED> {
    const answer = fromCache(secret);
    if (!isLookup(answer)) return answer;
    const { secretHash, now, stamp } = answer;

    const startedAt = generation;
    const row = await repo.findLiveByHash(secretHash);
    if (!row || !constantTimeEqual(row.secret_hash, secretHash) || row.revoked_at || isPast(row.expires_at, now)) {
      return null;
    }
    // Refused, and not cached: each request asks the database again, so enabling the account
    // lets its tokens in at once.
    if (row.owner_disabled_at !== null) return DISABLED;
    const principal: Principal = {
      tokenId: row.id,
      ownerId: row.owner_id,
      kind: row.kind,
      allScopes: ALL_SCOPES_KINDS.has(row.kind),
      scopes: new Set(scopesOf(row)),
      role: row.role,
      name: row.name,
      agent: agentOf(row),
      memoryTags: storedMemoryTagsOf(row),
    };
    if (deps.cacheTokens && generation === startedAt && stamp !== undefined && (!writes || writes.stamp(PRINCIPAL_TABLES) === stamp)) {
      remember({ principal, secretHash, expiresAtMs: row.expires_at ? Date.parse(row.expires_at) : null, stamp, at: now });
    }
    touch(row.id, now);
    return principal;
  }

  return {
    /**
     * The principal of a secret when it can be told without the database (a malformed token,
     * a cached one); undefined when only `authenticate` can tell. Every request carrying a
     * token asks this first, so that the usual case, a token in the cache, costs no promise.
     */
    authenticateNow(secret: string): Principal | null | undefined {
      const answer = fromCache(secret);
      return isLookup(answer) ? undefined : answer;
    },

    /**
     * Resolves a bearer secret to its principal; null for anything that is not a live token, and
     * for a token of a disabled account: whoever holds one (an event stream, a daemon's link, an
     * OAuth client) treats it as gone.
     */
    async authenticate(secret: string): Promise<Principal | null> {
      const principal = await lookUp(secret);
      return principal === DISABLED ? null : principal;
    },

    /**
     * The same for a request's token (the access hook): a disabled account's token is refused
     * with 403 ACCOUNT_DISABLED, which tells its holder why and whom to ask, rather than a 401
     * that sends an agent to ask for a new token nobody can give it.
     */
    async authenticateRequest(secret: string): Promise<Principal | null> {
      const principal = await lookUp(secret);
      if (principal === DISABLED) throw disabledAccount();
      return principal;
    },

    /** Drops a token's cached principal: called on every change to the token, and after changes made elsewhere (a role). */
    forget,
    forgetOwner,
  };
}
