import { useCallback, useEffect, useRef, useState } from 'react';
import type { Loaded } from './ui';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** A list read page by page with the API's cursor; shaped like `useLoad` so that `Show` renders it. */
export interface Paged<T> extends Loaded<T[]> {
  nextCursor: string | null;
  loadingMore: boolean;
  loadMore: () => void;
  /** Changes the items in place (after an edit or a delete) without asking the server again. */
  update: (change: (items: T[]) => T[]) => void;
}

/** Reads the first page again whenever `deps` change or `reload` is called; `loadMore` appends the next. */
export function usePaged<T>(loadPage: (cursor: string | undefined) => Promise<Page<T>>, deps: unknown[] = []): Paged<T> {
  const [items, setItems] = useState<T[]>();
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [round, setRound] = useState(0);
  // Answers to an older round (a search replaced by another) are dropped.
  const generation = useRef(0);
  const latest = useRef(loadPage);
  latest.current = loadPage;

  useEffect(() => {
    const mine = ++generation.current;
    setLoading(true);
    latest.current(undefined).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems(page.data);
        setNextCursor(page.nextCursor);
        setError(undefined);
        setLoading(false);
      },
      (caught: unknown) => {
        if (mine !== generation.current) return;
        setError(caught);
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [round, ...deps]);

  const loadMore = useCallback(() => {
    if (!nextCursor) return;
    const mine = generation.current;
    setLoadingMore(true);
    latest.current(nextCursor).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems((previous) => [...(previous ?? []), ...page.data]);
        setNextCursor(page.nextCursor);
        setError(undefined);
        setLoadingMore(false);
      },
      (caught: unknown) => {
        if (mine !== generation.current) return;
        setError(caught);
        setLoadingMore(false);
      },
    );
  }, [nextCursor]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  const update = useCallback((change: (items: T[]) => T[]) => setItems((previous) => (previous ? change(previous) : previous)), []);
  return { data: items, error, loading, reload, nextCursor, loadingMore, loadMore, update };
}

/** The "Load more" button under a paged list, shown while there is a next page. */
export function LoadMore<T>({ paged }: { paged: Paged<T> }) {
  if (!paged.nextCursor) return null;
  return (
    <div className="load-more">
      <button type="button" disabled={paged.loadingMore} onClick={paged.loadMore}>
        {paged.loadingMore ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}
