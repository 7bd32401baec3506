import type { Executor } from '../../storage/columns.js';
import type { BillingEventsTable, BillingTables } from './billing.tables.js';

export function createBillingRepo(db: Executor<BillingTables>) {
  return {
    /**
     * Records an event id once. False when it was already recorded: the delivery is a repeat.
     * Inside the transaction that acts on the event, a concurrent repeat waits for it (the
     * primary key) and then finds the id taken.
     */
    async recordEvent(row: BillingEventsTable, trx?: Executor<BillingTables>): Promise<boolean> {
      const inserted = await (trx ?? db)
        .insertInto('billing_events')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    async findEvent(id: string): Promise<BillingEventsTable | undefined> {
      return db.selectFrom('billing_events').selectAll().where('id', '=', id).executeTakeFirst();
    },
  };
}

export type BillingRepo = ReturnType<typeof createBillingRepo>;
