import { sql } from 'kysely';
import type { Dialect } from '../../storage/dialect.js';
import type { ActionClass } from '../../http/access.js';
import { decodeJson, isJsonObject, type Executor } from '../../storage/columns.js';
import type { PolicyRuleValue } from './approvals.schemas.js';
import type { ApprovalsTable, ApprovalsTables, TokenPoliciesTable } from './approvals.tables.js';

/** What an owner's pending approvals hold: in all, and of one token. */
export interface PendingUsage {
  ownerCount: number;
  tokenCount: number;
  /** Characters of the sealed bodies (ASCII: bytes). */
  ownerBytes: number;
  /** When the first of them expires (null when there are none): when room is made at the latest. */
  ownerFirstExpiry: string | null;
  tokenFirstExpiry: string | null;
}

export function createApprovalsRepo(db: Executor<ApprovalsTables>, dialect: Dialect) {
  return {
    async getPolicy(tokenId: string): Promise<{ rules: string; updated_at: string } | undefined> {
      return db.selectFrom('token_policies').select(['rules', 'updated_at']).where('token_id', '=', tokenId).executeTakeFirst();
    },

    async putPolicy(row: { token_id: string; owner_id: string; rules: string; updated_at: string }): Promise<void> {
      await db
        .insertInto('token_policies')
        .values(row)
        .onConflict((oc) => oc.column('token_id').doUpdateSet({ rules: row.rules, updated_at: row.updated_at }))
        .execute();
    },

    /**
     * Inserts `row` when `check`, given what the owner's pending approvals already hold, does not
     * throw. Counted and inserted in one transaction, and on PostgreSQL under a lock on the owner's
     * approvals, so that concurrent requests cannot each see room for themselves and all get in;
     * SQLite needs no lock: the driver runs one transaction at a time.
     */
    async insertWithin(row: ApprovalsTable, check: (usage: PendingUsage) => void): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(hashtext(${`approvals:${row.owner_id}`}))`.execute(trx);
        const usage = await trx
          .selectFrom('approvals')
          .select((eb) => [
            eb.fn.countAll<string | number>().as('owner_count'),
            sql<string | number>`COALESCE(SUM(CASE WHEN token_id = ${row.token_id} THEN 1 ELSE 0 END), 0)`.as('token_count'),
            sql<string | number>`COALESCE(SUM(LENGTH(body_sealed)), 0)`.as('owner_bytes'),
            eb.fn.min('expires_at').as('owner_first'),
            sql<string | null>`MIN(CASE WHEN token_id = ${row.token_id} THEN expires_at END)`.as('token_first'),
          ])
          .where('owner_id', '=', row.owner_id)
          .where('status', '=', 'pending')
          .where('expires_at', '>', row.created_at)
          .executeTakeFirstOrThrow();
        check({
          ownerCount: Number(usage.owner_count),
          tokenCount: Number(usage.token_count),
          ownerBytes: Number(usage.owner_bytes),
          ownerFirstExpiry: usage.owner_first ?? null,
          tokenFirstExpiry: usage.token_first ?? null,
        });
        await trx.insertInto('approvals').values(row).execute();
      });
    },

    async get(ownerId: string, id: string): Promise<ApprovalsTable | undefined> {
      return db.selectFrom('approvals').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    /** Newest first (ids are ULIDs); `cursor` is the last id of the previous page. */
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined; status?: ApprovalsTable['status'] | undefined; now: string }): Promise<ApprovalsTable[]> {
      let q = db.selectFrom('approvals').selectAll().where('owner_id', '=', ownerId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      // A pending approval past its time reads expired, before the sweep has written it so.
      if (query.status === 'pending') q = q.where('status', '=', 'pending').where('expires_at', '>', query.now);
      else if (query.status === 'expired') q = q.where((eb) => eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', query.now)])]));
      else if (query.status) q = q.where('status', '=', query.status);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /**
     * The one way a pending approval is decided: a conditional UPDATE that only one caller, on
     * any node, can win. Answers whether this caller won. Approving claims the replay, which the
     * winner starts at once: its start is recorded for the sweep of replays a dead node left.
     */
    async decide(ownerId: string, id: string, to: 'approved' | 'denied', by: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('approvals')
        .set({ status: to, decided_at: now, decided_by: by, ...(to === 'denied' ? { body_sealed: null } : { replay_started_at: now }) })
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Writes how an approved request ended, if it is still running (approved); answers whether it was. */
    async finish(id: string, outcome: Pick<ApprovalsTable, 'status' | 'executed_at' | 'result_status' | 'result_sealed' | 'result_expires_at'>): Promise<boolean> {
      const result = await db.updateTable('approvals').set({ ...outcome, body_sealed: null }).where('id', '=', id).where('status', '=', 'approved').executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Approvals whose replay started at or before `startedBefore` and never ended. */
    async staleReplays(startedBefore: string): Promise<ApprovalsTable[]> {
      return db.selectFrom('approvals').selectAll().where('status', '=', 'approved').where('replay_started_at', '<=', startedBefore).execute();
    },

    /** Marks pending approvals past their time expired (dropping their bodies); answers them. */
    async expire(now: string): Promise<Array<Pick<ApprovalsTable, 'id' | 'owner_id' | 'token_id' | 'action_class'>>> {
      return db
        .updateTable('approvals')
        .set({ status: 'expired', body_sealed: null })
        .where('status', '=', 'pending')
        .where('expires_at', '<=', now)
        .returning(['id', 'owner_id', 'token_id', 'action_class'])
        .execute();
    },

    /** Drops answers kept past their time. */
    async dropOldResults(now: string): Promise<void> {
      await db.updateTable('approvals').set({ result_sealed: null }).where('result_expires_at', '<=', now).where('result_sealed', 'is not', null).execute();
    },
  };
}

export type ApprovalsRepo = ReturnType<typeof createApprovalsRepo>;

/** A token's stored rules (action class → 'ask' | 'deny'; classes left out are allowed), decoded. */
export function policyRulesOf(row: Pick<TokenPoliciesTable, 'rules'>): Partial<Record<ActionClass, PolicyRuleValue>> {
  return decodeJson(row.rules, isStoredRules, 'token_policies.rules');
}

const RULE_VALUES: ReadonlySet<unknown> = new Set<PolicyRuleValue>(['allow', 'ask', 'deny']);
const isStoredRules = (value: unknown): value is Partial<Record<ActionClass, PolicyRuleValue>> =>
  isJsonObject(value) && Object.values(value).every((rule) => RULE_VALUES.has(rule));
