import type { ReactNode } from 'react';

/** A form's closing buttons: its primary submit, and "Cancel"; both wait while the form is busy. */
export function SubmitOrCancel({ label, busy, disabled = false, onCancel }: { label: ReactNode; busy: boolean; disabled?: boolean; onCancel: () => void }) {
  return (
    <div className="row">
      <button type="submit" className="primary" disabled={busy || disabled}>
        {label}
      </button>
      <button type="button" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
