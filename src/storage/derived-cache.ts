import type { WriteTracker } from './write-tracker.js';

/**
 * A bounded cache of answers derived from some tables (see write-tracker.ts). An entry is
 * served only while none of those tables has been written since it was computed, and an
 * answer is stored only if no write finished while it was being computed. On PostgreSQL a
 * write made by another node counts once its notification arrives (or the tracker's age
 * period ends), and nothing is cached while that feed is down.
 */
export interface DerivedCache<V> {
  get(key: string, compute: () => Promise<V>): Promise<V>;
}

export interface DerivedCacheOptions<V> {
  tracker: WriteTracker;
  /** Every table the answers are read from, including tables that cascade into them. */
  tables: readonly string[];
  maxEntries: number;
  /** The most total weight kept (e.g. bytes), so memory stays bounded whatever the answers' sizes. */
  maxWeight: number;
  weigh(value: V): number;
}

export function createDerivedCache<V>(options: DerivedCacheOptions<V>): DerivedCache<V> {
  const { tracker, tables } = options;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { stamp: number; at: number; value: V; weight: number }>();
  const { maxAgeMs } = tracker;
  let totalWeight = 0;

  function remove(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    totalWeight -= entry.weight;
  }

  return {
    async get(key, compute) {
      const stamp = tracker.stamp(tables);
      // Undefined: changes made elsewhere cannot be seen now, so nothing is served or kept.
      if (stamp === undefined) return compute();
      const at = maxAgeMs === undefined ? 0 : Date.now();
      const entry = entries.get(key);
      if (entry && entry.stamp === stamp && (maxAgeMs === undefined || at - entry.at < maxAgeMs)) {
        entries.delete(key);
        entries.set(key, entry);
        return entry.value;
      }
      const value = await compute();
      const weight = options.weigh(value);
      if (tracker.stamp(tables) === stamp && weight <= options.maxWeight) {
        remove(key);
        entries.set(key, { stamp, at, value, weight });
        totalWeight += weight;
        while (entries.size > options.maxEntries || totalWeight > options.maxWeight) remove(entries.keys().next().value!);
      }
      return value;
    },
  };
}

/** Where no write tracker is given: always computes. */
export function uncached<V>(): DerivedCache<V> {
  return { get: (_key, compute) => compute() };
}
