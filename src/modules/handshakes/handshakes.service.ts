import { hash, randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Scope } from '../../http/access.js';
import { AppError, InputError, notFound } from '../../http/errors.js';
import { constantTimeEqual } from '../../lib/crypto.js';
import { newOpaqueId } from '../../lib/ids.js';
import { isoIn, isoNow, isPast } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { HandshakesTable, HandshakesTables } from './handshakes.tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import type { SecretSealer } from '../keyring/keyring.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import { grantedScopesOf, requestedScopesOf, type HandshakesRepo, type HandshakeStatus } from './handshakes.repo.js';
import type { ClaimedHandshakeToken, Handshake, HandshakeScope, HandshakeStatusView } from './handshakes.schemas.js';
import { decodeTimeCursor, encodeTimeCursor } from '../../http/cursor.js';

type StatusFields = Pick<HandshakesTable, 'status' | 'expires_at' | 'decided_at' | 'revoked_at'>;

/**
 * The status a client sees. Expiry is computed on read rather than by a sweeper, so a
 * handshake is `denied` from the very moment it expires; revocation also reads `denied`.
 */
export function effectiveStatus(row: StatusFields, now = Date.now()): HandshakeStatus {
  if (row.revoked_at) return 'denied';
  if (row.status === 'pending' && isPast(row.expires_at, now)) return 'denied';
  return row.status;
}

/** When the handshake left `pending`: the owner's decision, else the revocation or expiry that closed it. */
function decidedAtOf(row: StatusFields, now: number): string | null {
  if (row.decided_at) return row.decided_at;
  if (row.revoked_at) return row.revoked_at;
  if (row.status === 'pending' && isPast(row.expires_at, now)) return row.expires_at;
  return null;
}

export function toHandshake(row: HandshakesTable, now = Date.now()): Handshake {
  return {
    handshakeId: row.id,
    agentId: row.agent_id,
    requestedScopes: requestedScopesOf(row),
    message: row.message,
    status: effectiveStatus(row, now),
    tokenId: row.token_id,
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: decidedAtOf(row, now),
    revokedAt: row.revoked_at,
    grantedScopes: grantedScopesOf(row),
    claimedAt: row.claimed_at,
  };
}

/** The one-time secret an agent receives with its handshake, to collect its token after approval. */
function newClaimSecret(): string {
  return `hsc_${randomBytes(32).toString('base64url')}`;
}

/** Claim secrets carry 256 random bits, so one SHA-256 is as good as a slow hash here. */
function claimHashOf(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** The keyring context a sealed claim opens under: this handshake's row and nothing else. */
const claimContext = (id: string) => `handshakes:${id}:claim`;

/** Why a handshake can no longer be decided, for the 409 message. */
function notPendingReason(row: HandshakesTable): string {
  if (row.revoked_at) return 'was revoked';
  if (row.status !== 'pending') return `is already ${row.status}`;
  return `expired at ${row.expires_at} without a decision; the agent must ask again`;
}

function conflict(row: HandshakesTable): AppError {
  return new AppError('CONFLICT', `Handshake ${row.id} ${notPendingReason(row)}; a handshake is decided once`);
}

export interface HandshakesServiceOptions {
  db: Executor<HandshakesTables>;
  repo: HandshakesRepo;
  accounts: Pick<AccountsService, 'findHandshakeTarget'>;
  tokens: Pick<TokensService, 'mintForHandshake' | 'saveForHandshake' | 'revoke'>;
  audit: Pick<AuditService, 'record'>;
  /** Seals the approved token until the agent claims it. */
  sealer: SecretSealer;
  /** How long a handshake waits for a decision before it reads `denied`. */
  ttlMs: number;
  /** Told, after each commit, of requests, decisions, claims and revocations (the console's live view). */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

export function createHandshakesService(deps: HandshakesServiceOptions) {
  const { db, repo, tokens, audit, sealer } = deps;
  const publish: EventsBus['publish'] | undefined = deps.events ? (ownerId, event) => deps.events!.publish(ownerId, event) : undefined;

  /** Refuses a claim: recorded in the owner's log, answered without a token. */
  async function refuseClaim(
    row: { id: string; owner_id: string; agent_id: string },
    actor: AuditActor,
    error: AppError,
  ): Promise<never> {
    await audit.record(
      { ...actor, ownerId: row.owner_id, tokenId: null },
      {
        action: 'handshake.claim',
        outcome: 'failure',
        targetType: 'handshake',
        targetId: row.id,
        details: { agentId: row.agent_id, reason: error.message },
      },
    );
    throw error;
  }

  async function requireHandshake(ownerId: string, id: string, trx: Transaction<HandshakesTables>): Promise<HandshakesTable> {
    const row = await repo.get(ownerId, id, trx);
    if (!row) throw notFound('Handshake', id);
    return row;
  }

  /** Reads the row, checks it is still open, and lets exactly one concurrent decision through. */
  async function claimDecision(
    ownerId: string,
    id: string,
    status: 'approved' | 'denied',
    trx: Transaction<HandshakesTables>,
  ): Promise<{ row: HandshakesTable; decidedAt: string }> {
    const row = await requireHandshake(ownerId, id, trx);
    if (effectiveStatus(row) !== 'pending') throw conflict(row);
    const decidedAt = isoNow();
    if (!(await repo.decide(ownerId, id, { status, decidedAt }, trx))) {
      // Another request decided or revoked it between the read and the update.
      const current = await requireHandshake(ownerId, id, trx);
      throw effectiveStatus(current) === 'pending'
        ? new AppError('CONFLICT', `Handshake ${id} expired without a decision; the agent must ask again`)
        : conflict(current);
    }
    return { row, decidedAt };
  }

  return {
    /** The public request of an agent without a token. */
    async create(
      input: { agentId: string; requestedScopes: HandshakeScope[]; message: string; ownerId?: string | undefined },
      actor: AuditActor,
    ): Promise<{ handshake: Handshake; claimSecret: string }> {
      const ownerId = await deps.accounts.findHandshakeTarget(input.ownerId);
      if (!ownerId) {
        throw input.ownerId === undefined
          ? new AppError('NOT_FOUND', 'This server has no account yet, so there is no owner to ask')
          : notFound('Account', input.ownerId);
      }
      // Tokens nobody claimed within their window are erased as new requests come in.
      await repo.dropExpiredClaims(new Date(Date.now() - deps.ttlMs).toISOString());
      const claimSecret = newClaimSecret();
      const row: HandshakesTable = {
        id: newOpaqueId('hs'),
        owner_id: ownerId,
        agent_id: input.agentId,
        requested_scopes: JSON.stringify(input.requestedScopes),
        message: input.message,
        status: 'pending',
        token_id: null,
        client_ip: actor.ip,
        user_agent: actor.userAgent,
        created_at: isoNow(),
        expires_at: isoIn(deps.ttlMs),
        decided_at: null,
        revoked_at: null,
        claim_hash: claimHashOf(claimSecret),
        claim_sealed: null,
        claimed_at: null,
        granted_scopes: null,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(row, trx);
        // The request reaches the owner's log whoever sent it, and never under a token of theirs.
        await audit.record(
          { ...actor, ownerId, tokenId: null },
          {
            action: 'handshake.create',
            outcome: 'success',
            targetType: 'handshake',
            targetId: row.id,
            details: { agentId: row.agent_id, requestedScopes: input.requestedScopes },
          },
          trx,
        );
      });
      publish?.(ownerId, { type: 'handshake.created', data: { handshakeId: row.id, agentId: row.agent_id, requestedScopes: input.requestedScopes } });
      return { handshake: toHandshake(row), claimSecret };
    },

    /** What the agent may learn by polling: never the token. */
    async status(id: string): Promise<HandshakeStatusView> {
      const row = await repo.getPublic(id);
      if (!row) throw notFound('Handshake', id);
      const now = Date.now();
      return { handshakeId: row.id, status: effectiveStatus(row, now), expiresAt: row.expires_at, decidedAt: decidedAtOf(row, now) };
    },

    async list(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined; status?: HandshakeStatus | undefined },
    ): Promise<{ handshakes: Handshake[]; nextCursor: string | null }> {
      const now = Date.now();
      const cursor = query.cursor ? decodeTimeCursor(query.cursor) : undefined;
      const rows = await repo.list(ownerId, {
        limit: query.limit + 1,
        after: cursor && { createdAt: cursor.time, id: cursor.id },
        status: query.status,
        now: new Date(now).toISOString(),
      });
      const page = rows.slice(0, query.limit);
      return {
        handshakes: page.map((row) => toHandshake(row, now)),
        nextCursor: rows.length > query.limit ? encodeTimeCursor(page[page.length - 1]!.created_at, page[page.length - 1]!.id) : null,
      };
    },

    /**
     * Approves and makes the agent's token. The token is minted and sealed for the agent's claim
     * first (sealing may read the owner's key from the database); then one transaction makes the
     * conditional status change before storing anything, so a losing concurrent approval fails
     * before any token exists. The owner may grant any scopes, more or fewer than were asked.
     */
    async approve(
      ownerId: string,
      id: string,
      input: { scopes?: Scope[] | undefined; expiresAt?: string | undefined },
      actor: AuditActor,
    ): Promise<{ handshake: Handshake; token: string }> {
      if (input.expiresAt && isPast(input.expiresAt)) {
        throw new InputError('expiresAt', 'must be in the future');
      }
      const expiresAt = input.expiresAt ? new Date(input.expiresAt).toISOString() : null;
      const current = await repo.get(ownerId, id);
      if (!current) throw notFound('Handshake', id);
      if (effectiveStatus(current) !== 'pending') throw conflict(current);
      const requested = requestedScopesOf(current);
      const scopes: Scope[] = input.scopes ? [...new Set(input.scopes)] : requested;
      const minted = tokens.mintForHandshake(ownerId, { handshakeId: id, agentId: current.agent_id, scopes, expiresAt });
      const claimSealed = current.claim_hash ? await sealer.seal(ownerId, claimContext(id), minted.secret) : null;
      const approved = await db.transaction().execute(async (trx) => {
        const { row } = await claimDecision(ownerId, id, 'approved', trx);
        const issued = await tokens.saveForHandshake(minted, trx);
        await repo.recordApproval(ownerId, id, { tokenId: issued.record.id, grantedScopes: JSON.stringify(scopes), claimSealed }, trx);
        await audit.record(
          actor,
          {
            action: 'handshake.approve',
            outcome: 'success',
            targetType: 'handshake',
            targetId: id,
            details: { agentId: row.agent_id, requestedScopes: requested, scopes, tokenId: issued.record.id, tokenExpiresAt: expiresAt },
          },
          trx,
        );
        const updated = await requireHandshake(ownerId, id, trx);
        return { handshake: toHandshake(updated), token: issued.secret };
      });
      const { handshake } = approved;
      publish?.(ownerId, {
        type: 'handshake.decided',
        data: { handshakeId: id, agentId: handshake.agentId, decision: 'approved', tokenId: handshake.tokenId },
      });
      return approved;
    },

    /**
     * The agent collects the token the owner approved, with the claim secret it received when it
     * asked: once, within the claim window, and never after a denial or revocation. Every refusal
     * answers without a token and says why; a wrong secret says nothing about the handshake.
     */
    async claim(id: string, claimSecret: string, actor: AuditActor): Promise<ClaimedHandshakeToken> {
      const row = await repo.getForClaim(id);
      if (!row) throw notFound('Handshake', id);
      if (!row.claim_hash || !constantTimeEqual(claimHashOf(claimSecret), row.claim_hash)) {
        return refuseClaim(
          row,
          actor,
          new AppError('FORBIDDEN', 'claimSecret does not match this handshake: send the claimSecret the handshake was created with'),
        );
      }
      const status = effectiveStatus(row);
      if (status === 'pending') {
        throw new AppError('CONFLICT', `Handshake ${id} is still pending: poll its status and claim once it reads approved`);
      }
      if (status === 'denied') {
        return refuseClaim(row, actor, new AppError('CONFLICT', `Handshake ${id} was denied, revoked or expired: there is no token to claim`));
      }
      if (row.claimed_at) {
        return refuseClaim(row, actor, new AppError('CONFLICT', `The token of handshake ${id} was already claimed at ${row.claimed_at}; it is handed over once`));
      }
      const windowEnd = row.decided_at ? new Date(Date.parse(row.decided_at) + deps.ttlMs).toISOString() : row.expires_at;
      if (!row.claim_sealed || isPast(windowEnd)) {
        if (row.claim_sealed) await repo.dropClaim(id);
        return refuseClaim(
          row,
          actor,
          new AppError('CONFLICT', `The token of handshake ${id} could be claimed until ${windowEnd}; ask the owner to pass it on or to approve a new handshake`),
        );
      }
      // Opened before the handover: a value that does not open leaves the claim untouched.
      const token = await sealer.open(row.owner_id, claimContext(id), row.claim_sealed);
      const claimedAt = isoNow();
      const claimed = await db.transaction().execute(async (trx) => {
        if (!(await repo.markClaimed(id, claimedAt, trx))) return false;
        await audit.record(
          { ...actor, ownerId: row.owner_id, tokenId: null },
          {
            action: 'handshake.claim',
            outcome: 'success',
            targetType: 'handshake',
            targetId: id,
            details: { agentId: row.agent_id, tokenId: row.token_id },
          },
          trx,
        );
        return true;
      });
      if (!claimed) {
        // A concurrent claim or a revocation came first.
        throw new AppError('CONFLICT', `The token of handshake ${id} was already claimed or the handshake was revoked`);
      }
      publish?.(row.owner_id, { type: 'handshake.claimed', data: { handshakeId: id, agentId: row.agent_id, tokenId: row.token_id } });
      return { token, scopes: grantedScopesOf(row) ?? [] };
    },

    async deny(ownerId: string, id: string, actor: AuditActor): Promise<Handshake> {
      const denied = await db.transaction().execute(async (trx) => {
        const { row } = await claimDecision(ownerId, id, 'denied', trx);
        await audit.record(
          actor,
          { action: 'handshake.deny', outcome: 'success', targetType: 'handshake', targetId: id, details: { agentId: row.agent_id } },
          trx,
        );
        return toHandshake(await requireHandshake(ownerId, id, trx));
      });
      publish?.(ownerId, { type: 'handshake.decided', data: { handshakeId: id, agentId: denied.agentId, decision: 'denied', tokenId: null } });
      return denied;
    },

    /** Closes a handshake for good; the token it produced, if any, is refused from its next request. */
    async revoke(ownerId: string, id: string, actor: AuditActor): Promise<Handshake> {
      const result = await db.transaction().execute(async (trx) => {
        // The update comes first so that, against a concurrent approval, it waits for that
        // approval to commit and then sees the token it made.
        const changed = await repo.revoke(ownerId, id, isoNow(), trx);
        const row = await requireHandshake(ownerId, id, trx);
        if (changed) {
          if (row.token_id) await tokens.revoke(ownerId, row.token_id, actor, trx);
          await audit.record(
            actor,
            {
              action: 'handshake.revoke',
              outcome: 'success',
              targetType: 'handshake',
              targetId: id,
              details: { agentId: row.agent_id, tokenId: row.token_id },
            },
            trx,
          );
        }
        return { handshake: toHandshake(row), changed };
      });
      const { handshake, changed } = result;
      if (changed && publish) {
        publish(ownerId, { type: 'handshake.revoked', data: { handshakeId: id, agentId: handshake.agentId, tokenId: handshake.tokenId } });
        // The token was revoked inside this transaction, so its announcement waited for the commit.
        if (handshake.tokenId) publish(ownerId, { type: 'token.revoked', data: { tokenId: handshake.tokenId, kind: 'handshake' } });
      }
      return handshake;
    },
  };
}

export type HandshakesService = ReturnType<typeof createHandshakesService>;
