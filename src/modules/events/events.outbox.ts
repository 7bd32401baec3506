import { newId } from '../../lib/ids.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import type { Part } from '../../lib/lifecycle.js';
import type { Executor } from '../../storage/columns.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import type { EventsBus } from './events.bus.js';
import type { AccountEvent, NewEvent } from './events.schemas.js';
import type { EventsTables } from './events.tables.js';

/*
 * Account events from a process that is not a server. The command line (`hearth reset-password`
 * ending login sessions) has no listeners, no webhooks and no link to the other nodes: what it
 * publishes would be heard by nobody. It writes each event, with its id and time, into
 * `event_outbox` instead; every running server takes what is there (each row by one server
 * only) and publishes it on its bus as one of its own, so that the console's live streams on
 * every node, the webhooks and whoever else listens hear it as they hear the server's.
 */

/** Rows taken at once; more are taken at once after. */
const BATCH = 100;
/**
 * How often a server looks whether another process wrote an event: it reads the table only when
 * the write tracker says it changed (SQLite's data_version, PostgreSQL's write feed), or when it
 * cannot tell. A second is well within how soon anyone expects a session ended elsewhere to show.
 */
export const OUTBOX_CHECK_MS = 1_000;

/** What a process that is not a server publishes with: events stored until `flush` answers. */
export interface OutboxWriter {
  publish(ownerId: string, event: NewEvent): AccountEvent;
  /** Waits until every event published so far is stored; throws if one could not be. */
  flush(): Promise<void>;
}

export function createOutboxWriter(db: Executor<EventsTables>): OutboxWriter {
  const pending: Array<Promise<unknown>> = [];
  return {
    publish(ownerId, event) {
      const delivered = { id: newId('evt'), occurredAt: new Date().toISOString(), ...event } as AccountEvent;
      const stored = db.insertInto('event_outbox').values({ id: delivered.id, owner_id: ownerId, event: JSON.stringify(delivered), created_at: delivered.occurredAt }).execute();
      void ignoreFailure(stored, 'flush awaits it and throws its failure; until then it must not end the process as an unhandled rejection');
      pending.push(stored);
      return delivered;
    },
    async flush() {
      await Promise.all(pending.splice(0));
    },
  };
}

/**
 * The server's side: takes the stored events, oldest first, and publishes each on `events` with
 * its own id and time. A row is deleted as it is taken, in one statement, so that of several
 * nodes exactly one publishes it (and so stores its webhook deliveries); the others find it gone.
 */
export function createOutboxRelay(deps: {
  db: Executor<EventsTables>;
  events: Pick<EventsBus, 'publish'>;
  writes: Pick<WriteTracker, 'stamp'>;
  checkMs?: number;
}): Part & { drain(): Promise<number> } {
  const { db, events, writes } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let seen: number | undefined;

  async function take(): Promise<number> {
    let published = 0;
    for (;;) {
      const rows = await db
        .deleteFrom('event_outbox')
        .where('id', 'in', (eb) => eb.selectFrom('event_outbox').select('id').orderBy('id').limit(BATCH))
        .returning(['id', 'owner_id', 'event'])
        .execute();
      // Ids are time-ordered: published in the order they happened.
      rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const row of rows) {
        events.publish(row.owner_id, JSON.parse(row.event) as AccountEvent);
        published += 1;
      }
      if (rows.length < BATCH) return published;
    }
  }

  function drain(): Promise<number> {
    running ??= take().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    name: 'events.outbox',
    drain,
    start(log) {
      const check = () => {
        if (running) return;
        const stamp = writes.stamp(['event_outbox']);
        if (stamp !== undefined && stamp === seen) return;
        seen = stamp;
        drain().catch((error: unknown) => {
          // Tried again at the next check.
          seen = undefined;
          log.error({ err: error }, 'events: the events stored by another process could not be taken; they stay stored and are tried again');
        });
      };
      check();
      timer = setInterval(check, deps.checkMs ?? OUTBOX_CHECK_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (running) await ignoreFailure(running, 'its failure was logged by the check that started it');
    },
  };
}
