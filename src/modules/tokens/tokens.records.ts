import type { Static } from '@sinclair/typebox';
import type { PrincipalAgent, Scope } from '../../http/access.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { generateTokenSecret, hashToken, tokenHint, type TokenKind } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { isoNow, isPast } from '../../lib/time.js';
import { storedMemoryTagsOf, storedScopesOf } from './tokens.repo.js';
import type { TokensTable } from './tokens.tables.js';
import type { TokenSchema } from './tokens.schemas.js';

/** A token as the API shows it: never its secret. */
export type TokenRecord = Static<typeof TokenSchema>;

/** A record together with its secret: only ever returned when a token is made or given a new secret. */
export interface IssuedToken {
  record: TokenRecord;
  secret: string;
}

/** Master tokens and login sessions hold every scope, also scopes added later. */
export const ALL_SCOPES_KINDS = new Set<TokensTable['kind']>(['master', 'session']);

/** The scopes a stored token holds. */
export function scopesOf(row: Pick<TokensTable, 'kind' | 'scopes'>): Scope[] {
  return ALL_SCOPES_KINDS.has(row.kind) ? [...SCOPE_NAMES] : storedScopesOf(row);
}

/**
 * Who a token was issued to, from the token's row joined to its OAuth client or handshake: the
 * client's registered name (its id when the client is gone), the handshake agent's own id.
 */
export function agentOf(row: {
  client_id: string | null;
  handshake_id: string | null;
  client_name: string | null;
  handshake_agent: string | null;
}): PrincipalAgent | null {
  if (row.client_id) return { kind: 'oauth_client', id: row.client_id, name: row.client_name ?? row.client_id };
  if (row.handshake_id) return { kind: 'handshake', id: row.handshake_id, name: row.handshake_agent ?? row.handshake_id };
  return null;
}

export function toTokenRecord(row: TokensTable): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    scopes: scopesOf(row),
    memoryTags: storedMemoryTagsOf(row),
    hint: row.hint,
    status: row.revoked_at ? 'revoked' : isPast(row.expires_at) ? 'expired' : 'active',
    handshakeId: row.handshake_id,
    clientId: row.client_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/**
 * A new token: its secret (shown once) and the row that keeps only the secret's hash and a
 * hint to recognise it by.
 */
/** A token made in memory: the row to store and the secret, which is never stored. */
export interface MintedToken {
  row: TokensTable;
  secret: string;
}

export function mintToken(
  ownerId: string,
  kind: TokenKind,
  fields: {
    name: string;
    scopes: Scope[];
    expiresAt: string | null;
    handshakeId?: string | null;
    clientId?: string | null;
    /** Normalized tags the token's memory is limited to (see tokens.memory-tags.ts); none: no limit. */
    memoryTags?: readonly string[] | null;
  },
): MintedToken {
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
      client_id: fields.clientId ?? null,
      created_at: now,
      updated_at: now,
      expires_at: fields.expiresAt,
      last_used_at: null,
      revoked_at: null,
      memory_tags: fields.memoryTags ? JSON.stringify(fields.memoryTags) : null,
    },
  };
}
