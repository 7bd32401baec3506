/**
 * A map whose entries live `ttlMs` from when they were last set, holding at most `maxKeys`.
 * Keys come from callers (client addresses, emails), so the table must stay bounded: entries
 * are kept in the order they were last set, which (every entry living the same time) is the
 * order they expire, so the expired ones and the least recently set one are always at the
 * front and are dropped without a scan.
 */
export interface ExpiringMap<V> {
  /** The live value of `key`; first drops every entry expired at `now`. */
  get(key: string, now: number): V | undefined;
  /** Sets `key` (moving it to the back), living `ttlMs` from `now`; past `maxKeys` the least recently set entry is dropped. */
  set(key: string, value: V, now: number): void;
  delete(key: string): boolean;
  readonly size: number;
}

export function createExpiringMap<V>(options: { ttlMs: number; maxKeys: number }): ExpiringMap<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key, now) {
      for (const [k, entry] of entries) {
        if (entry.expiresAt > now) break;
        entries.delete(k);
      }
      return entries.get(key)?.value;
    },
    set(key, value, now) {
      entries.delete(key);
      entries.set(key, { value, expiresAt: now + options.ttlMs });
      if (entries.size > options.maxKeys) entries.delete(entries.keys().next().value!);
    },
    delete(key) {
      return entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
