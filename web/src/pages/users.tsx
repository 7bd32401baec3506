import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { Empty, ErrorNote, PageHeader, Show, useLoad, When } from '../components/ui';
import { Link } from '../router';
import { useSession } from '../session';

type User = Schemas['User'];
type Plan = Schemas['Plan'];

/** How many accounts one page of the list asks for. */
const PAGE_SIZE = 50;

/**
 * Users: the administrator's page for the server's accounts: list them, create one, move one to
 * another plan, disable one and enable it again. Listed in the navigation for the administrator
 * alone; anyone else who opens the address is told whose page it is.
 */
export function UsersPage() {
  const { user } = useSession();
  if (user.role !== 'admin') {
    return (
      <>
        <PageHeader title="Users" />
        <p>
          Only the server&apos;s administrator manages its accounts. Your own account is under <Link href="/profile">Identity and preferences</Link>.
        </p>
      </>
    );
  }
  return <Accounts me={user} />;
}

function Accounts({ me }: { me: User }) {
  const users = usePaged(async (cursor) =>
    unwrap(await api.GET('/api/v1/users', { params: { query: cursor ? { limit: PAGE_SIZE, cursor } : { limit: PAGE_SIZE } } })),
  );
  const plans = useLoad(async () => unwrap(await api.GET('/api/v1/billing/plans')).data);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string>();
  const replace = (fresh: User) => users.update((items) => items.map((item) => (item.id === fresh.id ? fresh : item)));
  return (
    <>
      <PageHeader title="Users">
        {creating ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setCreated(undefined);
              setCreating(true);
            }}
          >
            Create user
          </button>
        )}
      </PageHeader>
      <p className="muted">
        Every account on this server. As its administrator you create accounts, move them between plans, and disable an account to shut it out: its
        sign-in and every one of its tokens are refused until you enable it again. Disabling deletes nothing.
      </p>
      {creating ? (
        <CreateUser
          onCreated={(user) => {
            setCreating(false);
            setCreated(`Account created for ${user.email}. Give them the password you chose; they can change it on their profile page.`);
            users.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      {created ? (
        <p className="ok" role="status">
          {created}
        </p>
      ) : null}
      <section aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Accounts</h2>
        {/* Without the plans each account still shows, with its plan id and no way to change it. */}
        <ErrorNote error={plans.error} retry={plans.reload} />
        <Show loaded={users} what="Loading accounts">
          {(list) =>
            list.length === 0 ? (
              <Empty>No accounts yet.</Empty>
            ) : (
              <ul className="cards">
                {list.map((user) => (
                  <li key={user.id}>
                    <UserCard user={user} self={user.id === me.id} plans={plans.data} onChanged={replace} />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
        <LoadMore paged={users} />
      </section>
    </>
  );
}

function CreateUser({ onCreated, onCancel }: { onCreated: (user: User) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const body = { email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) };
      onCreated(unwrap(await api.POST('/api/v1/users', { body })).data);
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Create user</h2>
      <div className="form-grid">
        <label>
          Email
          <input type="email" required maxLength={254} value={email} onChange={(event) => setEmail(event.currentTarget.value)} autoComplete="off" />
        </label>
        <label>
          Name <span className="muted">(optional)</span>
          <input maxLength={200} value={name} onChange={(event) => setName(event.currentTarget.value)} autoComplete="off" />
        </label>
        <label>
          Password
          <input
            type="password"
            required
            minLength={8}
            maxLength={1024}
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            autoComplete="new-password"
            aria-describedby={`${id}-password-hint`}
          />
        </label>
      </div>
      <p id={`${id}-password-hint`} className="muted">
        At least 8 characters. The account starts on the default plan; change it below once it is created.
      </p>
      <SubmitOrCancel label={action.busy ? 'Creating…' : 'Create user'} busy={action.busy} onCancel={onCancel} />
      <ActionError error={action.error} />
    </form>
  );
}

/** The plans to choose from: those the server offers, and the account's own should it no longer be one of them. */
function planChoices(plans: Plan[] | undefined, current: string): Array<{ id: string; name: string }> {
  const offered = (plans ?? []).map((plan) => ({ id: plan.id, name: plan.name }));
  return offered.some((plan) => plan.id === current) ? offered : [{ id: current, name: current }, ...offered];
}

function UserCard({ user, self, plans, onChanged }: { user: User; self: boolean; plans: Plan[] | undefined; onChanged: (user: User) => void }) {
  const action = useAction();
  const [planId, setPlanId] = useState(user.planId);
  const [notice, setNotice] = useState<string>();
  const planField = useId();
  const choices = planChoices(plans, user.planId);
  const planName = (id: string) => choices.find((plan) => plan.id === id)?.name ?? id;

  const savePlan = (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    void action.run(async () => {
      const fresh = unwrap(await api.PUT('/api/v1/users/{id}/plan', { params: { path: { id: user.id } }, body: { planId } })).data;
      onChanged(fresh);
      setNotice(`Plan changed to ${planName(fresh.planId)}.`);
    });
  };
  const setDisabled = async (disabled: boolean) => {
    setNotice(undefined);
    const fresh = unwrap(await api.PUT('/api/v1/users/{id}/status', { params: { path: { id: user.id } }, body: { disabled } })).data;
    onChanged(fresh);
    setNotice(
      disabled
        ? `${fresh.email} is disabled: signed out everywhere, and none of its tokens works.`
        : `${fresh.email} is enabled again: its sign-in and the tokens it had work again.`,
    );
  };

  return (
    <article className={user.disabled ? 'card user-disabled' : 'card'} aria-label={user.email}>
      <div className="row spread">
        <h3 className="user-name">{user.name ?? user.email}</h3>
        <span>
          {user.role === 'admin' ? <span className="tag">administrator</span> : null}
          {self ? <span className="tag">you</span> : null}
          <span className={user.disabled ? 'tag status-disabled' : 'tag status-active'}>{user.disabled ? 'disabled' : 'active'}</span>
        </span>
      </div>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Created</dt>
        <dd>
          <When at={user.createdAt} />
        </dd>
        {user.disabledAt ? (
          <>
            <dt>Disabled</dt>
            <dd>
              <When at={user.disabledAt} />
            </dd>
          </>
        ) : null}
      </dl>
      <form className="row user-plan" onSubmit={savePlan} aria-label={`Plan of ${user.email}`}>
        <label htmlFor={planField}>Plan</label>
        <select id={planField} value={planId} disabled={plans === undefined} onChange={(event) => setPlanId(event.currentTarget.value)}>
          {choices.map((plan) => (
            <option key={plan.id} value={plan.id}>
              {plan.name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={action.busy || planId === user.planId}>
          Change plan
        </button>
      </form>
      {self ? (
        <p className="muted">Your own account cannot be disabled: you are the administrator, and nobody could enable it again.</p>
      ) : user.disabled ? (
        <ConfirmButton
          label="Enable"
          confirmLabel="Yes, enable"
          danger={false}
          name={user.email}
          question={`Enable ${user.email}? Its sign-in and the tokens and sessions it had (unless revoked or expired) work again.`}
          onConfirm={() => setDisabled(false)}
        />
      ) : (
        <ConfirmButton
          label="Disable"
          confirmLabel="Yes, disable"
          name={user.email}
          question={`Disable ${user.email}? Its sign-in, sessions and every one of its tokens are refused at once, until you enable it again.`}
          onConfirm={() => setDisabled(true)}
        />
      )}
      {notice ? (
        <p className="ok" role="status">
          {notice}
        </p>
      ) : null}
      <ActionError error={action.error} />
    </article>
  );
}
