import { useEffect, useState, type FormEvent } from 'react';
import { api, errorMessage, forgetSessionBinding, unwrap } from '../api/client';
import { ActionError } from '../components/actions';

/**
 * Where a password reset link leads (`hearth reset-password` on the server prints it): the owner
 * sets a new password with the link's secret, signed in or not. Every session of the account
 * ends, this browser's too, so the page then offers to sign in with the new password.
 */
export function ResetPasswordPage() {
  // Read once, before the address loses it below.
  const [secret] = useState(() => new URLSearchParams(window.location.search).get('token') ?? '');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<{ email: string }>();

  useEffect(() => {
    document.title = 'Set a new password · Hearth';
    // The link's secret leaves the address bar (and so the history, and what is shared from it).
    if (window.location.search) window.history.replaceState(null, '', window.location.pathname);
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    if (password !== repeat) return setError('The new password and its repetition differ');
    setBusy(true);
    try {
      const answer = unwrap(await api.POST('/api/v1/auth/password-reset', { body: { token: secret, newPassword: password } }));
      // The server ended every session of the account, this page's included.
      forgetSessionBinding();
      setDone({ email: answer.data.email });
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <main className="center narrow">
        <h1>Your new password is set</h1>
        <p role="status">
          {done.email} now signs in with the new password. Every browser and app that was signed in to this account has been signed out.
        </p>
        <p>
          {/* A full load: the console starts again, signed out. */}
          <a href="/" className="button primary">
            Sign in
          </a>
        </p>
      </main>
    );
  }

  if (!secret) {
    return (
      <main className="center narrow">
        <h1>Set a new password</h1>
        <p className="error" role="alert">
          This page needs the whole link: open the address that <code>hearth reset-password</code> printed on the server, including its{' '}
          <code>?token=</code> part.
        </p>
        <p>
          <a href="/">Back to sign in</a>
        </p>
      </main>
    );
  }

  return (
    <main className="center narrow">
      <h1>Set a new password</h1>
      <p className="muted">Choose the password this account signs in with from now on. Every signed-in browser and app session ends; tokens stay.</p>
      <form aria-label="Set a new password" onSubmit={(event) => void submit(event)} className="stack">
        <label>
          New password
          <input
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            autoFocus
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <label>
          Repeat the new password
          <input type="password" required autoComplete="new-password" value={repeat} onChange={(event) => setRepeat(event.currentTarget.value)} />
        </label>
        <p className="muted meta">At least 8 characters. The link works once, for 30 minutes from when it was made.</p>
        <ActionError error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Set the new password'}
        </button>
      </form>
    </main>
  );
}
