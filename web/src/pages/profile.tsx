import { useId, useState, type FormEvent } from 'react';
import { api, apiError, errorMessage, signedOut, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { isObject, KeyValueRows, mergePatch, objectOf, rowsOf, type KeyValueRow } from '../components/key-values';
import { PageHeader, Show, useLoad } from '../components/ui';
import { Link } from '../router';
import { useSession } from '../session';

type Identity = Schemas['Identity'];

/** Identity and preferences: what agents may learn about the owner, and how the owner likes things. */
export function ProfilePage() {
  const identity = useLoad(async () => unwrap(await api.GET('/api/v1/identity')).data);
  const preferences = useLoad(async () => unwrap(await api.GET('/api/v1/preferences')).data);
  return (
    <>
      <PageHeader title="Identity and preferences" />
      <section aria-labelledby="identity-heading" className="stack">
        <h2 id="identity-heading">Identity</h2>
        <p className="muted">Agents with the read scope see the public part; professional and availability need their own scopes.</p>
        <Show loaded={identity} what="Loading your identity">
          {(loaded) => <IdentityForm initial={loaded} />}
        </Show>
      </section>
      <section aria-labelledby="preferences-heading" className="stack">
        <h2 id="preferences-heading">Preferences</h2>
        <p className="muted">Free settings agents read to act the way you like: a language, a tone, a time zone…</p>
        <Show loaded={preferences} what="Loading your preferences">
          {(loaded) => <PreferencesForm initial={loaded} />}
        </Show>
      </section>
      <section aria-labelledby="account-heading" className="stack">
        <h2 id="account-heading">Account</h2>
        <p className="muted">How you sign in. Both changes ask for your current password.</p>
        <ChangePasswordForm />
        <ChangeEmailForm />
      </section>
      <section aria-labelledby="delete-account-heading" className="stack">
        <h2 id="delete-account-heading">Delete account</h2>
        <DeleteAccountForm />
      </section>
    </>
  );
}

/** A link as the form edits it; fields of a link object the form does not show ride along. */
interface LinkRow {
  id: number;
  label: string;
  url: string;
  rest: Record<string, unknown>;
}

let nextLinkId = 0;

function linkRows(links: unknown[] | undefined): LinkRow[] {
  return (links ?? []).map((link) => {
    if (typeof link === 'string') return { id: ++nextLinkId, label: '', url: link, rest: {} };
    if (isObject(link)) {
      const { label, url, ...rest } = link;
      return { id: ++nextLinkId, label: typeof label === 'string' ? label : '', url: typeof url === 'string' ? url : '', rest };
    }
    return { id: ++nextLinkId, label: '', url: JSON.stringify(link), rest: {} };
  });
}

function linksOf(rows: LinkRow[]): unknown[] {
  return rows
    .filter((row) => row.url.trim() || row.label.trim())
    .map((row) => (row.label.trim() || Object.keys(row.rest).length > 0 ? { ...row.rest, ...(row.label.trim() ? { label: row.label.trim() } : {}), url: row.url.trim() } : row.url.trim()));
}

/** The fields of the identity this form edits; the others are left to the server as they are. */
function editedPart(identity: Identity): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  for (const key of ['name', 'bio', 'location', 'links', 'professional', 'availability'] as const) if (identity[key] !== undefined) part[key] = identity[key];
  return part;
}

function IdentityForm({ initial }: { initial: Identity }) {
  const [saved, setSaved] = useState(initial);
  const [name, setName] = useState(initial.name ?? '');
  const [bio, setBio] = useState(initial.bio ?? '');
  const [location, setLocation] = useState(initial.location ?? '');
  const [links, setLinks] = useState(() => linkRows(initial.links));
  const [professional, setProfessional] = useState(() => rowsOf(initial.professional));
  const [availability, setAvailability] = useState(() => rowsOf(initial.availability));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const id = useId();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setStatus(undefined);
    const prof = objectOf(professional, 'Professional');
    const avail = objectOf(availability, 'Availability');
    if (typeof prof === 'string') return setError(prof);
    if (typeof avail === 'string') return setError(avail);
    const after: Record<string, unknown> = {};
    if (name.trim()) after.name = name.trim();
    if (bio.trim()) after.bio = bio;
    if (location.trim()) after.location = location.trim();
    const list = linksOf(links);
    if (list.length > 0 || saved.links !== undefined) after.links = list;
    if (Object.keys(prof).length > 0 || saved.professional !== undefined) after.professional = prof;
    if (Object.keys(avail).length > 0 || saved.availability !== undefined) after.availability = avail;
    const patch = mergePatch(editedPart(saved), after);
    if (Object.keys(patch).length === 0) return setStatus('Nothing changed.');
    setBusy(true);
    try {
      const fresh = unwrap(await api.PUT('/api/v1/identity', { body: patch })).data;
      setSaved(fresh);
      setName(fresh.name ?? '');
      setBio(fresh.bio ?? '');
      setLocation(fresh.location ?? '');
      setLinks(linkRows(fresh.links));
      setProfessional(rowsOf(fresh.professional));
      setAvailability(rowsOf(fresh.availability));
      setStatus('Identity saved.');
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  const setLink = (rowId: number, patch: Partial<LinkRow>) => setLinks(links.map((row) => (row.id === rowId ? { ...row, ...patch } : row)));

  return (
    <form className="card" aria-label="Identity" onSubmit={(event) => void save(event)}>
      <label>
        Name
        <input value={name} autoComplete="name" onChange={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        Bio
        <textarea rows={4} value={bio} onChange={(event) => setBio(event.currentTarget.value)} />
      </label>
      <label>
        Location
        <input value={location} onChange={(event) => setLocation(event.currentTarget.value)} placeholder="e.g. Lyon, France" />
      </label>
      <fieldset className="kv" aria-describedby={`${id}-links`}>
        <legend>Links</legend>
        <p id={`${id}-links`} className="muted meta">
          A website, a profile, a calendar page. The label is optional.
        </p>
        <ul className="kv-rows">
          {links.map((row, index) => (
            <li key={row.id}>
              <label>
                Label
                <input value={row.label} onChange={(event) => setLink(row.id, { label: event.currentTarget.value })} />
              </label>
              <label>
                URL
                <input type="url" inputMode="url" value={row.url} onChange={(event) => setLink(row.id, { url: event.currentTarget.value })} placeholder="https://" />
              </label>
              <button type="button" aria-label={`Remove link ${index + 1}${row.label || row.url ? ` (${row.label || row.url})` : ''}`} onClick={() => setLinks(links.filter((other) => other.id !== row.id))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <button type="button" onClick={() => setLinks([...links, { id: ++nextLinkId, label: '', url: '', rest: {} }])}>
          Add a link
        </button>
      </fieldset>
      <KeyValueRows legend="Professional" rows={professional} onChange={setProfessional} />
      <KeyValueRows legend="Availability" rows={availability} onChange={setAvailability} />
      <SaveRow busy={busy} label="Save identity" error={error} status={status} />
    </form>
  );
}

function PreferencesForm({ initial }: { initial: Record<string, unknown> }) {
  const [saved, setSaved] = useState(initial);
  const [rows, setRows] = useState<KeyValueRow[]>(() => rowsOf(initial));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setStatus(undefined);
    const after = objectOf(rows, 'Preferences');
    if (typeof after === 'string') return setError(after);
    const patch = mergePatch(saved, after);
    if (Object.keys(patch).length === 0) return setStatus('Nothing changed.');
    setBusy(true);
    try {
      const fresh = unwrap(await api.PUT('/api/v1/preferences', { body: patch })).data;
      setSaved(fresh);
      setRows(rowsOf(fresh));
      setStatus('Preferences saved.');
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" aria-label="Preferences" onSubmit={(event) => void save(event)}>
      <KeyValueRows legend="Preferences" rows={rows} onChange={setRows} />
      <SaveRow busy={busy} label="Save preferences" error={error} status={status} />
    </form>
  );
}

function SaveRow({ busy, label, error, status }: { busy: boolean; label: string; error: string | undefined; status: string | undefined }) {
  return (
    <>
      <ActionError error={error} />
      <div className="row">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : label}
        </button>
        <p className="ok meta" role="status">
          {status}
        </p>
      </div>
    </>
  );
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The body of a password-checked answer; its error is thrown. A wrong password answers 401, as
 * login does; that is not a sign-out, so the session is asked about first (unwrap signs the page
 * out only if the session itself has ended) and otherwise the answer's own words are shown.
 */
async function passwordChecked<T>(answer: Answer<T>) {
  if (answer.response.status === 401) {
    unwrap(await api.GET('/api/v1/auth/me'));
    throw apiError(answer.response.status, answer.response.statusText, answer.error);
  }
  return unwrap(answer);
}

function ChangePasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [status, setStatus] = useState<string>();
  const { busy, error, run } = useAction();

  const save = (event: FormEvent) => {
    event.preventDefault();
    setStatus(undefined);
    void run(async () => {
      if (next.length < 8) throw new Error('The new password needs at least 8 characters.');
      if (next !== repeat) throw new Error('The new password and its repetition differ: type the same password twice.');
      const answer = await passwordChecked(await api.POST('/api/v1/auth/password', { body: { currentPassword: current, newPassword: next } }));
      const ended = answer.data.sessionsEnded;
      setCurrent('');
      setNext('');
      setRepeat('');
      setStatus(`Password changed. ${ended === 0 ? 'No other session was signed in.' : `${ended} other ${ended === 1 ? 'session was' : 'sessions were'} signed out; this one stays.`}`);
    });
  };

  return (
    <form className="card" aria-label="Change password" onSubmit={save}>
      <h3>Change password</h3>
      <label>
        Current password
        <input type="password" autoComplete="current-password" required value={current} onChange={(event) => setCurrent(event.currentTarget.value)} />
      </label>
      <label>
        New password
        <input type="password" autoComplete="new-password" required minLength={8} value={next} onChange={(event) => setNext(event.currentTarget.value)} />
      </label>
      <label>
        Repeat the new password
        <input type="password" autoComplete="new-password" required value={repeat} onChange={(event) => setRepeat(event.currentTarget.value)} />
      </label>
      <p className="muted meta">At least 8 characters. Every other signed-in browser or app session ends; tokens stay.</p>
      <SaveRow busy={busy} label="Change password" error={error} status={status} />
    </form>
  );
}

function ChangeEmailForm() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [status, setStatus] = useState<string>();
  const { busy, error, run } = useAction();

  const save = (event: FormEvent) => {
    event.preventDefault();
    setStatus(undefined);
    void run(async () => {
      const answer = await passwordChecked(await api.POST('/api/v1/auth/email', { body: { newEmail: email.trim(), password } }));
      setEmail('');
      setPassword('');
      setStatus(`Email changed: you now sign in with ${answer.data.email}.`);
    });
  };

  return (
    <form className="card" aria-label="Change email" onSubmit={save}>
      <h3>Change email</h3>
      <label>
        New email
        <input type="email" autoComplete="email" required value={email} onChange={(event) => setEmail(event.currentTarget.value)} />
      </label>
      <label>
        Password
        <input type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.currentTarget.value)} />
      </label>
      <SaveRow busy={busy} label="Change email" error={error} status={status} />
    </form>
  );
}

/**
 * Deleting the account for good: says plainly what goes, offers the export first, and asks for
 * the email typed again and the password. Once deleted, the page is signed out (the session went
 * with the account) and shows the sign-in page.
 */
function DeleteAccountForm() {
  const { user } = useSession();
  const [typed, setTyped] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const id = useId();
  const confirmed = typed.trim().toLowerCase() === user.email.toLowerCase();

  const remove = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (!confirmed) throw new Error(`Type ${user.email} exactly to confirm which account to delete.`);
      await passwordChecked(await api.DELETE('/api/v1/users/me', { body: { password, confirmEmail: typed.trim() } }));
      // The account, its sessions and this page's session are gone: back to the sign-in page.
      signedOut();
    });
  };

  return (
    <form className="card" aria-label="Delete account" aria-describedby={`${id}-what`} onSubmit={remove}>
      <p id={`${id}-what`} className="warning">
        Deleting your account erases everything in it from this server, for good: memory, knowledge, personas, skills, vault secrets and
        their keys, tokens and sessions, connections, webhooks, devices, chats, approvals, exports and the audit log. It cannot be undone,
        and agents and apps using its tokens lose access at once.
      </p>
      <p>
        <Link href="/data">Export my data first</Link> <span className="muted">(an archive you can download and import elsewhere)</span>
      </p>
      {user.role === 'admin' ? (
        <p className="muted meta">You administer this server: your account can be deleted only once no other account remains.</p>
      ) : null}
      <label>
        Type your email, {user.email}, to confirm
        <input type="email" autoComplete="off" required value={typed} onChange={(event) => setTyped(event.currentTarget.value)} />
      </label>
      <label>
        Password
        <input type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.currentTarget.value)} />
      </label>
      <ActionError error={error} />
      <div className="row">
        <button type="submit" className="danger" disabled={busy || !confirmed}>
          {busy ? 'Deleting…' : 'Delete my account for good'}
        </button>
      </div>
    </form>
  );
}
