import { useState } from 'react';
import { errorMessage } from '../api/client';
import { ActionError } from './actions';
import { ScopePicker } from './ui';

/**
 * The decision on a request for access: "Approve" opens a scope picker (starting from what was
 * asked for) and approves with the scopes kept; "Deny" denies at once. Its error follows the buttons.
 */
export function ApproveOrDeny({ requested, onApprove, onDeny }: { requested: readonly string[]; onApprove: (scopes: string[]) => Promise<void>; onDeny: () => Promise<void> }) {
  const [choosing, setChoosing] = useState(false);
  const [scopes, setScopes] = useState<string[]>([...requested]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  // After a decision the request leaves the list (or its card changes), so the buttons stay
  // disabled on success: a second click cannot send the decision twice.
  const decide = async (send: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await send();
    } catch (caught) {
      setError(errorMessage(caught));
      setBusy(false);
    }
  };

  return (
    <>
      {choosing ? (
        <div className="stack">
          <ScopePicker value={scopes} onChange={setScopes} legend="Grant these scopes" />
          <div className="row">
            <button type="button" className="primary" disabled={busy || scopes.length === 0} onClick={() => void decide(() => onApprove(scopes))}>
              Approve with {scopes.length} {scopes.length === 1 ? 'scope' : 'scopes'}
            </button>
            <button type="button" disabled={busy} onClick={() => setChoosing(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="row">
          <button type="button" className="primary" disabled={busy} onClick={() => setChoosing(true)}>
            Approve
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => void decide(onDeny)}>
            Deny
          </button>
        </div>
      )}
      <ActionError error={error} />
    </>
  );
}
