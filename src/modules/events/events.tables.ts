import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const eventsTables = ownedTables({
  /**
   * Events published by a process that is not a server (migration 0042), until a server takes
   * and publishes them (events.outbox.ts).
   */
  event_outbox: table({
    /** The event's own id (`evt_…`), the one its listeners and webhooks see. */
    id: column.text(),
    owner_id: column.text(),
    /** The event as published: JSON of `{ id, occurredAt, type, data }`. */
    event: column.json(),
    created_at: column.time(),
  }),
});

export type EventsTables = TablesOf<typeof eventsTables>;
