import { sql } from 'kysely';
import type { Dialect } from '../../storage/dialect.js';
import { decodeJson, isStringArray, type Executor } from '../../storage/columns.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable, WebhooksTables } from './webhooks.tables.js';


export type EndpointRow = WebhookEndpointsTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = WebhookAttemptsTable;

/** What a finished attempt changes in its delivery. */
export interface AttemptResult {
  state: DeliveryRow['state'];
  nextAttemptAt: string | null;
  attempt: AttemptRow;
}

export function createWebhooksRepo(db: Executor<WebhooksTables>, dialect: Dialect) {
  return {
    async insertEndpoint(row: EndpointRow, trx?: Executor<WebhooksTables>): Promise<void> {
      await (trx ?? db).insertInto('webhook_endpoints').values(row).execute();
    },

    async countEndpoints(ownerId: string, trx?: Executor<WebhooksTables>): Promise<number> {
      const row = await (trx ?? db)
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async listEndpoints(ownerId: string): Promise<EndpointRow[]> {
      return db.selectFrom('webhook_endpoints').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute();
    },

    async getEndpoint(ownerId: string, id: string): Promise<EndpointRow | undefined> {
      return db.selectFrom('webhook_endpoints').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async updateEndpoint(
      ownerId: string,
      id: string,
      changes: Partial<Pick<EndpointRow, 'url' | 'events' | 'enabled' | 'updated_at' | 'consecutive_failures' | 'failing_since' | 'paused_until'>>,
      trx?: Executor<WebhooksTables>,
    ): Promise<EndpointRow | undefined> {
      return (trx ?? db)
        .updateTable('webhook_endpoints')
        .set(changes)
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    /** Deletes the endpoint with its deliveries and their attempts. */
    async deleteEndpoint(ownerId: string, id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        // The webhook's row first, as a claim locks it before its deliveries: one order, no deadlock.
        let ownedQuery = trx.selectFrom('webhook_endpoints').select('id').where('owner_id', '=', ownerId).where('id', '=', id);
        if (dialect === 'postgres') ownedQuery = ownedQuery.forUpdate();
        const owned = await ownedQuery.executeTakeFirst();
        if (!owned) return false;
        const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id);
        await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
        await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
        await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
        return true;
      });
    },

    /**
     * Stores deliveries, skipping any already stored for the same endpoint and event (an event
     * heard twice, on two nodes): answers how many rows are new.
     */
    async insertDeliveries(rows: DeliveryRow[]): Promise<number> {
      if (rows.length === 0) return 0;
      const result = await db
        .insertInto('webhook_deliveries')
        .values(rows)
        .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0);
    },

    /**
     * One batch of the retention rule: deletes at most `limit` finished deliveries (delivered or
     * failed) that finished before `before`, with their attempts; answers how many deliveries
     * went. Pending ones are never touched. When a delivery finishes its `updated_at` is set,
     * and nothing changes a finished delivery after that, so `updated_at` is when it finished.
     *
     * Bounded, so that one statement holds the table only briefly; one short transaction per
     * batch. On PostgreSQL every row it deletes is taken with SKIP LOCKED, so it never waits on
     * a lock: a webhook being deleted meanwhile (which locks attempts, then deliveries) or another
     * node pruning the same rows is passed over, never deadlocked with; what is passed over
     * goes in a later run. A delivery whose attempts were not all deleted is kept for then too.
     */
    async deleteFinishedBefore(before: string, limit: number): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const batch = await trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('state', 'in', ['delivered', 'failed'])
          .where('updated_at', '<', before)
          // The index's order (migration 0031): without it PostgreSQL may read the table from
          // the start, expecting old rows anywhere, and the oldest go first.
          .orderBy('state')
          .orderBy('updated_at')
          .limit(limit)
          .execute();
        if (batch.length === 0) return 0;
        const ids = batch.map((row) => row.id);
        let attempts = trx.selectFrom('webhook_attempts').select('id').where('delivery_id', 'in', ids);
        if (dialect === 'postgres') attempts = attempts.forUpdate().skipLocked();
        await trx.deleteFrom('webhook_attempts').where('id', 'in', attempts).execute();
        let deliveries = trx
          .selectFrom('webhook_deliveries as d')
          .select('d.id')
          .where('d.id', 'in', ids)
          .where('d.state', 'in', ['delivered', 'failed'])
          .where('d.updated_at', '<', before)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_attempts as a').select('a.id').whereRef('a.delivery_id', '=', 'd.id'))));
        if (dialect === 'postgres') deliveries = deliveries.forUpdate().skipLocked();
        const deleted = await trx.deleteFrom('webhook_deliveries').where('id', 'in', deliveries).executeTakeFirst();
        return Number(deleted.numDeletedRows);
      });
    },

    /** Gives up the endpoint's pending deliveries (it was disabled). */
    async failPending(endpointId: string, now: string, trx?: Executor<WebhooksTables>): Promise<void> {
      await (trx ?? db)
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', next_attempt_at: null, updated_at: now })
        .where('endpoint_id', '=', endpointId)
        .where('state', '=', 'pending')
        .execute();
    },

    /** The owner's pending deliveries, in all and for each of `endpointIds`: what the pending caps count. */
    async pendingCounts(ownerId: string, endpointIds: string[]): Promise<{ owner: number; byEndpoint: Map<string, number> }> {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('owner_id', '=', ownerId)
        .where('state', '=', 'pending')
        .groupBy('endpoint_id')
        .execute();
      const byEndpoint = new Map<string, number>(endpointIds.map((id) => [id, 0]));
      let owner = 0;
      for (const row of rows) {
        owner += Number(row.n);
        if (byEndpoint.has(row.endpoint_id)) byEndpoint.set(row.endpoint_id, Number(row.n));
      }
      return { owner, byEndpoint };
    },

    /** Newest first; `cursor` is the last id of the previous page. */
    async listDeliveries(ownerId: string, endpointId: string, query: { limit: number; cursor?: string | undefined }): Promise<DeliveryRow[]> {
      let q = db.selectFrom('webhook_deliveries').selectAll().where('owner_id', '=', ownerId).where('endpoint_id', '=', endpointId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    async getDelivery(ownerId: string, id: string): Promise<DeliveryRow | undefined> {
      return db.selectFrom('webhook_deliveries').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
      if (deliveryIds.length === 0) return [];
      return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempted_at').orderBy('id').execute();
    },

    /**
     * Due deliveries no live lease holds, candidates to claim, in a fair order: each owner's
     * oldest first, then each owner's second, and so on (round-robin by owner), so that one
     * owner's backlog never queues ahead of another owner's first delivery. Left out: paused
     * webhooks, webhooks already at `perEndpoint` attempts in flight, and the owners in
     * `exceptOwners` (at their share of this process's lanes); of each webhook only its
     * `perEndpoint` oldest (no more could be claimed now).
     */
    async dueDeliveries(
      now: string,
      options: { limit: number; perEndpoint: number; exceptOwners: readonly string[] },
    ): Promise<Array<Pick<DeliveryRow, 'id' | 'owner_id'>>> {
      const exceptOwners = options.exceptOwners.length > 0 ? sql`and d.owner_id not in (${sql.join(options.exceptOwners)})` : sql``;
      const result = await sql<Pick<DeliveryRow, 'id' | 'owner_id'>>`
        select id, owner_id from (
          select id, owner_id, next_attempt_at,
            row_number() over (partition by owner_id order by endpoint_rank, next_attempt_at, id) as owner_rank
          from (
            select d.id, d.owner_id, d.next_attempt_at,
              row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as endpoint_rank
            from webhook_deliveries d
            join webhook_endpoints e on e.id = d.endpoint_id
            where d.state = 'pending' and d.next_attempt_at <= ${now}
              and (d.lease is null or d.lease_until <= ${now})
              and (e.paused_until is null or e.paused_until <= ${now})
              ${exceptOwners}
              and d.endpoint_id not in (
                select endpoint_id from webhook_deliveries
                where state = 'pending' and lease_until > ${now}
                group by endpoint_id having count(*) >= ${options.perEndpoint}
              )
          ) by_endpoint
          where endpoint_rank <= ${options.perEndpoint}
        ) by_owner
        order by owner_rank, next_attempt_at, id
        limit ${options.limit}
      `.execute(db);
      return result.rows;
    },

    /**
     * When the worker should look next, after a look for due deliveries made at `lookedAt`: the
     * soonest due time after it of a pending delivery no live lease holds (of a webhook not
     * paused), the soonest end of a pause, or the soonest end of a lease (its holder may have
     * stopped, or frees a webhook's lane); undefined when nothing is pending. What was due at
     * `lookedAt` and not claimed waits for a lane: the attempt that ends wakes the worker. What
     * fell due since is answered (a time past): the worker looks again at once.
     */
    async nextDue(lookedAt: string): Promise<string | undefined> {
      const now = lookedAt;
      const free = await db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .select((eb) => eb.fn.min('d.next_attempt_at').as('at'))
        .where('d.state', '=', 'pending')
        .where('d.next_attempt_at', '>', now)
        .where((eb) => eb.or([eb('d.lease', 'is', null), eb('d.lease_until', '<=', now)]))
        .where((eb) => eb.or([eb('e.paused_until', 'is', null), eb('e.paused_until', '<=', now)]))
        .executeTakeFirst();
      const paused = await db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.min('paused_until').as('at'))
        .where('paused_until', '>', now)
        .executeTakeFirst();
      const held = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('lease_until').as('at'))
        .where('state', '=', 'pending')
        .where('lease_until', '>', now)
        .executeTakeFirst();
      const times = [free?.at, paused?.at, held?.at].filter((at): at is string => typeof at === 'string');
      return times.sort()[0];
    },

    /**
     * Claims a due delivery for one attempt: one conditional UPDATE that succeeds for one caller
     * only, whichever node it runs on, and only while its webhook has fewer than `perEndpoint`
     * attempts in flight (counted in the same statement). On PostgreSQL the webhook's row is
     * locked first (FOR NO KEY UPDATE, in a transaction), so that claims for one webhook queue up on
     * every node and none counts before another's claim commits; SQLite runs one statement at
     * a time. A paused webhook is not claimed for; one whose pause has ended gets one attempt,
     * the probe, alone in flight, and stays paused until `leaseUntil` meanwhile (the probe's
     * outcome then resumes it or pauses it again). Answers the row as claimed, or undefined
     * when another holds it, it is not due or no longer pending, or its webhook has no lane free.
     */
    async claim(
      id: string,
      lease: string,
      now: string,
      leaseUntil: string,
      perEndpoint: number,
    ): Promise<{ row: DeliveryRow; probe: boolean } | undefined> {
      const run = async (q: Executor<WebhooksTables>): Promise<{ row: DeliveryRow; probe: boolean } | undefined> => {
        let endpointQuery = q
          .selectFrom('webhook_endpoints')
          .select(['id', 'paused_until'])
          .where('id', '=', (eb) => eb.selectFrom('webhook_deliveries').select('endpoint_id').where('id', '=', id));
        // NO KEY UPDATE: claims for the webhook queue up, while new deliveries (whose foreign
        // key takes a KEY SHARE lock on this row) are still stored meanwhile.
        if (dialect === 'postgres') endpointQuery = endpointQuery.forNoKeyUpdate();
        const endpoint = await endpointQuery.executeTakeFirst();
        if (!endpoint) return undefined;
        const probe = endpoint.paused_until !== null;
        if (probe && endpoint.paused_until! > now) return undefined;
        const lanes = probe ? 1 : perEndpoint;
        const row = await q
          .updateTable('webhook_deliveries')
          .set({ lease, lease_until: leaseUntil })
          .where('id', '=', id)
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('lease', 'is', null), eb('lease_until', '<=', now)]))
          .where(
            sql<boolean>`(select count(*) from webhook_deliveries held
              where held.endpoint_id = ${endpoint.id} and held.state = 'pending' and held.lease_until > ${now}) < ${lanes}`,
          )
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        if (probe) await q.updateTable('webhook_endpoints').set({ paused_until: leaseUntil }).where('id', '=', endpoint.id).where('paused_until', '<=', now).execute();
        return { row, probe };
      };
      return dialect === 'postgres' ? db.transaction().execute(run) : run(db);
    },

    /** A success: the failures in a row end, and a paused webhook resumes. No write when there is nothing to reset. */
    async recordSuccess(endpointId: string): Promise<void> {
      await db
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: 0, failing_since: null, paused_until: null })
        .where('id', '=', endpointId)
        .where((eb) => eb.or([eb('consecutive_failures', '<>', 0), eb('paused_until', 'is not', null)]))
        .execute();
    },

    /**
     * A failure, counted in the webhook's failures in a row. A failed probe pauses it again
     * until `pauseUntil`; otherwise, once `pauseAfterFailures` in a row span `pauseAfterMs`, it
     * is paused until `pauseUntil`. Answers the webhook when this failure paused a webhook that
     * was not paused (one caller only, on every node: the change is conditional), else undefined.
     */
    async recordFailure(
      endpointId: string,
      now: string,
      rule: { probe: boolean; pauseAfterFailures: number; pauseAfterMs: number; pauseUntil: string },
    ): Promise<EndpointRow | undefined> {
      // No transaction: the count is one atomic increment, and the pause a conditional change.
      const row = await db
        .updateTable('webhook_endpoints')
        .set((eb) => ({
          consecutive_failures: eb('consecutive_failures', '+', 1),
          failing_since: eb.fn.coalesce('failing_since', eb.val(now)),
        }))
        .where('id', '=', endpointId)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      if (rule.probe) {
        await db.updateTable('webhook_endpoints').set({ paused_until: rule.pauseUntil }).where('id', '=', endpointId).where('paused_until', 'is not', null).execute();
        return undefined;
      }
      const failingFor = Date.parse(now) - Date.parse(row.failing_since ?? now);
      if (row.paused_until !== null || row.consecutive_failures < rule.pauseAfterFailures || failingFor < rule.pauseAfterMs) return undefined;
      return db
        .updateTable('webhook_endpoints')
        .set({ paused_until: rule.pauseUntil })
        .where('id', '=', endpointId)
        .where('paused_until', 'is', null)
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * Records an attempt and what follows from it, while the lease is still the caller's (the
     * endpoint may have been deleted or disabled meanwhile). Answers whether it was recorded.
     */
    async finishAttempt(id: string, lease: string, result: AttemptResult): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            state: result.state,
            next_attempt_at: result.nextAttemptAt,
            attempt_count: eb('attempt_count', '+', 1),
            lease: null,
            lease_until: null,
            updated_at: result.attempt.attempted_at,
          }))
          .where('id', '=', id)
          .where('lease', '=', lease)
          .where('state', '=', 'pending')
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) return false;
        await trx.insertInto('webhook_attempts').values(result.attempt).execute();
        return true;
      });
    },

    /** Frees a claim whose attempt was stopped by shutdown: it does not count, and is due at once elsewhere. */
    async release(id: string, lease: string): Promise<void> {
      await db.updateTable('webhook_deliveries').set({ lease: null, lease_until: null }).where('id', '=', id).where('lease', '=', lease).execute();
    },

    /** Gives a claim up without an attempt (the endpoint vanished or was disabled meanwhile). */
    async abandon(id: string, lease: string, now: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', next_attempt_at: null, lease: null, lease_until: null, updated_at: now })
        .where('id', '=', id)
        .where('lease', '=', lease)
        .execute();
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;

/** The event types an endpoint is subscribed to, decoded. */
export function endpointEventsOf(row: Pick<WebhookEndpointsTable, 'events'>): string[] {
  return decodeJson(row.events, isStringArray, 'webhook_endpoints.events');
}
