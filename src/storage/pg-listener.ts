import { EventEmitter } from 'node:events';
import type pg from 'pg';

/**
 * One long-lived PostgreSQL connection per node that LISTENs on every channel the node needs
 * (the change feed's, the cluster bus's) and sends the node's notifications.
 *
 * - It reconnects by itself (first after `retryMs`, doubling up to 30 s) and listens again on
 *   every channel; `events` says 'up' when it listens (again) and 'down' when it lost the
 *   connection, so that what depends on hearing other nodes can stop trusting its view.
 * - Notifications are sent on this connection, which is otherwise idle, so that they never wait
 *   behind requests for a pool connection; while it is down they go through `notify` (the pool).
 *   A pg client runs one query at a time, in order, so one node's notifications arrive in the
 *   order they were sent while the connection holds.
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
  /** Sends one notification through the pool, while the listening connection is down. */
  notify(channel: string, payload: string): Promise<unknown>;
  /** First wait before reconnecting; doubled up to 30 s. */
  retryMs?: number;
}

const MAX_RETRY_MS = 30_000;
/** PostgreSQL refuses a notification payload of 8,000 bytes or more. */
export const MAX_NOTIFY_PAYLOAD = 7_900;

/** Channel names are quoted identifiers: only these characters, so quoting cannot be escaped. */
const CHANNEL_NAME = /^[a-z0-9_]{1,63}$/;

export async function startPgListener(options: PgListenerOptions): Promise<PgListener> {
  const events = new EventEmitter();
  const handlers = new Map<string, (payload: string) => void>();
  let current: pg.Client | undefined;
  let closing = false;
  let retryMs = options.retryMs ?? 500;
  let retryTimer: NodeJS.Timeout | undefined;
  /** The notification being sent: the next one waits for it. */
  let queue: Promise<void> = Promise.resolve();

  function onNotification(message: pg.Notification): void {
    if (message.payload === undefined) return;
    handlers.get(message.channel)?.(message.payload);
  }

  function lost(client: pg.Client): void {
    if (client !== current) return;
    current = undefined;
    client.end().catch(() => {});
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
      client.end().catch(() => {});
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
      queue = listened.catch(() => {});
      await listened;
    },
    notify(channel, payload) {
      if (closing) return Promise.resolve();
      // One after the other (pg deprecates overlapping queries on one client), which keeps their order.
      const sent = queue.then(async () => {
        try {
          await (current ? current.query('SELECT pg_notify($1, $2)', [channel, payload]) : options.notify(channel, payload));
        } catch {
          // Best effort, as documented above.
        }
      });
      queue = sent;
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
      await client?.end().catch(() => {});
    },
  };
}
