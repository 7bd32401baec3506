import { EventEmitter } from 'node:events';
import { sql, type Kysely } from 'kysely';
import { ignoreFailure } from '../lib/ignore-failure.js';
import type { Database } from './tables.js';

/**
 * Which API nodes sharing the database are alive. Every node writes its own heartbeat
 * (`cluster_nodes.heartbeat_at`) every `heartbeatMs`; a node silent for three intervals is dead,
 * whatever the reason (killed, frozen, cut off from the database). Whatever lives on one node
 * only (a remote PC's link) counts only while its node is alive, so a dead node's share
 * disappears within three intervals without anyone having to clean up after it.
 *
 * Kept apart from any one feature, as the bus is: device links use it today, and any other
 * per-node state (draining, leases) can use the same registry. Another carrier could keep it
 * (Redis keys with a time to live) behind the same interface.
 */
export interface NodeRegistry {
  readonly nodeId: string;
  readonly heartbeatMs: number;
  /** A node whose last heartbeat is older than this is dead. */
  readonly deadAfterMs: number;
  /** Whether `nodeId` was alive at the last look (this node always is). */
  alive(nodeId: string): boolean;
  /**
   * Whether `nodeId` is alive now, asking the registry itself when it was not at the last look
   * (a node started since). Answers false until this node's registry has started.
   */
  confirm(nodeId: string): Promise<boolean>;
  /**
   * 'down' (nodeId) when a node that was alive stops heartbeating or leaves; 'rejoined' when
   * this node had been taken for dead (its heartbeat could not be written for too long) and is
   * back, so that whatever it recorded as its own can be recorded again.
   */
  readonly events: EventEmitter;
  /** Stops heartbeating and removes this node's row, so the others count it out at their next look. */
  close(): Promise<void>;
}

/** Rows of nodes dead this long are removed (the row of a killed node has no one else to remove it). */
const FORGET_AFTER_MS = 60 * 60_000;
/** A node found not alive is not asked about again for this long (each asking is a query). */
const NOT_ALIVE_KEPT_MS = 1_000;

/** One node alone (SQLite): nobody else to track. */
export function createLocalRegistry(nodeId: string, heartbeatMs: number): NodeRegistry {
  return {
    nodeId,
    heartbeatMs,
    deadAfterMs: heartbeatMs * 3,
    alive: (id) => id === nodeId,
    confirm: async (id) => id === nodeId,
    events: new EventEmitter(),
    async close() {},
  };
}

/**
 * The registry of a node on PostgreSQL. It is made before the node's schema is up to date (the
 * services are built meanwhile) and `start` is called once the migrations are done: its table is
 * one of them. Until then only this node counts as alive.
 */
export function createPgRegistry(options: { db: Kysely<Database>; nodeId: string; heartbeatMs: number }): NodeRegistry & { start(): Promise<void> } {
  const { db, nodeId, heartbeatMs } = options;
  const deadAfterMs = heartbeatMs * 3;
  const events = new EventEmitter();
  let live = new Set<string>([nodeId]);
  let closed = false;
  let beating: Promise<void> = Promise.resolve();

  async function register(): Promise<void> {
    await sql`INSERT INTO cluster_nodes (node_id, started_at, heartbeat_at) VALUES (${nodeId}, clock_timestamp(), clock_timestamp())
      ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = clock_timestamp()`.execute(db);
  }

  /** When this node last wrote its heartbeat: longer ago than the bound, the others took it for dead. */
  let lastBeat = Date.now();

  async function beat(): Promise<void> {
    const updated = await sql`UPDATE cluster_nodes SET heartbeat_at = clock_timestamp() WHERE node_id = ${nodeId}`.execute(db);
    // Its row was removed as long dead (the database was out of reach for an hour).
    if (!updated.numAffectedRows) await register();
    const wasDead = !updated.numAffectedRows || Date.now() - lastBeat > deadAfterMs;
    lastBeat = Date.now();
    // Its share of per-node state may have been taken over or removed meanwhile.
    if (wasDead) events.emit('rejoined');
    const rows = await sql<{ node_id: string }>`SELECT node_id FROM cluster_nodes
      WHERE heartbeat_at > clock_timestamp() - ${deadAfterMs} * interval '1 millisecond'`.execute(db);
    const now = new Set(rows.rows.map((r) => r.node_id));
    now.add(nodeId);
    const previous = live;
    live = now;
    for (const id of previous) if (!now.has(id)) events.emit('down', id);
    await sql`DELETE FROM cluster_nodes WHERE heartbeat_at < clock_timestamp() - ${FORGET_AFTER_MS} * interval '1 millisecond'`.execute(db);
  }

  let timer: NodeJS.Timeout | undefined;
  let starting: Promise<void> | undefined;
  let started = false;
  const notAlive = new Map<string, number>();

  async function confirm(id: string): Promise<boolean> {
    if (live.has(id)) return true;
    if (!started) return false;
    const until = notAlive.get(id);
    if (until !== undefined && until > Date.now()) return false;
    const { rows } = await sql<{ node_id: string }>`SELECT node_id FROM cluster_nodes
      WHERE node_id = ${id} AND heartbeat_at > clock_timestamp() - ${deadAfterMs} * interval '1 millisecond'`.execute(db);
    if (rows.length > 0) {
      // Until the next look, which finds it too.
      live.add(id);
      return true;
    }
    if (notAlive.size > 1_000) notAlive.clear();
    notAlive.set(id, Date.now() + NOT_ALIVE_KEPT_MS);
    return false;
  }

  return {
    nodeId,
    heartbeatMs,
    deadAfterMs,
    alive: (id) => live.has(id),
    confirm,
    events,
    start() {
      starting ??= (async () => {
        await register();
        lastBeat = Date.now();
        await beat();
        started = true;
      })();
      return starting.then(() => {
        if (closed || timer) return;
        timer = setInterval(() => {
          // One beat at a time: a slow database must not pile them up.
          beating = beating.then(() => (closed ? undefined : ignoreFailure(beat(), 'a missed beat is made up by the next one')));
        }, heartbeatMs);
        timer.unref();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      if (!starting) return;
      // A registration under way is finished first, so that the row removed below is not written after it.
      await ignoreFailure(starting, 'only its end is awaited here; a failed registration was reported to its caller');
      await beating;
      await ignoreFailure(sql`DELETE FROM cluster_nodes WHERE node_id = ${nodeId}`.execute(db), 'a row left behind stops beating, and the other nodes take this node for dead');
    },
  };
}
