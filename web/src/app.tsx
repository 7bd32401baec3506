import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ACCOUNT_DISABLED, api, ApiError, errorMessage, forgetSessionBinding, hasSessionBinding, signedOut, unwrap, type Schemas } from './api/client';
import { Loading } from './components/ui';
import { ignoreFailure } from './ignore-failure';
import { CONSOLE_PAGES, pagesFor, type ConsolePath } from '../../src/modules/console/console.pages';
import { useLiveChanges } from './live';
import { AgentsPage } from './pages/agents';
import { AuditPage } from './pages/audit';
import { ChatPage } from './pages/chat';
import { ConnectPage } from './pages/connect';
import { ConnectionsPage } from './pages/connections';
import { DataPage } from './pages/data';
import { DevicesPage } from './pages/devices';
import { HomePage } from './pages/home';
import { KnowledgePage } from './pages/knowledge';
import { MemoryPage } from './pages/memory';
import { PersonasPage } from './pages/personas';
import { PlanPage } from './pages/plan';
import { ProfilePage } from './pages/profile';
import { ResetPasswordPage } from './pages/reset-password';
import { SignInPage } from './pages/sign-in';
import { SkillsPage } from './pages/skills';
import { UsersPage } from './pages/users';
import { VaultPage } from './pages/vault';
import { WebhooksPage } from './pages/webhooks';
import { Link, navigate, usePath } from './router';
import { SessionContext, useSession, type Session } from './session';

const PAGES: Record<ConsolePath, () => ReactNode> = {
  '/': () => <HomePage />,
  '/agents': () => <AgentsPage />,
  '/connect': () => <ConnectPage />,
  '/memory': () => <MemoryPage />,
  '/knowledge': () => <KnowledgePage />,
  '/chat': () => <ChatPage />,
  '/personas': () => <PersonasPage />,
  '/skills': () => <SkillsPage />,
  '/profile': () => <ProfilePage />,
  '/vault': () => <VaultPage />,
  '/connections': () => <ConnectionsPage />,
  '/devices': () => <DevicesPage />,
  '/audit': () => <AuditPage />,
  '/webhooks': () => <WebhooksPage />,
  '/data': () => <DataPage />,
  '/plan': () => <PlanPage />,
  '/users': () => <UsersPage />,
};

type State =
  | { kind: 'checking' }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'signed-in'; user: Schemas['User'] }
  | { kind: 'unreachable'; message: string };

export function App() {
  const [state, setState] = useState<State>({ kind: 'checking' });
  const path = usePath();

  const check = useCallback(async () => {
    // Signed out (never signed in here, or signed out): nothing to ask, and no 401 to log.
    if (!hasSessionBinding()) return setState({ kind: 'signed-out' });
    const answer = await api.GET('/api/v1/auth/me');
    if (answer.response.status === 401) {
      // No session, or a cookie without this page's binding (set by a page on another port): sign in here.
      forgetSessionBinding();
      return setState({ kind: 'signed-out' });
    }
    try {
      setState({ kind: 'signed-in', user: unwrap(answer).data });
    } catch (error) {
      // The administrator disabled the account: signing in again is the way on, once it is enabled.
      if (error instanceof ApiError && error.code === ACCOUNT_DISABLED) return setState({ kind: 'signed-out', notice: error.message });
      setState({ kind: 'unreachable', message: errorMessage(error) });
    }
  }, []);

  useEffect(() => {
    check().catch((error: unknown) => setState({ kind: 'unreachable', message: errorMessage(error) }));
    // Any answer 401 (the session expired or was revoked elsewhere) returns to the sign-in page,
    // and so does the account being disabled, which the page then says.
    const onSignedOut = (event: Event) => {
      const notice = (event as CustomEvent<string | undefined>).detail;
      setState(notice ? { kind: 'signed-out', notice } : { kind: 'signed-out' });
    };
    window.addEventListener('hearth:signed-out', onSignedOut);
    return () => window.removeEventListener('hearth:signed-out', onSignedOut);
  }, [check]);

  // A password reset link's page works signed in or not: it is how a signed-out owner gets back in.
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (state.kind === 'checking') return <Loading what="Opening Hearth" />;
  if (state.kind === 'unreachable') {
    return (
      <main className="center">
        <h1>Hearth</h1>
        <p className="error" role="alert">
          {state.message}
        </p>
        <button type="button" onClick={() => void check()}>
          Try again
        </button>
      </main>
    );
  }
  if (state.kind === 'signed-out') return <SignInPage notice={state.notice} onSignedIn={(user) => setState({ kind: 'signed-in', user })} />;
  const session: Session = { user: state.user, signedOut: () => setState({ kind: 'signed-out' }) };
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

/** How many things wait for the owner: pending handshakes and apps' authorization requests sent to the console. */
function usePendingCount(): number | undefined {
  const [count, setCount] = useState<number>();
  const refresh = useCallback(() => {
    // Agents' handshakes, apps' authorization requests and held actions all wait for the owner.
    const counted = Promise.all([
      api.GET('/api/v1/handshakes', { params: { query: { status: 'pending', limit: 100 } } }),
      api.GET('/api/v1/authorization/requests'),
      api.GET('/api/v1/approvals', { params: { query: { status: 'pending', limit: 100 } } }),
    ]).then(([handshakes, apps, actions]) => setCount(unwrap(handshakes).data.length + unwrap(apps).data.length + unwrap(actions).data.length));
    void ignoreFailure(counted, 'the badge keeps its last count; the next change or poll counts again');
  }, []);
  useEffect(refresh, [refresh]);
  useLiveChanges(refresh);
  return count;
}

function Shell() {
  const { user } = useSession();
  const path = usePath();
  const pending = usePendingCount();
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const known = CONSOLE_PAGES.find((page) => page.path === path);

  const arrived = useRef(false);
  useEffect(() => {
    document.title = known ? `${known.title} · Hearth` : 'Hearth';
    setMenuOpen(false);
    // Moving to another page moves keyboard and screen-reader focus to its heading, as a page
    // load would. On arrival focus stays at the start of the page, where "Skip to content" is.
    if (arrived.current) main.current?.querySelector<HTMLElement>('h1')?.focus();
    arrived.current = true;
  }, [path, known]);

  const signOut = async () => {
    await ignoreFailure(api.DELETE('/api/v1/auth/session'), 'the page signs out either way; a session the server could not end expires on its own');
    signedOut();
    navigate('/');
  };

  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="brand">
          Hearth
        </Link>
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu{pending ? ` (${pending})` : ''}
        </button>
      </header>
      <nav id="nav" aria-label="Console" className={menuOpen ? 'open' : undefined}>
        <ul>
          {pagesFor(user.role).map((page) => (
            <li key={page.path}>
              <Link href={page.path} aria-current={page.path === path ? 'page' : undefined}>
                {page.title}
                {page.path === '/' && pending ? (
                  <span className="badge" aria-label={`${pending} waiting for you`}>
                    {pending}
                  </span>
                ) : null}
              </Link>
            </li>
          ))}
        </ul>
        <button type="button" className="link sign-out" onClick={() => void signOut()}>
          Sign out
        </button>
      </nav>
      <main id="main" ref={main}>
        {known ? PAGES[known.path]() : <NotFound />}
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        This address is not a page of the console. <Link href="/">Go home</Link>.
      </p>
    </>
  );
}
