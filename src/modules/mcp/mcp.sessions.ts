import { ignoreFailure } from '../../lib/ignore-failure.js';

/**
 * Open MCP sessions of this process, each bound to the token that opened it. A session is a
 * protocol object (its transport and server) and holds no data of the owner's; it is reached
 * only with its id and the same token, so an id seen by someone else is worthless.
 *
 * Bounded twice: per token (a client that opens sessions without ever closing them pushes out its
 * own oldest, never another token's) and by idle time.
 */
export interface SessionHandle {
  /** Ends the session's transport and server. */
  close(): Promise<void>;
}

interface Entry<S extends SessionHandle> {
  id: string;
  tokenId: string;
  session: S;
  lastSeen: number;
}

export interface SessionStoreOptions<S extends SessionHandle> {
  maxPerToken: number;
  idleMs: number;
  now?: () => number;
  /** Called once a session is added (the hub subscribes it to its owner's changes). */
  onAdded?(session: S): void;
  /** Called once a session is forgotten, however it ended. */
  onForgotten?(session: S): void;
}

export function createSessionStore<S extends SessionHandle>(options: SessionStoreOptions<S>) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry<S>>();
  const byToken = new Map<string, Set<string>>();

  function forget(id: string): Entry<S> | undefined {
    const entry = entries.get(id);
    if (!entry) return undefined;
    entries.delete(id);
    const ids = byToken.get(entry.tokenId);
    ids?.delete(id);
    if (ids?.size === 0) byToken.delete(entry.tokenId);
    options.onForgotten?.(entry.session);
    return entry;
  }

  function closeQuietly(entry: Entry<S> | undefined): Promise<void> {
    return entry ? ignoreFailure(entry.session.close(), 'a transport that fails to close has nothing left to lose: the session is gone either way') : Promise.resolve();
  }

  return {
    /** Adds a session; the token's least recently used one is closed if it had too many. */
    add(id: string, tokenId: string, session: S): void {
      const ids = byToken.get(tokenId) ?? new Set<string>();
      byToken.set(tokenId, ids);
      while (ids.size >= options.maxPerToken) {
        let oldest: Entry<S> | undefined;
        for (const other of ids) {
          const entry = entries.get(other)!;
          if (!oldest || entry.lastSeen < oldest.lastSeen) oldest = entry;
        }
        void closeQuietly(forget(oldest!.id));
      }
      ids.add(id);
      entries.set(id, { id, tokenId, session, lastSeen: now() });
      options.onAdded?.(session);
    },

    /** The session with this id, if it was opened by this token (and touches it). */
    get(id: string, tokenId: string): S | undefined {
      const entry = entries.get(id);
      if (!entry || entry.tokenId !== tokenId) return undefined;
      entry.lastSeen = now();
      return entry.session;
    },

    /** Forgets a session that ended by itself (closed by the client or the transport). */
    remove(id: string): void {
      forget(id);
    },

    /** Closes sessions idle for longer than the limit; answers how many. */
    async sweep(): Promise<number> {
      const cutoff = now() - options.idleMs;
      const idle = [...entries.values()].filter((entry) => entry.lastSeen < cutoff);
      await Promise.all(idle.map((entry) => closeQuietly(forget(entry.id))));
      return idle.length;
    },

    /** Closes every session of a token (it was revoked) or of the whole process. */
    async closeAll(tokenId?: string): Promise<void> {
      const ids = tokenId ? [...(byToken.get(tokenId) ?? [])] : [...entries.keys()];
      await Promise.all(ids.map((id) => closeQuietly(forget(id))));
    },

    /** Every open session, for telling them of a change. */
    all(): S[] {
      return [...entries.values()].map((entry) => entry.session);
    },

    count(tokenId?: string): number {
      return tokenId ? (byToken.get(tokenId)?.size ?? 0) : entries.size;
    },
  };
}

export type SessionStore<S extends SessionHandle> = ReturnType<typeof createSessionStore<S>>;
