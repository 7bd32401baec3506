import { EventEmitter } from 'node:events';
import { ignoreFailure } from '../lib/ignore-failure.js';
import { sealedLength, type BusSeal } from './bus-seal.js';
import { MAX_NOTIFY_PAYLOAD, type PgListener } from './pg-listener.js';
import type { WriteTracker } from './write-tracker.js';

/**
 * Tells the other API nodes sharing a PostgreSQL schema which tables this node wrote, and
 * counts theirs in this node's write tracker, through PostgreSQL's LISTEN/NOTIFY.
 *
 * - Writes committed here are counted here at once (postgres-pool.ts) and announced on the
 *   schema's channel, off the request path, in one notification per NOTIFY_INTERVAL_MS at most:
 *   a notification is a transaction of its own, with its commit flushed to the WAL, and one per
 *   group commit would double the commits of a node taking many writes.
 * - The node's listening connection (pg-listener.ts) hears the other nodes. A notification from
 *   another node counts as a write to the tables it names, so that node's change is seen as soon
 *   as it arrives.
 * - While that connection is down, the tracker is suspended: no cached answer is served or
 *   kept (changes made elsewhere would be missed). Once it listens again, every answer cached
 *   before the loss is dropped.
 * - A notification can still be lost (the writing node died between its commit and its
 *   notification, or a connection died silently): the tracker's age period bounds how long an
 *   answer can outlive such a change.
 * - Notifications are sealed as the cluster bus's are (bus-seal.ts): one from outside the
 *   cluster would only empty caches, but a flood of them would keep every node from caching,
 *   and the tables a node writes are nobody else's business. Unlike the bus, a sealed notice
 *   from a node the registry does not know yet is counted at once: dropping a cache is always
 *   safe, and a node just started must be heard from its first write.
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
  /** Seals and opens the notifications; its node id is this node's, whose own notifications come back to it and are skipped. */
  seal: BusSeal;
  tracker: WriteTracker;
  listener: PgListener;
}

/**
 * The least time between two notifications of this node. The other nodes hear a change this
 * much later at most (caches there serve the old answer meanwhile, as they do while a
 * notification is on its way); this node's own caches are not concerned.
 */
export const NOTIFY_INTERVAL_MS = 20;
/** The longest a closing node waits for its last notification to go out. */
const CLOSE_NOTIFY_WAIT_MS = 500;

export async function startChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  const { channel, tracker, listener, seal } = options;
  const nodeId = seal.nodeId;
  const events = new EventEmitter();
  let closing = false;
  let pending: Set<string> | 'unknown' | undefined;

  // Nothing is cached until the feed listens.
  tracker.suspend();
  const onDown = () => {
    tracker.suspend();
    events.emit('lost');
  };
  const onUp = () => {
    tracker.resume();
    events.emit('listening');
  };
  listener.events.on('down', onDown);
  listener.events.on('up', onUp);

  await listener.listen(channel, (payload) => {
    const opened = seal.open(channel, payload);
    if (typeof opened === 'string' || opened.from === nodeId) return;
    const rest = opened.body;
    tracker.noteWrites(rest === '*' ? 'unknown' : rest.split(','));
    events.emit('change');
  });
  if (listener.connected) tracker.resume();

  /** A notification in flight, or sent less than NOTIFY_INTERVAL_MS ago: the next waits, and carries whatever gathered meanwhile. */
  let sending = false;
  let lastSent = -Infinity;
  let timer: NodeJS.Timeout | undefined;

  /** The sealed notification; undefined while this node has no root key (nobody could open it). */
  function notification(tables: Set<string> | 'unknown'): string | undefined {
    let list = tables === 'unknown' ? '*' : [...tables].join(',');
    if (sealedLength(list.length) > MAX_NOTIFY_PAYLOAD) list = '*';
    return seal.seal(channel, list);
  }

  function flush(): void {
    if (sending || timer || closing) return;
    const wait = lastSent + NOTIFY_INTERVAL_MS - performance.now();
    if (wait > 0) {
      timer = setTimeout(() => {
        timer = undefined;
        flush();
      }, wait);
      return;
    }
    const tables = pending;
    pending = undefined;
    if (!tables || closing) return;
    // Best effort: a lost notification is bounded by the other nodes' cache age.
    const payload = notification(tables);
    if (payload === undefined) return;
    sending = true;
    lastSent = performance.now();
    void listener.notify(channel, payload).finally(() => {
      sending = false;
      if (pending !== undefined) flush();
    });
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
      return listener.connected;
    },
    async close() {
      closing = true;
      clearTimeout(timer);
      // The writes of the last moments are told before the node goes (a write answered while it
      // drains among them); otherwise the others would serve answers older than them for up to
      // their cache age.
      const tables = pending;
      pending = undefined;
      const payload = tables === undefined ? undefined : notification(tables);
      if (payload !== undefined && listener.connected) {
        // Waited for briefly only: PostgreSQL commits one notifying transaction at a time, so a
        // notification can wait behind another connection's, and closing must not wait with it.
        let giveUp: NodeJS.Timeout | undefined;
        await Promise.race([
          ignoreFailure(listener.notify(channel, payload), 'the node is going: the others, not told, drop these answers when their cache age ends'),
          new Promise<void>((resolve) => (giveUp = setTimeout(resolve, CLOSE_NOTIFY_WAIT_MS))),
        ]);
        clearTimeout(giveUp);
      }
      listener.events.off('down', onDown);
      listener.events.off('up', onUp);
      tracker.suspend();
    },
  };
}
