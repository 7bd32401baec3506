import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { ignoreFailure } from '../lib/ignore-failure.js';

/**
 * One long-lived PostgreSQL connection per node that LISTENs on every channel the node needs
 * (the change feed's, the cluster bus's) and sends the node's notifications.
 *
 * - It reconnects by itself (first after `retryMs`, doubling up to 30 s) and listens again on
 *   every channel; `events` says 'up' when it listens (again) and 'down' when it lost the
 *   connection, so that what depends on hearing other nodes can stop trusting its view.
 * - Notifications are sent on this connection, which is otherwise idle, so that they never wait
 *   behind requests for a pool connection; while it is down they go through `query` (the pool).
 *   They go one batch at a time: those asked for while a batch is on its way (or in the same
 *   turn of the event loop) go together as the next, in one statement. A notification is a
 *   transaction of its own, whose commit is flushed to the WAL like a write's: one per write
 *   (a skill saved tells the MCP sessions of every node) doubled the commits of a node taking
 *   many writes. One node's notifications still arrive in the order they were sent while the
 *   connection holds; PostgreSQL delivers two identical ones of one batch (same channel, same
 *   payload) once, which the messages sent here allow (a repeated one says nothing new).
 * - Delivery is best effort, as NOTIFY is: a notification sent while no connection works, or by
 *   a node that dies, is lost. Whoever relies on one bounds the loss (a cache's age, a request's
 *   timeout).
 */
export interface PgListener {
  /** Starts listening on `channel` (now, and after every reconnection); `handler` gets each payload. */
  listen(channel: string, handler: (payload: string) => void): Promise<void>;
  /** Sends one notification (best effort; see above). */
  notify(channel: string, payload: string): Promise<void>;
  readonly connected: boolean;
  /** 'up' once listening (again), 'down' when the connection was lost. */
  readonly events: EventEmitter;
  close(): Promise<void>;
}

export interface PgListenerOptions {
  /** A new client for the listening connection (not from the pool: it stays open). */
  newClient(): pg.Client;
  /** Runs a statement through the pool: notifications are sent so while the listening connection is down. */
  query(text: string, values: unknown[]): Promise<unknown>;
  /** First wait before reconnecting; doubled up to 30 s. */
  retryMs?: number;
}

const MAX_RETRY_MS = 30_000;
/** PostgreSQL refuses a notification payload of 8,000 bytes or more. */
export const MAX_NOTIFY_PAYLOAD = 7_900;

/** The most notifications one statement sends, and about the most payload characters. */
const MAX_BATCH_NOTIFICATIONS = 256;
const MAX_BATCH_CHARACTERS = 256 * 1024;
const NOTIFY_ONE = 'SELECT pg_notify($1, $2)';
/**
 * Several notifications in one statement, so in one transaction, sent in their order: PostgreSQL
 * evaluates a volatile function of the select list after the ORDER BY sort, row by row.
 */
const NOTIFY_MANY = 'SELECT pg_notify(m.channel, m.payload) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS m(channel, payload, n) ORDER BY m.n';

/** Channel names are quoted identifiers: only these characters, so quoting cannot be escaped. */
const CHANNEL_NAME = /^[a-z0-9_]{1,63}$/;

export async function startPgListener(options: PgListenerOptions): Promise<PgListener> {
  const events = new EventEmitter();
  const handlers = new Map<string, (payload: string) => void>();
  let current: pg.Client | undefined;
  let closing = false;
  let retryMs = options.retryMs ?? 500;
  let retryTimer: NodeJS.Timeout | undefined;
  /** The batch of notifications being sent: the next one waits for it. */
  let queue: Promise<void> = Promise.resolve();
  /** Notifications asked for since the last batch left, to go out together as the next. */
  let waiting: Array<{ channel: string; payload: string; sent: () => void }> = [];

  function onNotification(message: pg.Notification): void {
    if (message.payload === undefined) return;
    handlers.get(message.channel)?.(message.payload);
  }

  /** Sends the waiting notifications, in the order they were asked for, in one statement. */
  async function sendWaiting(): Promise<void> {
    // A bounded batch: one statement's parameters stay small whatever piled up meanwhile.
    let take = 0;
    for (let bytes = 0; take < waiting.length && take < MAX_BATCH_NOTIFICATIONS; take++) {
      bytes += waiting[take]!.payload.length;
      if (bytes > MAX_BATCH_CHARACTERS && take > 0) break;
    }
    const batch = waiting.slice(0, take);
    waiting = waiting.slice(take);
    // The rest goes next, as a batch of its own (notify puts only a batch's first one in line).
    if (waiting.length > 0) queue = queue.then(sendWaiting);
    try {
      if (batch.length === 1) {
        const { channel, payload } = batch[0]!;
        await (current ? current.query(NOTIFY_ONE, [channel, payload]) : options.query(NOTIFY_ONE, [channel, payload]));
      } else {
        const values = [batch.map((n) => n.channel), batch.map((n) => n.payload)];
        await (current ? current.query(NOTIFY_MANY, values) : options.query(NOTIFY_MANY, values));
      }
    } catch {
      // Best effort, as documented above.
    } finally {
      for (const notification of batch) notification.sent();
    }
  }

  function lost(client: pg.Client): void {
    if (client !== current) return;
    current = undefined;
    void ignoreFailure(client.end(), 'a connection being dropped has nothing left to lose');
    events.emit('down');
    scheduleRetry();
  }

  function scheduleRetry(): void {
    if (closing || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().catch(() => scheduleRetry());
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }

  async function connect(): Promise<void> {
    const client = options.newClient();
    // A client that fails before it listens is simply dropped; one that listened is `current`.
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', onNotification);
    try {
      await client.connect();
      for (const channel of handlers.keys()) await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      void ignoreFailure(client.end(), 'a connection being dropped has nothing left to lose');
      throw error;
    }
    if (closing) {
      await client.end();
      return;
    }
    current = client;
    retryMs = options.retryMs ?? 500;
    events.emit('up');
  }

  try {
    await connect();
  } catch {
    // The server starts without it (what depends on it stays cautious) and keeps trying.
    scheduleRetry();
  }

  return {
    async listen(channel, handler) {
      if (!CHANNEL_NAME.test(channel)) throw new Error(`Invalid notification channel name: ${channel}`);
      handlers.set(channel, handler);
      const client = current;
      if (!client) return; // Listened to on connecting.
      const listened = queue.then(() => client.query(`LISTEN "${channel}"`).then(() => {}));
      queue = ignoreFailure(listened, 'the caller sees the failure; the LISTENs queued behind it run all the same');
      await listened;
    },
    notify(channel, payload) {
      if (closing) return Promise.resolve();
      const sent = new Promise<void>((resolve) => waiting.push({ channel, payload, sent: resolve }));
      // The first of a batch puts the batch in line: batches go one after the other (pg deprecates
      // overlapping queries on one client), which keeps their order.
      if (waiting.length === 1) queue = queue.then(sendWaiting);
      return sent;
    },
    get connected() {
      return current !== undefined;
    },
    events,
    async close() {
      closing = true;
      if (retryTimer) clearTimeout(retryTimer);
      const client = current;
      current = undefined;
      if (client) await ignoreFailure(client.end(), 'a connection being dropped has nothing left to lose');
    },
  };
}
