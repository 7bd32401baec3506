import type { TableName } from './table-names.js';
import type { WriteTracker } from './write-tracker.js';

/**
 * A table an answer can depend on is named as the migrations name it (table-names.ts), so that a
 * misspelt or removed table fails type-checking instead of silently leaving a cache never
 * invalidated (a stamp over a table nothing writes never changes).
 */
export type { TableName };

/**
 * A bounded cache of answers derived from some tables (see write-tracker.ts). An entry is
 * served only while none of those tables has been written since it was computed, and an
 * answer is stored only if no write finished while it was being computed. On PostgreSQL a
 * write made by another node counts once its notification arrives (or the tracker's age
 * period ends), and nothing is cached while that feed is down.
 */
export interface DerivedCache<V> {
  /**
   * The kept answer for `key` while its tables are unchanged, else `compute`'s (kept in turn).
   * `isCurrent`: for answers that also end with time (an entry's validity), whether a kept one
   * still holds; one that does not is dropped and computed again.
   */
  get(key: string, compute: () => Promise<V>, isCurrent?: (value: V) => boolean): Promise<V>;
  /** The answer `get` would serve from the cache now, without computing; undefined when it has none. */
  peek(key: string, isCurrent?: (value: V) => boolean): V | undefined;
}

export interface DerivedCacheOptions<V> {
  tracker: WriteTracker;
  /** Every table the answers are read from, including tables that cascade into them. */
  tables: readonly TableName[];
  maxEntries: number;
  /** The most total weight kept (e.g. bytes), so memory stays bounded whatever the answers' sizes. */
  maxWeight: number;
  weigh(value: V): number;
  /**
   * Keep an answer only when its key was asked for before (the last `admitAfter` keys are
   * remembered). For answers whose keys rarely repeat (free-text searches), caching every first
   * answer only churns the cache: each is kept long enough to age into V8's old generation, then
   * evicted unused, and memory under load grows with it. Repeated keys (an agent asking again)
   * are kept from their second request on.
   */
  admitAfter?: number;
}

export function createDerivedCache<V>(options: DerivedCacheOptions<V>): DerivedCache<V> {
  const { tracker, tables } = options;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { stamp: number; at: number; value: V; weight: number }>();
  const { maxAgeMs } = tracker;
  /** Computations under way, one per key at most: bounded by the requests in flight. */
  const inflight = new Map<string, { stamp: number; value: Promise<V> }>();
  let totalWeight = 0;
  /** Keys seen once, most recent last: the second request of one of them is admitted. */
  const seen = new Set<string>();

  /** Whether an answer for this key may be kept now (always, unless admission is asked for). */
  function admit(key: string): boolean {
    if (options.admitAfter === undefined || seen.delete(key)) return true;
    seen.add(key);
    if (seen.size > options.admitAfter) seen.delete(seen.values().next().value!);
    return false;
  }

  function remove(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    totalWeight -= entry.weight;
  }

  /** The entry for `key` if it is still fresh at `stamp`, moved to the most recently used end. */
  function fresh(key: string, stamp: number, at: number, isCurrent: ((value: V) => boolean) | undefined): { value: V } | undefined {
    const entry = entries.get(key);
    if (!entry || entry.stamp !== stamp || (maxAgeMs !== undefined && at - entry.at >= maxAgeMs)) return undefined;
    if (isCurrent && !isCurrent(entry.value)) {
      remove(key);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, entry);
    return entry;
  }

  return {
    peek(key, isCurrent) {
      const stamp = tracker.stamp(tables);
      if (stamp === undefined) return undefined;
      return fresh(key, stamp, maxAgeMs === undefined ? 0 : Date.now(), isCurrent)?.value;
    },

    async get(key, compute, isCurrent) {
      const stamp = tracker.stamp(tables);
      // Undefined: changes made elsewhere cannot be seen now, so nothing is served or kept.
      if (stamp === undefined) return compute();
      const at = maxAgeMs === undefined ? 0 : Date.now();
      const entry = fresh(key, stamp, at, isCurrent);
      if (entry) return entry.value;
      // Requests that miss together share one computation begun at the same stamp: no write
      // was counted between its start and theirs, so its answer is as fresh as their own would be.
      // (When a popular answer expires, fifty requests would otherwise run its queries fifty times.)
      const running = inflight.get(key);
      if (running && running.stamp === stamp) return running.value;
      const value = compute().then((computed) => {
        const weight = options.weigh(computed);
        if (tracker.stamp(tables) === stamp && weight <= options.maxWeight && admit(key)) {
          remove(key);
          entries.set(key, { stamp, at, value: computed, weight });
          totalWeight += weight;
          while (entries.size > options.maxEntries || totalWeight > options.maxWeight) remove(entries.keys().next().value!);
        }
        return computed;
      });
      inflight.set(key, { stamp, value });
      try {
        return await value;
      } finally {
        if (inflight.get(key)?.value === value) inflight.delete(key);
      }
    },
  };
}

/** Where no write tracker is given: always computes. */
export function uncached<V>(): DerivedCache<V> {
  return { get: (_key, compute) => compute(), peek: () => undefined };
}
