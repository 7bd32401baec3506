/**
 * Counters shared by every node of one database: rate limits and quotas count a client's
 * requests wherever they land. Each cross-node limit talks to this interface only, so another
 * engine (Redis) could serve it later.
 *
 * A counter is a key with a count and the end of its window. Adding to a key whose window has
 * ended starts a new window (`windowMs` from now) at the amount added; a `sliding` add also
 * moves the end to `windowMs` from now (a counter forgotten once left alone that long).
 *
 * Two ways of counting:
 * - `add` is exact: one atomic step on the shared store, so the (max+1)th hit is refused
 *   whichever node it reaches. For rare, security-relevant limits (sign-ups, passwords,
 *   handshakes, OAuth, downloads), where a round trip to the database is acceptable.
 * - `hit` is approximate, for hot paths (every authenticated request): synchronous against this
 *   node's view; what it added is sent in one batch every `flushMs`, and the totals that batch
 *   returns (every node's hits) become the view. A node therefore sees the others' hits at most
 *   one flush (plus its round trip) late: past a limit, the cluster accepts at most what the
 *   other nodes accept within one flush interval.
 *
 * With SQLite there is one process per data directory and both ways are the same counter in
 * its memory (`createLocalCounters`).
 */
export interface SharedCounters {
  /** Exact: adds `by` (may be negative) to `key` and answers its total and window end, across nodes. */
  add(key: string, by: number, windowMs: number, options?: { sliding?: boolean }): Promise<CounterWindow>;
  /** Exact: the live windows of these keys (missing when none is open). */
  read(keys: readonly string[]): Promise<Map<string, CounterWindow>>;
  /** Exact: forgets `key`. */
  delete(key: string): Promise<void>;
  /**
   * Approximate: adds `by` to this node's view of `key` and answers the estimated total (what
   * every node had counted at the last flush, plus this node's hits since). No I/O.
   */
  hit(key: string, by: number, windowMs: number, now?: number): CounterWindow;
  /** Sends what `hit` counted now rather than at the next flush, and refreshes the view. */
  flush(): Promise<void>;
  /** How many counters this node keeps in memory (bounded). */
  readonly size: number;
  /** Sends the last hits and stops the timers. */
  close(): Promise<void>;
}

export interface CounterWindow {
  count: number;
  /** When the window ends (milliseconds since the epoch). */
  resetAt: number;
}

/** The most counters a node keeps in memory: about 10 MB of keys and counts. */
export const COUNTERS_MAX_KEYS = 100_000;
/** How often approximate hits are sent to the shared store. */
export const COUNTERS_FLUSH_MS = 100;

/**
 * The in-process counters: a map whose entries live until their window ends, bounded by
 * `maxKeys` (past it the least recently written key goes). Everything is synchronous; the
 * promises of the exact operations are already settled.
 */
export function createLocalCounters(options: { maxKeys?: number; now?: () => number } = {}): SharedCounters {
  const maxKeys = options.maxKeys ?? COUNTERS_MAX_KEYS;
  const clock = options.now ?? (() => Date.now());
  // Kept in the order they were last written; every write moves the key to the back.
  const windows = new Map<string, CounterWindow>();
  function live(key: string, now: number): CounterWindow | undefined {
    const window = windows.get(key);
    if (window && window.resetAt <= now) {
      windows.delete(key);
      return undefined;
    }
    return window;
  }
  // Ended windows at the front (the least recently written) go as others are written; a live one
  // stops the walk, so no call scans the map. Past maxKeys, the front goes whatever its end.
  function dropEnded(now: number): void {
    for (const [key, window] of windows) {
      if (window.resetAt > now) break;
      windows.delete(key);
    }
  }
  function add(key: string, by: number, windowMs: number, sliding: boolean, now: number): CounterWindow {
    dropEnded(now);
    const window = live(key, now) ?? { count: 0, resetAt: now + windowMs };
    window.count += by;
    if (sliding) window.resetAt = now + windowMs;
    windows.delete(key);
    windows.set(key, window);
    if (windows.size > maxKeys) windows.delete(windows.keys().next().value!);
    return { count: window.count, resetAt: window.resetAt };
  }
  return {
    get size() {
      return windows.size;
    },
    async add(key, by, windowMs, opts) {
      return add(key, by, windowMs, opts?.sliding === true, clock());
    },
    async read(keys) {
      const now = clock();
      const out = new Map<string, CounterWindow>();
      for (const key of keys) {
        const window = live(key, now);
        if (window) out.set(key, { ...window });
      }
      return out;
    },
    async delete(key) {
      windows.delete(key);
    },
    hit(key, by, windowMs, now = clock()) {
      return add(key, by, windowMs, false, now);
    },
    async flush() {},
    async close() {},
  };
}

