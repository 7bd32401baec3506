import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const billingTables = ownedTables({
  /** Stripe webhook events already handled, by Stripe's event id. */
  billing_events: table({
    /** Stripe's event id (`evt_…`). */
    id: column.text(),
    type: column.text(),
    livemode: column.boolean(),
    /** `applied`: the event changed a plan; `ignored`: nothing to do for it. */
    outcome: column.text<'applied' | 'ignored'>(),
    user_id: column.text().orNull(),
    plan_id: column.text().orNull(),
    /** When Stripe created the event. */
    created_at: column.time(),
    received_at: column.time(),
  }),
});

export type BillingTables = TablesOf<typeof billingTables>;
export type BillingEventsTable = BillingTables['billing_events'];
