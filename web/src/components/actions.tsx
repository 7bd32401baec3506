import { useCallback, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { useLoad, type Loaded } from './ui';

/** The state of one action a page runs (a save, a delete): busy while it runs, and its error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => setError(undefined) };
}

/** An error message of an action, announced to screen readers; nothing when there is none. */
export function ActionError({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

/**
 * A destructive action confirmed inline: the first button ("Revoke", "Delete") asks, then
 * "Yes, …" runs it and "Cancel" steps back. Never a browser dialog, so it reads the same to
 * every assistive technology and cannot be blocked.
 */
export function Confirm({
  label,
  name,
  question,
  confirmLabel,
  onConfirm,
  children,
  disabled,
}: {
  /** The first button's words: "Revoke", "Delete". */
  label: string;
  /** The thing acted on, for the button's accessible name: "Revoke <name>" (none: the label alone). */
  name?: string;
  question: ReactNode;
  /** Default: "Yes, " + the label in lower case. */
  confirmLabel?: string;
  onConfirm: () => Promise<void>;
  /** More inputs shown while asking (a password). */
  children?: ReactNode;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const action = useAction();
  if (!asking) {
    return (
      <button type="button" className="danger" aria-label={name ? `${label} ${name}` : undefined} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="confirm-ask stack" role="group" aria-label={name ? `${label} ${name}?` : `${label}?`}>
      <p className="warning">{question}</p>
      {children}
      <div className="row">
        <button type="button" className="danger" disabled={action.busy} onClick={() => void action.run(onConfirm)}>
          {confirmLabel ?? `Yes, ${label.toLowerCase()}`}
        </button>
        <button type="button" disabled={action.busy} onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
      <ActionError error={action.error} />
    </div>
  );
}

/** A "Load more" button for a list read page by page with `nextCursor`. */
export function LoadMore({ cursor, onMore, busy }: { cursor: string | null | undefined; onMore: (cursor: string) => void; busy?: boolean }) {
  if (!cursor) return null;
  return (
    <button type="button" disabled={busy} onClick={() => onMore(cursor)}>
      {busy ? 'Loading…' : 'Load more'}
    </button>
  );
}

/** A list of scope names as tags. */
export function ScopeTags({ scopes }: { scopes: readonly string[] }) {
  if (scopes.length === 0) return <span className="muted">none</span>;
  return (
    <span>
      {scopes.map((scope) => (
        <span key={scope} className="tag mono">
          {scope}
        </span>
      ))}
    </span>
  );
}

/** A list the API answers page by page (`limit`, `cursor`, `nextCursor`). */
export interface PagedList<T> extends Loaded<T[]> {
  cursor: string | null | undefined;
  more: (cursor: string) => void;
  moreBusy: boolean;
  moreError: string | undefined;
}

/**
 * Loads a list's first page (again when `deps` change or on reload), and the next ones on
 * "Load more"; a reload starts again from the first page.
 */
export function usePaged<T>(load: (cursor: string | undefined) => Promise<{ data: T[]; nextCursor: string | null }>, deps: unknown[] = []): PagedList<T> {
  const first = useLoad(() => load(undefined), deps);
  const [extra, setExtra] = useState<{ base: unknown; items: T[]; cursor: string | null }>();
  const action = useAction();
  const current = extra && extra.base === first.data ? extra : undefined;
  const data = first.data ? [...first.data.data, ...(current?.items ?? [])] : undefined;
  const more = (cursor: string) =>
    void action.run(async () => {
      const page = await load(cursor);
      setExtra({ base: first.data, items: [...(current?.items ?? []), ...page.data], cursor: page.nextCursor });
    });
  return {
    data,
    error: first.error,
    loading: first.loading,
    reload: first.reload,
    cursor: current ? current.cursor : first.data?.nextCursor,
    more,
    moreBusy: action.busy,
    moreError: action.error,
  };
}
