import { useCallback, useEffect, useRef, useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ErrorNote, useLoad, type Loaded } from './ui';

type Status = Schemas['SearchStatus'];

/** How often the status is asked again while items wait for their vectors. */
const POLL_MS = 2_000;
/** The longest wait between two asks: while nothing moves (an embedder that is down), the wait doubles up to this. */
const MAX_POLL_MS = 30_000;

function pageVisible(): boolean {
  return document.visibilityState === 'visible';
}

/**
 * The owner's search status (`GET /api/v1/search/status`), asked again while items wait for
 * their vectors (`pending` > 0) so that a progress bar moves: every 2 s while the count moves,
 * less often while it does not, never while the page is hidden (asked at once when it shows
 * again), and not at all once nothing is pending. `reload` asks at once, after a change that
 * gives the indexer work (an entry added, a document uploaded).
 */
export function useSearchStatus(): Loaded<Status> {
  const delay = useRef(POLL_MS);
  const lastPending = useRef<number | undefined>(undefined);
  const load = useCallback(async () => {
    try {
      const status = unwrap(await api.GET('/api/v1/search/status')).data;
      const moving = lastPending.current !== status.pending || status.embedder.state === 'loading';
      delay.current = moving ? POLL_MS : Math.min(delay.current * 2, MAX_POLL_MS);
      lastPending.current = status.pending;
      return status;
    } catch (error) {
      delay.current = Math.min(delay.current * 2, MAX_POLL_MS);
      throw error;
    }
  }, []);
  const status = useLoad(load);
  const { reload } = status;

  const [visible, setVisible] = useState(pageVisible);
  useEffect(() => {
    const changed = () => {
      const now = pageVisible();
      setVisible(now);
      // What was shown may be old by now: ask again on return, while there was work left.
      if (now && (lastPending.current ?? 0) > 0) {
        delay.current = POLL_MS;
        reload();
      }
    };
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, [reload]);

  const pending = status.data?.pending ?? 0;
  useEffect(() => {
    if (!visible || status.loading || pending === 0) return;
    const timer = setTimeout(reload, delay.current);
    return () => clearTimeout(timer);
  }, [visible, status.loading, status.data, status.error, pending, reload]);

  return status;
}

const KINDS: Record<Status['embedder']['kind'], string> = {
  builtin: 'the built-in encoder',
  openai: 'an embeddings endpoint',
  off: 'none',
};

const STATES: Record<Status['embedder']['state'], string> = {
  idle: 'idle, starts when needed',
  loading: 'loading the model',
  ready: 'ready',
  failed: 'failed',
  off: 'off',
};

/** Whether searches rank by meaning as well as by words right now. */
export function searchesByMeaning(status: Status | undefined): boolean {
  return status !== undefined && status.embedder.kind !== 'off' && status.embedder.state !== 'failed' && status.embedder.state !== 'off';
}

const count = (n: number) => n.toLocaleString();
const items = (n: number) => `${count(n)} ${n === 1 ? 'item' : 'items'}`;

/**
 * What search runs on, for the owner: the embedder (kind, model, state), how many items hold a
 * vector, a progress bar while some wait for one (new items, or all of them after the model
 * changed), and the last error in plain words.
 */
export function SearchStatusPanel({ status }: { status: Loaded<Status> }) {
  const data = status.data;
  if (!data) {
    return (
      <section className="search-status" aria-label="Search status">
        {status.error ? <ErrorNote error={status.error} retry={status.reload} /> : <p className="muted meta">Reading the search status…</p>}
      </section>
    );
  }
  const { embedder, pending, indexed, lastError } = data;
  const total = pending + indexed;
  const off = embedder.kind === 'off' || embedder.state === 'off';
  return (
    <section className="search-status" aria-label="Search status">
      <p className="meta">
        <strong>{searchesByMeaning(data) ? 'Search by words and meaning' : 'Search by words only'}</strong>
        {off ? (
          <span className="muted"> · search by meaning is off on this server</span>
        ) : (
          <>
            <span className="muted"> · embedder: {KINDS[embedder.kind]}, </span>
            <span className="mono">{embedder.model}</span>
            {embedder.dimensions ? <span className="muted"> ({embedder.dimensions} dimensions)</span> : null}
            <span className="muted"> · </span>
            <span className={`tag embedder-${embedder.state}`}>{STATES[embedder.state]}</span>
          </>
        )}
      </p>
      {off ? null : pending > 0 ? (
        <div className="indexing">
          <p className="meta">
            {embedder.state === 'failed' ? 'Indexing for search by meaning is paused' : 'Indexing for search by meaning'}: {count(indexed)} of {items(total)} ({count(pending)} waiting)
          </p>
          <progress aria-label="Indexing for search by meaning" max={total} value={indexed} />
          <p className="muted meta">Until an item is indexed, search finds it by its words.</p>
        </div>
      ) : (
        <p className="muted meta">
          {indexed === 0
            ? 'Nothing to index yet.'
            : `${indexed === 1 ? 'The only item' : `All ${items(indexed)}`} (memory entries, document passages and skills) ${indexed === 1 ? 'is' : 'are'} indexed.`}
        </p>
      )}
      {embedder.state === 'failed' ? (
        <p className="error">
          <span>
            Search by meaning is unavailable: searches use words only until it recovers.
            {lastError ? ` ${lastError}` : ''}
          </span>
        </p>
      ) : lastError ? (
        <p className="error">
          <span>Last error: {lastError}</span>
        </p>
      ) : null}
      {status.error ? <ErrorNote error={status.error} retry={status.reload} /> : null}
    </section>
  );
}
