import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { WriteTracker } from './write-tracker.js';

/**
 * Tells the other API nodes sharing a PostgreSQL schema which tables this node wrote, and
 * counts theirs in this node's write tracker, through PostgreSQL's LISTEN/NOTIFY.
 *
 * - Writes committed here are counted here at once (postgres-pool.ts) and announced on the
 *   schema's channel, those of one event-loop turn in one notification, off the request path.
 * - One connection of its own listens. A notification from another node counts as a write to
 *   the tables it names, so that node's change is seen as soon as it arrives.
 * - While that connection is down, the tracker is suspended: no cached answer is served or
 *   kept (changes made elsewhere would be missed). It reconnects, and every answer cached
 *   before the loss is dropped when it listens again.
 * - A notification can still be lost (the writing node died between its commit and its
 *   notification, or a connection died silently): the tracker's age period bounds how long an
 *   answer can outlive such a change.
 */
export interface ChangeFeed {
  /** Announces tables this node has written (and committed) to the other nodes. */
  publish(tables: ReadonlySet<string> | 'unknown'): void;
  /**
   * 'listening' when the feed is up (again), 'lost' when its connection dropped, 'change' after a
   * notification from another node has been counted.
   */
  events: EventEmitter;
  readonly listening: boolean;
  /** The notification channel: one per schema, so nodes sharing a schema share it. */
  readonly channel: string;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  channel: string;
  tracker: WriteTracker;
  /** A new client for the listening connection (not from the pool: it stays open). */
  newClient(): pg.Client;
  /** Sends one notification through the pool, while the listening connection is down. */
  notify(channel: string, payload: string): Promise<unknown>;
  /** First wait before reconnecting; doubled up to 30 s. */
  retryMs?: number;
}

const MAX_RETRY_MS = 30_000;
/** PostgreSQL refuses a notification payload of 8,000 bytes or more. */
const MAX_PAYLOAD = 7_000;

export async function startChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  const { channel, tracker } = options;
  const node = randomBytes(6).toString('hex');
  const events = new EventEmitter();
  let current: pg.Client | undefined;
  let closing = false;
  let retryMs = options.retryMs ?? 500;
  let retryTimer: NodeJS.Timeout | undefined;
  let pending: Set<string> | 'unknown' | undefined;

  // Nothing is cached until the feed listens.
  tracker.suspend();

  function onNotification(message: pg.Notification): void {
    if (message.channel !== channel || !message.payload) return;
    const space = message.payload.indexOf(' ');
    if (message.payload.slice(0, space) === node) return;
    const rest = message.payload.slice(space + 1);
    tracker.noteWrites(rest === '*' ? 'unknown' : rest.split(','));
    events.emit('change');
  }

  function lost(client: pg.Client): void {
    if (client !== current) return;
    current = undefined;
    tracker.suspend();
    client.end().catch(() => {});
    events.emit('lost');
    scheduleRetry();
  }

  function scheduleRetry(): void {
    if (closing || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      listen().catch(() => scheduleRetry());
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }

  async function listen(): Promise<void> {
    const client = options.newClient();
    // A client that fails before it listens is simply dropped; one that listened is `current`.
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', onNotification);
    try {
      await client.connect();
      await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    if (closing) {
      await client.end();
      return;
    }
    current = client;
    retryMs = options.retryMs ?? 500;
    tracker.resume();
    events.emit('listening');
  }

  /** A notification in flight: the next waits for it (a pg client runs one query at a time). */
  let sending = false;

  function flush(): void {
    // The send in flight flushes again when it is done, with whatever gathered meanwhile.
    if (sending) return;
    const tables = pending;
    pending = undefined;
    if (!tables || closing) return;
    let list = tables === 'unknown' ? '*' : [...tables].join(',');
    if (list.length > MAX_PAYLOAD) list = '*';
    // Sent on the listening connection, which is otherwise idle, so that notifications never
    // wait for a pool connection behind requests. Best effort: a lost notification is bounded
    // by the other nodes' cache age.
    const payload = `${node} ${list}`;
    sending = true;
    (current ? current.query('SELECT pg_notify($1, $2)', [channel, payload]) : options.notify(channel, payload))
      .catch(() => {})
      .finally(() => {
        sending = false;
        if (pending !== undefined) flush();
      });
  }

  try {
    await listen();
  } catch {
    // The server starts without the feed (caches stay off) and keeps trying.
    scheduleRetry();
  }

  return {
    publish(tables) {
      if (pending === undefined) setImmediate(flush);
      if (tables === 'unknown' || pending === 'unknown') pending = 'unknown';
      else {
        const set = pending ?? (pending = new Set());
        for (const table of tables) set.add(table);
      }
    },
    events,
    channel,
    get listening() {
      return current !== undefined;
    },
    async close() {
      closing = true;
      if (retryTimer) clearTimeout(retryTimer);
      const client = current;
      current = undefined;
      tracker.suspend();
      await client?.end().catch(() => {});
    },
  };
}
