import { useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';

/**
 * A destructive action confirmed in place: "Delete" first, then "Yes, delete" and "Cancel".
 * The action's failure is shown beside the buttons, with the API's own message. With
 * `danger={false}` the same two steps guard an action that undoes one (enabling an account).
 */
export function ConfirmButton({
  onConfirm,
  label = 'Delete',
  confirmLabel = 'Yes, delete',
  question,
  name,
  danger = true,
  children,
}: {
  onConfirm: () => Promise<unknown>;
  label?: string;
  confirmLabel?: string;
  /** Said before the confirming buttons, e.g. "Delete this entry?" */
  question?: ReactNode;
  /** What is acted on, when a page lists several: the first button is then named "<label> <name>". */
  name?: string;
  /** More fields the confirmation needs (a password), shown with the question. */
  children?: ReactNode;
  /** Whether the action destroys or shuts out (red buttons); false for one that restores. */
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      // The owner usually unmounts this with the deleted record; if not, it returns to its first state.
      setAsking(false);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="confirm">
      {asking ? (
        <>
          {question ? <span>{question}</span> : null}
          {children}
          <button type="button" className={danger ? 'danger' : 'primary'} disabled={busy} onClick={() => void confirm()}>
            {confirmLabel}
          </button>
          <button type="button" disabled={busy} onClick={() => setAsking(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" className={danger ? 'danger' : undefined} aria-label={name ? `${label} ${name}` : undefined} onClick={() => setAsking(true)}>
          {label}
        </button>
      )}
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}
