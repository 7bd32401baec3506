import { useCallback, useState } from 'react';
import { errorMessage } from '../api/client';

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

