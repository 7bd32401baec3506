import type { Transaction } from 'kysely';
import type { Scope } from '../../http/access.js';
import { decodeJson, isStringArray, type Executor } from '../../storage/columns.js';
import type { HandshakeScope } from './handshakes.schemas.js';
import type { HandshakesTable, HandshakesTables } from './handshakes.tables.js';

export type HandshakeStatus = HandshakesTable['status'];

export interface HandshakeListQuery {
  limit: number;
  /** The (created_at, id) of the last item of the previous page. */
  after?: { createdAt: string; id: string } | undefined;
  status?: HandshakeStatus | undefined;
  /** ISO time against which pending handshakes count as expired. */
  now: string;
}

export function createHandshakesRepo(db: Executor<HandshakesTables>) {
  return {
    async insert(row: HandshakesTable, trx?: Executor<HandshakesTables>): Promise<void> {
      await (trx ?? db).insertInto('handshakes').values(row).execute();
    },

    async get(ownerId: string, id: string, trx?: Executor<HandshakesTables>): Promise<HandshakesTable | undefined> {
      return (trx ?? db)
        .selectFrom('handshakes')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** The public status read: the unguessable id is the only key the agent holds. */
    async getPublic(id: string) {
      return db
        .selectFrom('handshakes')
        .select(['id', 'status', 'created_at', 'expires_at', 'decided_at', 'revoked_at'])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Newest first. Ids are random, so the order and the cursor are (created_at, id). */
    async list(ownerId: string, query: HandshakeListQuery): Promise<HandshakesTable[]> {
      let q = db.selectFrom('handshakes').selectAll().where('owner_id', '=', ownerId);
      const { after, now } = query;
      if (after) {
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '<', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
          ]),
        );
      }
      // The status a client sees is computed (expiry and revocation read `denied`), so the
      // filter computes it the same way.
      switch (query.status) {
        case 'pending':
          q = q.where('status', '=', 'pending').where('revoked_at', 'is', null).where('expires_at', '>', now);
          break;
        case 'approved':
          q = q.where('status', '=', 'approved').where('revoked_at', 'is', null);
          break;
        case 'denied':
          q = q.where((eb) =>
            eb.or([
              eb('status', '=', 'denied'),
              eb('revoked_at', 'is not', null),
              eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', now)]),
            ]),
          );
          break;
      }
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
    },

    /**
     * Moves a handshake out of `pending` only if it is still undecided, unrevoked and
     * unexpired, in one statement: of two concurrent decisions exactly one changes the row.
     * Answers whether this call was the one.
     */
    async decide(
      ownerId: string,
      id: string,
      decision: { status: Exclude<HandshakeStatus, 'pending'>; decidedAt: string },
      trx: Transaction<HandshakesTables>,
    ): Promise<boolean> {
      const result = await trx
        .updateTable('handshakes')
        .set({ status: decision.status, decided_at: decision.decidedAt })
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', decision.decidedAt)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Stores what the approval made: the token's id, the granted scopes and the sealed token for the claim. */
    async recordApproval(
      ownerId: string,
      id: string,
      approval: { tokenId: string; grantedScopes: string; claimSealed: string | null },
      trx: Transaction<HandshakesTables>,
    ): Promise<void> {
      await trx
        .updateTable('handshakes')
        .set({ token_id: approval.tokenId, granted_scopes: approval.grantedScopes, claim_sealed: approval.claimSealed })
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .execute();
    },

    /** What a claim needs; the unguessable id and the claim secret are all the agent holds. */
    async getForClaim(id: string) {
      return db
        .selectFrom('handshakes')
        .select([
          'id',
          'owner_id',
          'agent_id',
          'status',
          'token_id',
          'expires_at',
          'decided_at',
          'revoked_at',
          'claim_hash',
          'claim_sealed',
          'claimed_at',
          'granted_scopes',
        ])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /**
     * Hands the sealed token over once: erases it and stamps claimed_at only if it is still
     * there and the handshake is still approved and unrevoked. Of two concurrent claims exactly
     * one changes the row; answers whether this call was the one.
     */
    async markClaimed(id: string, at: string, trx?: Executor<HandshakesTables>): Promise<boolean> {
      const result = await (trx ?? db)
        .updateTable('handshakes')
        .set({ claimed_at: at, claim_sealed: null })
        .where('id', '=', id)
        .where('status', '=', 'approved')
        .where('revoked_at', 'is', null)
        .where('claimed_at', 'is', null)
        .where('claim_sealed', 'is not', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Erases every sealed token whose claim window closed (approved before `decidedBefore`). */
    async dropExpiredClaims(decidedBefore: string): Promise<void> {
      await db
        .updateTable('handshakes')
        .set({ claim_sealed: null })
        .where('claim_sealed', 'is not', null)
        .where('decided_at', '<', decidedBefore)
        .execute();
    },

    /** Erases a sealed token that can no longer be claimed (the claim window closed). */
    async dropClaim(id: string): Promise<void> {
      await db.updateTable('handshakes').set({ claim_sealed: null }).where('id', '=', id).execute();
    },

    /** Sets revoked_at once; answers whether this call did it. */
    async revoke(ownerId: string, id: string, at: string, trx: Transaction<HandshakesTables>): Promise<boolean> {
      const result = await trx
        .updateTable('handshakes')
        // A revoked handshake's token can no longer be claimed: its sealed copy goes too.
        .set({ revoked_at: at, claim_sealed: null })
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type HandshakesRepo = ReturnType<typeof createHandshakesRepo>;

/** Scope names this server wrote: strings, checked as such (a scope a later version dropped is simply never granted). */
const isScopeList = (value: unknown): value is Scope[] => isStringArray(value);
const isHandshakeScopeList = (value: unknown): value is HandshakeScope[] => isStringArray(value);

/** The scopes the agent asked for, decoded. */
export function requestedScopesOf(row: Pick<HandshakesTable, 'requested_scopes'>): HandshakeScope[] {
  return decodeJson(row.requested_scopes, isHandshakeScopeList, 'handshakes.requested_scopes');
}

/** The scopes granted on approval, decoded; null until approved. */
export function grantedScopesOf(row: Pick<HandshakesTable, 'granted_scopes'>): Scope[] | null {
  return row.granted_scopes === null ? null : decodeJson(row.granted_scopes, isScopeList, 'handshakes.granted_scopes');
}
