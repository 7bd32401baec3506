import { useEffect, useState, type FormEvent } from 'react';
import { api, errorMessage, rememberSessionBinding, unwrap, type Schemas } from '../api/client';
import { ignoreFailure } from '../ignore-failure';
import { ActionError } from '../components/actions';
import { OnceSecret } from '../components/ui';

type Mode = 'sign-in' | 'create';

/**
 * Sign in (opens the console's cookie session). On a server with no account yet, the same page
 * offers to create the owner's account, shows its master token once, then signs in. `notice`
 * says why a session ended, when it is worth saying (the administrator disabled the account).
 */
export function SignInPage({ onSignedIn, notice }: { onSignedIn: (user: Schemas['User']) => void; notice?: string | undefined }) {
  const [mode, setMode] = useState<Mode>('sign-in');
  const [registration, setRegistration] = useState<{ open: boolean; hasAccounts: boolean }>();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(notice);
  const [created, setCreated] = useState<{ masterToken: string }>();

  useEffect(() => {
    const read = api.GET('/api/v1/auth/registration').then((answer) => {
      const status = unwrap(answer).data;
      setRegistration(status);
      // The very first visit to a new server is about creating the owner's account.
      if (status.open && !status.hasAccounts) setMode('create');
    });
    void ignoreFailure(read, 'without the answer the page offers signing in, which says itself what is wrong');
  }, []);

  const openSession = async () => {
    const session = unwrap(await api.POST('/api/v1/auth/session', { body: { email, password } }));
    rememberSessionBinding(session.data.sessionBinding);
    onSignedIn(session.data.user);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (mode === 'create') {
        const answer = unwrap(await api.POST('/api/v1/auth/register', { body: { email, password, ...(name ? { name } : {}) } }));
        setCreated({ masterToken: answer.data.token });
      } else {
        await openSession();
      }
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <main className="center narrow">
        <h1>Your account is ready</h1>
        <p>
          This is your <strong>master token</strong>: it can do everything your account can, from any program. You do not need it for this
          console, which signs you in with your password.
        </p>
        <OnceSecret label="Master token" value={created.masterToken} />
        <ContinueButton onContinue={openSession} />
      </main>
    );
  }

  const creating = mode === 'create';
  return (
    <main className="center narrow">
      <h1>{creating ? 'Create your Hearth account' : 'Sign in to Hearth'}</h1>
      {creating ? <p className="muted">This server has no account yet. The first account is its owner and administrator.</p> : null}
      <form onSubmit={(event) => void submit(event)} className="stack">
        {creating ? (
          <label>
            Name <span className="muted">(optional)</span>
            <input value={name} onChange={(event) => setName(event.currentTarget.value)} autoComplete="name" />
          </label>
        ) : null}
        <label>
          Email
          <input type="email" required value={email} onChange={(event) => setEmail(event.currentTarget.value)} autoComplete="username" autoFocus />
        </label>
        <label>
          Password
          <input
            type="password"
            required
            minLength={creating ? 8 : undefined}
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            autoComplete={creating ? 'new-password' : 'current-password'}
          />
        </label>
        <ActionError error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {creating ? 'Create account' : 'Sign in'}
        </button>
      </form>
      {creating ? null : (
        <p className="muted meta">
          Forgot your password? Whoever runs this server can make you a one-time link with <code>hearth reset-password --email &lt;your email&gt;</code>.
        </p>
      )}
      {registration?.open ? (
        <p>
          {creating ? 'Already have an account? ' : 'New here? '}
          <button type="button" className="link" onClick={() => setMode(creating ? 'sign-in' : 'create')}>
            {creating ? 'Sign in' : 'Create account'}
          </button>
        </p>
      ) : null}
    </main>
  );
}

function ContinueButton({ onContinue }: { onContinue: () => Promise<void> }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <ActionError error={error} />
      <button
        type="button"
        className="primary"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          onContinue().catch((caught: unknown) => {
            setError(errorMessage(caught));
            setBusy(false);
          });
        }}
      >
        I have saved it, continue
      </button>
    </>
  );
}
