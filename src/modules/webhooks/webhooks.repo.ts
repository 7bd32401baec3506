import type { Kysely, Transaction } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../storage/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export type EndpointRow = WebhookEndpointsTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = WebhookAttemptsTable;

/** What a finished attempt changes in its delivery. */
export interface AttemptResult {
  state: DeliveryRow['state'];
  nextAttemptAt: string | null;
  attempt: AttemptRow;
}

export function createWebhooksRepo(db: Kysely<Database>) {
  return {
    async insertEndpoint(row: EndpointRow, trx?: Db): Promise<void> {
      await (trx ?? db).insertInto('webhook_endpoints').values(row).execute();
    },

    async countEndpoints(ownerId: string, trx?: Db): Promise<number> {
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
      changes: Partial<Pick<EndpointRow, 'url' | 'events' | 'enabled' | 'updated_at'>>,
      trx?: Db,
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
        const owned = await trx.selectFrom('webhook_endpoints').select('id').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
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

    /** Gives up the endpoint's pending deliveries (it was disabled). */
    async failPending(endpointId: string, now: string, trx?: Db): Promise<void> {
      await (trx ?? db)
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', next_attempt_at: null, updated_at: now })
        .where('endpoint_id', '=', endpointId)
        .where('state', '=', 'pending')
        .execute();
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

    /** Due deliveries of enabled endpoints that no live lease holds, soonest first: candidates to claim. */
    async dueDeliveries(now: string, limit: number): Promise<Array<Pick<DeliveryRow, 'id'>>> {
      return db
        .selectFrom('webhook_deliveries')
        .select('webhook_deliveries.id')
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease', 'is', null), eb('lease_until', '<=', now)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute();
    },

    /**
     * When the worker should look next: the soonest due time of a pending delivery no live lease
     * holds, or the soonest end of a lease (its holder may have stopped); undefined when nothing
     * is pending.
     */
    async nextDue(now: string): Promise<string | undefined> {
      const free = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('at'))
        .where('state', '=', 'pending')
        .where((eb) => eb.or([eb('lease', 'is', null), eb('lease_until', '<=', now)]))
        .executeTakeFirst();
      const held = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('lease_until').as('at'))
        .where('state', '=', 'pending')
        .where('lease_until', '>', now)
        .executeTakeFirst();
      const times = [free?.at, held?.at].filter((at): at is string => typeof at === 'string');
      return times.sort()[0];
    },

    /**
     * Claims a due delivery for one attempt: one atomic UPDATE that succeeds for one caller only,
     * whichever node it runs on. Answers the row as claimed, or undefined when another holds it,
     * it is not due, or it is no longer pending.
     */
    async claim(id: string, lease: string, now: string, leaseUntil: string): Promise<DeliveryRow | undefined> {
      return db
        .updateTable('webhook_deliveries')
        .set({ lease, lease_until: leaseUntil })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease', 'is', null), eb('lease_until', '<=', now)]))
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
