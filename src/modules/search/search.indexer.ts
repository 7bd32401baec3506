/**
 * Computes the vectors of memory entries and skills in the background, so that a write never
 * waits for an embedder (docs/decisions/search.md, "Vectors and indexing").
 *
 * A round, per source: find items lacking a current vector of the embedder's model (an anti-join,
 * no marker written by the write path), claim a batch with a lease (each item embedded once
 * across nodes), re-check what another node stored meanwhile, embed the rest (not urgent: a
 * search's query goes first), store, release. Rounds run while there is work; then the indexer
 * sleeps until a write to a source table is seen by the write tracker (its counters cost nothing
 * to read) or `rescanMs` passed (another node's lease that expired, a restart's leftovers).
 * When the embedder is off it does nothing; when it fails, it records `lastError` and waits
 * `retryMs` before trying again (no busy loop); writes are never touched either way.
 */
import { quantize } from '../../storage/search/vectors.js';
import type { EmbeddingsService } from '../embeddings/embeddings.service.js';
import { textHash, type SearchRepo, type StaleItem } from './search.repo.js';
import type { SearchSource } from './search.source.js';

export interface IndexerSettings {
  /** Texts per embedding call. */
  batchSize: number;
  /** How long a claim holds: longer than a batch can take. */
  leaseMs: number;
  /** How often the indexer looks whether anything was written. */
  tickMs: number;
  /** A full scan at least this often, even without a write seen. */
  rescanMs: number;
  /** After an embedder failure, the wait before trying again. */
  retryMs: number;
}

export const DEFAULT_INDEXER_SETTINGS: IndexerSettings = { batchSize: 32, leaseMs: 120_000, tickMs: 2_000, rescanMs: 60_000, retryMs: 30_000 };

export interface IndexerStatus {
  /** Items of the owner lacking a vector of the current model. */
  pending: number;
  /** Vectors of the current model the owner has. */
  indexed: number;
  /** The last failure of the embedder or of a round, or null. */
  lastError: string | null;
}

export function createSearchIndexer(deps: {
  repo: SearchRepo;
  sources: readonly SearchSource[];
  embeddings: Pick<EmbeddingsService, 'embed' | 'describe'>;
  /** This node's id, recorded on its claims. */
  nodeId: string;
  /** The write counters: a changed stamp of a source table wakes the indexer. */
  writes?: { stamp(tables: readonly string[]): number | undefined };
  settings?: Partial<IndexerSettings>;
  log?: { warn(message: string): void };
  /** Called after vectors were stored (the in-memory index of that owner is then out of date). */
  onStored?: (ownerIds: ReadonlySet<string>) => void;
}) {
  const settings = { ...DEFAULT_INDEXER_SETTINGS, ...deps.settings };
  const tables = deps.sources.map((s) => s.table);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  let lastStamp: number | undefined;
  let lastScan = 0;
  let retryAt = 0;
  let lastError: string | null = null;
  let embedded = 0;

  const model = () => deps.embeddings.describe().model;
  const usable = () => deps.embeddings.describe().kind !== 'off';

  /**
   * One batch per source; answers how many unclaimed stale items it found (0: nothing left to
   * do here). Found, not handled: a batch another node claimed first leaves more to look at.
   */
  async function round(): Promise<number> {
    if (!usable()) return 0;
    const current = model();
    let found = 0;
    for (const src of deps.sources) {
      const now = new Date();
      const stale = await deps.repo.findStale(src, current, { now: now.toISOString(), limit: settings.batchSize });
      if (stale.length === 0) continue;
      found += stale.length;
      const held = await deps.repo.claim(stale, deps.nodeId, now.toISOString(), new Date(now.getTime() + settings.leaseMs).toISOString());
      if (held.length === 0) continue;
      try {
        await embedAndStore(src, held, current);
      } finally {
        await deps.repo.release(held, deps.nodeId);
      }
    }
    return found;
  }

  async function embedAndStore(src: SearchSource, held: StaleItem[], current: string): Promise<number> {
    // Another node may have stored a vector between the scan and the claim.
    const existing = await deps.repo.existing(held, current);
    const todo: StaleItem[] = [];
    for (const item of held) {
      const have = existing.get(`${item.ownerId}\u0000${item.source}\u0000${item.itemId}`);
      if (have && have.itemUpdatedAt === item.updatedAt) continue;
      if (have && have.textHash === textHash(item.text)) await deps.repo.touch(item, current);
      else todo.push(item);
    }
    if (todo.length === 0) return held.length;
    // Throws EmbeddingsUnavailable when off, failed or busy: the caller records it and waits.
    const vectors = await deps.embeddings.embed(
      todo.map((item) => item.text),
      { urgent: false },
    );
    const stored = todo.map((item, i) => {
      const { codes, scale } = quantize(vectors[i]!);
      return { ownerId: item.ownerId, source: item.source, itemId: item.itemId, model: current, codes, scale, textHash: textHash(item.text), itemUpdatedAt: item.updatedAt };
    });
    await deps.repo.store(src, stored, new Date().toISOString());
    embedded += stored.length;
    deps.onStored?.(new Set(stored.map((v) => v.ownerId)));
    return held.length;
  }

  /** Rounds until nothing is left, or until a failure (recorded; retried after `retryMs`). */
  async function drain(): Promise<void> {
    try {
      while (!stopped) {
        const handled = await round();
        if (handled === 0) break;
      }
      lastError = null;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      retryAt = Date.now() + settings.retryMs;
      if (!stopped) deps.log?.warn(`Search indexing paused: ${lastError}`);
    }
  }

  function tick(): void {
    timer = undefined;
    if (stopped) return;
    const now = Date.now();
    const stamp = deps.writes?.stamp(tables);
    const written = stamp === undefined || stamp !== lastStamp;
    if (now >= retryAt && (written || now - lastScan >= settings.rescanMs)) {
      lastStamp = stamp;
      lastScan = now;
      running = drain().finally(() => {
        running = undefined;
        schedule();
      });
      return;
    }
    schedule();
  }

  function schedule(): void {
    if (stopped || timer) return;
    timer = setTimeout(tick, settings.tickMs);
    timer.unref();
  }

  return {
    /** Starts the background rounds (a first full scan at once: a restart's pending work resumes). */
    start(): void {
      if (!stopped) return;
      stopped = false;
      lastScan = 0;
      lastStamp = undefined;
      timer = setTimeout(tick, 0);
      timer.unref();
    },

    /** Stops the rounds and waits for the one in flight (its claims are released or expire). */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },

    /** Looks for work at the next tick, whatever the write counters say. */
    wake(): void {
      lastStamp = undefined;
      retryAt = 0;
    },

    /** Runs rounds now until nothing is left or the embedder fails (for a caller that must wait, and the tests). */
    async runNow(): Promise<void> {
      while (running) await running;
      const wasStopped = stopped;
      if (wasStopped) stopped = false;
      try {
        await drain();
      } finally {
        if (wasStopped) stopped = true;
      }
    },

    /** The owner's counts for `GET /api/v1/search/status`, against the current model. */
    async status(ownerId: string): Promise<IndexerStatus> {
      const current = model();
      if (!usable()) return { pending: 0, indexed: 0, lastError: null };
      let pending = 0;
      for (const src of deps.sources) pending += await deps.repo.countStale(src, current, ownerId);
      return { pending, indexed: await deps.repo.countIndexed(ownerId, current), lastError: lastError ?? deps.embeddings.describe().lastError };
    },

    /** Vectors this process computed since it started. */
    embedded: () => embedded,
  };
}

export type SearchIndexer = ReturnType<typeof createSearchIndexer>;
