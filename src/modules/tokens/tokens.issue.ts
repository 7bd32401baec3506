import type { Static } from '@sinclair/typebox';
import { InputError } from '../../http/errors.js';
import type { Scope } from '../../http/access.js';
import { isoIn, isPast } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import { mintToken, toTokenRecord, type IssuedToken, type MintedToken } from './tokens.records.js';
import type { TokensRepo } from './tokens.repo.js';
import { memoryTagsOf } from './tokens.memory-tags.js';
import type { CreateTokenBody } from './tokens.schemas.js';

export type NewApiToken = Static<typeof CreateTokenBody>;

/** An expiry must lie ahead; the error names the field, the route says where it was sent. */
export function checkFutureExpiry(expiresAt: string | null | undefined): void {
  if (expiresAt && isPast(expiresAt)) {
    throw new InputError('expiresAt', 'must be in the future', 'expiresAt must be in the future');
  }
}

export interface TokenIssuingDeps {
  repo: Pick<TokensRepo, 'insert'>;
  audit: Pick<AuditService, 'record'>;
  sessionTtlMs: number;
  /** Told of each API token the owner makes (the console's live view). */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/** Making tokens: the master token with the account, login sessions, agents' tokens, API tokens. */
export function createTokenIssuing(deps: TokenIssuingDeps) {
  const { repo, audit } = deps;
  return {
    /** The owner's one master token, made with the account. */
    async createMaster(ownerId: string, trx: Executor): Promise<IssuedToken> {
      const { row, secret } = mintToken(ownerId, 'master', { name: 'Master token', scopes: [], expiresAt: null });
      await repo.insert(row, trx);
      return { record: toTokenRecord(row), secret };
    },

    async createSession(ownerId: string, actor: AuditActor, trx?: Executor): Promise<IssuedToken> {
      const { row, secret } = mintToken(ownerId, 'session', {
        name: `Login session${actor.userAgent ? ` (${actor.userAgent.slice(0, 60)})` : ''}`,
        scopes: [],
        expiresAt: isoIn(deps.sessionTtlMs),
      });
      await repo.insert(row, trx);
      return { record: toTokenRecord(row), secret };
    },

    /**
     * An agent's token, minted but not stored: the approval seals its secret for the agent's
     * claim (which needs the database) before the transaction that stores it opens.
     */
    mintForHandshake(
      ownerId: string,
      fields: { handshakeId: string; agentId: string; scopes: Scope[]; expiresAt: string | null },
    ): MintedToken {
      return mintToken(ownerId, 'handshake', {
        name: `Agent ${fields.agentId}`,
        scopes: fields.scopes,
        expiresAt: fields.expiresAt,
        handshakeId: fields.handshakeId,
      });
    },

    /** Stores a token `mintForHandshake` made, inside the approval's transaction. */
    async saveForHandshake(minted: MintedToken, trx: Executor): Promise<IssuedToken> {
      await repo.insert(minted.row, trx);
      return { record: toTokenRecord(minted.row), secret: minted.secret };
    },

    /** A token for an OAuth client the owner approved (the authorization server's access token). */
    async createForClient(
      ownerId: string,
      fields: { clientId: string; clientName: string; scopes: Scope[]; expiresAt: string },
      trx: Executor,
    ): Promise<IssuedToken> {
      const { row, secret } = mintToken(ownerId, 'oauth', {
        name: fields.clientName.slice(0, 100),
        scopes: fields.scopes,
        expiresAt: fields.expiresAt,
        clientId: fields.clientId,
      });
      await repo.insert(row, trx);
      return { record: toTokenRecord(row), secret };
    },

    async create(ownerId: string, input: NewApiToken, actor: AuditActor): Promise<IssuedToken> {
      checkFutureExpiry(input.expiresAt);
      const { row, secret } = mintToken(ownerId, 'api', {
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
        memoryTags: input.memoryTags ? memoryTagsOf(input.memoryTags) : null,
      });
      await repo.insert(row);
      await audit.record(actor, {
        action: 'token.create',
        outcome: 'success',
        targetType: 'token',
        targetId: row.id,
        details: { name: row.name, scopes: input.scopes, expiresAt: row.expires_at, ...(row.memory_tags ? { memoryTags: input.memoryTags } : {}) },
      });
      deps.events?.publish(ownerId, { type: 'token.created', data: { tokenId: row.id, name: row.name, kind: row.kind, scopes: [...new Set(input.scopes)] } });
      return { record: toTokenRecord(row), secret };
    },
  };
}
