/**
 * Recent search answers per owner. Ranking a common word over a large catalogue scores every
 * match (bm25 / ts_rank over hundreds of rows), which costs far more than serving the answer;
 * agents repeat the same searches and suggestion prefixes within a session.
 *
 * Correctness rests on every write to an owner's skills going through this process and calling
 * `invalidate` once it is done: true with embedded SQLite (one process per data directory), not
 * with PostgreSQL, where several API nodes share the table, so it is only enabled on SQLite.
 * Each owner has a generation number; a write bumps it, which retires all of the owner's
 * entries at once. A reader notes the generation before it queries and stores its answer only
 * if no write finished meanwhile, so an answer computed from data older than a write is never
 * served after that write.
 */
export interface SearchCache<V> {
  /** The owner's current generation: read it before running the query whose answer you store. */
  generation(ownerId: string): number;
  get(ownerId: string, key: string): V | undefined;
  /** `weight` (e.g. the number of rows) counts against the cache's budget. */
  set(ownerId: string, key: string, generation: number, value: V, weight: number): void;
  /** After any write to the owner's skills. */
  invalidate(ownerId: string): void;
}

export interface SearchCacheOptions {
  maxEntries: number;
  /** The most total weight kept, so that memory stays bounded whatever the answers' sizes. */
  maxWeight: number;
}

export function createSearchCache<V>(options: SearchCacheOptions): SearchCache<V> {
  const generations = new Map<string, number>();
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { generation: number; value: V; weight: number }>();
  let totalWeight = 0;
  const entryKey = (ownerId: string, key: string) => `${ownerId}\u0000${key}`;
  const current = (ownerId: string) => generations.get(ownerId) ?? 0;

  function remove(k: string): void {
    const entry = entries.get(k);
    if (!entry) return;
    entries.delete(k);
    totalWeight -= entry.weight;
  }

  return {
    generation: current,

    get(ownerId, key) {
      const k = entryKey(ownerId, key);
      const entry = entries.get(k);
      if (!entry) return undefined;
      if (entry.generation !== current(ownerId)) {
        remove(k);
        return undefined;
      }
      entries.delete(k);
      entries.set(k, entry);
      return entry.value;
    },

    set(ownerId, key, generation, value, weight) {
      if (generation !== current(ownerId) || weight > options.maxWeight) return;
      const k = entryKey(ownerId, key);
      remove(k);
      entries.set(k, { generation, value, weight });
      totalWeight += weight;
      while (entries.size > options.maxEntries || totalWeight > options.maxWeight) remove(entries.keys().next().value!);
    },

    invalidate(ownerId) {
      generations.set(ownerId, current(ownerId) + 1);
    },
  };
}
