import { sql, type Kysely } from 'kysely';
import { ignoreFailure } from '../lib/ignore-failure.js';
import { COUNTERS_FLUSH_MS, COUNTERS_MAX_KEYS, type CounterWindow, type SharedCounters } from '../lib/shared-counters.js';
import type { Database } from './tables.js';

// The interface lives in src/lib/ so that the HTTP layer's limiters can take it; the engines'
// implementations live here.
export { createLocalCounters, type CounterWindow, type SharedCounters } from '../lib/shared-counters.js';

/** Ended windows deleted per sweep, and how often the sweep runs: bounded work each time. */
const SWEEP_BATCH = 1_000;
const SWEEP_EVERY_MS = 30_000;
/** Keys per flush statement: one statement stays small whatever the number of clients. */
const FLUSH_BATCH = 5_000;

interface View {
  /** Every node's count at the last flush that carried this key. */
  total: number;
  /** This node's hits not yet sent. */
  pending: number;
  /** This node's hits in the flush under way. */
  sending: number;
  windowMs: number;
  resetAt: number;
  /** When this node last counted a hit on it. */
  lastHit: number;
}

/**
 * Views hit this recently are refreshed by every flush even when this node has nothing to add:
 * a key whose requests pause for a moment and resume is judged on the cluster's count, not on
 * what this node last sent. Older views are refreshed by the flush that carries their next hit.
 */
const REFRESH_RECENT_MS = 1_000;

/**
 * The counters of the nodes sharing one PostgreSQL schema, in the UNLOGGED table
 * `shared_counters` (migration 0027).
 */
export function createPgCounters(
  db: Kysely<Database>,
  options: {
    flushMs?: number;
    maxKeys?: number;
    now?: () => number;
    onError?: (error: unknown) => void;
    /** Flushes (and sweeps) start once this settles: the table exists only after the migrations. */
    after?: Promise<unknown>;
  } = {},
): SharedCounters {
  const flushMs = options.flushMs ?? COUNTERS_FLUSH_MS;
  const maxKeys = options.maxKeys ?? COUNTERS_MAX_KEYS;
  const clock = options.now ?? (() => Date.now());
  const views = new Map<string, View>();
  let flushing: Promise<void> | undefined;
  let closed = false;
  let lastSweep = 0;

  async function upsert(keys: string[], ends: number[], deltas: number[], sliding: boolean, now: number) {
    // Keys in one order on every node: two batches touching the same keys cannot deadlock.
    const result = await sql<{ key: string; count: string | number; window_end: string | number }>`
      insert into shared_counters as c (key, window_end, count)
      select * from unnest(${keys}::text[], ${ends}::bigint[], ${deltas}::bigint[])
      on conflict (key) do update set
        count = case when c.window_end <= ${now}::bigint then excluded.count else c.count + excluded.count end,
        window_end = case when c.window_end <= ${now}::bigint or ${sliding}::boolean then excluded.window_end else c.window_end end
      returning key, count, window_end`.execute(db);
    return result.rows.map((r) => ({ key: r.key, count: Number(r.count), resetAt: Number(r.window_end) }));
  }

  async function sweep(now: number): Promise<void> {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    // Every node sweeps; deleting an ended window twice is harmless, and a batch bounds the work.
    await sql`delete from shared_counters where key in (
      select key from shared_counters where window_end <= ${now}::bigint limit ${SWEEP_BATCH})`.execute(db);
  }

  async function flushOnce(): Promise<void> {
    const now = clock();
    const batch: [string, View][] = [];
    const recent: string[] = [];
    for (const [key, view] of views) {
      if (view.resetAt <= now && view.pending === 0) {
        views.delete(key);
        continue;
      }
      if (view.pending !== 0) batch.push([key, view]);
      else if (now - view.lastHit < REFRESH_RECENT_MS) recent.push(key);
    }
    for (let i = 0; i < recent.length; i += FLUSH_BATCH) {
      const part = recent.slice(i, i + FLUSH_BATCH);
      const result = await sql<{ key: string; count: string | number; window_end: string | number }>`
        select key, count, window_end from shared_counters where key = any(${part}::text[]) and window_end > ${now}::bigint`.execute(db);
      for (const r of result.rows) {
        const view = views.get(r.key);
        if (view && view.pending === 0 && view.sending === 0) {
          view.total = Number(r.count);
          view.resetAt = Number(r.window_end);
        }
      }
    }
    batch.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (let i = 0; i < batch.length; i += FLUSH_BATCH) {
      const part = batch.slice(i, i + FLUSH_BATCH);
      for (const [, view] of part) {
        view.sending = view.pending;
        view.pending = 0;
      }
      try {
        const rows = await upsert(
          part.map(([key]) => key),
          part.map(([, view]) => now + view.windowMs),
          part.map(([, view]) => view.sending),
          false,
          now,
        );
        const byKey = new Map(rows.map((r) => [r.key, r]));
        for (const [key, view] of part) {
          const row = byKey.get(key);
          view.sending = 0;
          if (row) {
            view.total = row.count;
            view.resetAt = row.resetAt;
          }
        }
      } catch (error) {
        // Not sent: counted again at the next flush (the hits are not lost while the node lives).
        for (const [, view] of part) {
          view.pending += view.sending;
          view.sending = 0;
        }
        throw error;
      }
    }
    await sweep(now);
  }

  function start(): Promise<void> {
    flushing ??= flushOnce().finally(() => {
      flushing = undefined;
    });
    return flushing;
  }
  /** A flush that carries every hit counted before the call: one under way may have started before them. */
  async function flush(): Promise<void> {
    if (flushing) await ignoreFailure(flushing, 'only its end is awaited: its failure was reported, and its hits are carried by this flush');
    return start();
  }

  let timer: NodeJS.Timeout | undefined;
  const startTimer = () => {
    if (closed) return;
    timer = setInterval(() => {
      if (flushing) return;
      start().catch((error: unknown) => options.onError?.(error));
    }, flushMs);
    timer.unref();
  };
  if (options.after) options.after.then(startTimer, () => {});
  else startTimer();

  return {
    get size() {
      return views.size;
    },
    async add(key, by, windowMs, opts) {
      const now = clock();
      const [row] = await upsert([key], [now + windowMs], [by], opts?.sliding === true, now);
      return { count: row!.count, resetAt: row!.resetAt };
    },
    async read(keys) {
      const out = new Map<string, CounterWindow>();
      if (keys.length === 0) return out;
      const now = clock();
      const result = await sql<{ key: string; count: string | number; window_end: string | number }>`
        select key, count, window_end from shared_counters where key = any(${[...keys]}::text[]) and window_end > ${now}::bigint`.execute(db);
      for (const r of result.rows) out.set(r.key, { count: Number(r.count), resetAt: Number(r.window_end) });
      return out;
    },
    async delete(key) {
      await sql`delete from shared_counters where key = ${key}`.execute(db);
    },
    hit(key, by, windowMs, now = clock()) {
      let view = views.get(key);
      if (view && view.resetAt <= now) {
        // The window ended: the next flush starts a new one in the store too.
        view.total = 0;
        view.resetAt = now + windowMs;
      }
      if (!view) {
        view = { total: 0, pending: 0, sending: 0, windowMs, resetAt: now + windowMs, lastHit: now };
        views.set(key, view);
        if (views.size > maxKeys) {
          // The least recently opened view goes; its unsent hits go with it (bounded memory first).
          views.delete(views.keys().next().value!);
        }
      }
      view.pending += by;
      view.lastHit = now;
      return { count: view.total + view.sending + view.pending, resetAt: view.resetAt };
    },
    flush,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      if (flushing) await ignoreFailure(flushing, 'only its end is awaited: its failure was reported, and its hits are carried by the last flush');
      await flush().catch((error: unknown) => options.onError?.(error));
    },
  };
}
