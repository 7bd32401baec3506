import { useCallback, useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { ActionError, ScopeTags, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { Empty, OnceSecret, PageHeader, ScopePicker, Show, When } from '../components/ui';
import { useLiveChanges } from '../live';
import { MasterToken } from './agents/master';
import { UseInClient } from './connect/use-in-client';
import { HandshakeHistory } from './agents/handshakes';
import { PolicyEditor } from './agents/policy';
import { MemoryTagsEditor, MemoryTagsField, MemoryTagsShown, memoryTagsOf } from './agents/memory-tags';

type Token = Schemas['Token'];
type Kind = Token['kind'];
type ScopeName = NonNullable<Schemas['Handshake']['grantedScopes']>[number];

/** What each kind of token is, in the owner's words. */
const KINDS: Record<Kind, { title: string; about: string }> = {
  api: { title: 'API tokens', about: 'Made here, for a script or an agent you configure yourself.' },
  // Named as the API names the kind (`handshake`), so that what the owner reads here is what a token's answer says.
  handshake: { title: 'Handshake tokens', about: 'Given to an agent when you approved its handshake (kind handshake).' },
  oauth: { title: 'OAuth tokens', about: 'Issued to an application that signed in through Hearth (an MCP client, for example).' },
  session: { title: 'Sign-in sessions', about: 'Browsers signed in to this console. Revoking one signs it out.' },
  master: { title: 'Master token', about: 'Holds every right, including vault reveal.' },
};

const FILTERS: Array<{ value: '' | Kind; label: string }> = [
  { value: '', label: 'All tokens (not sessions)' },
  { value: 'api', label: 'API tokens' },
  { value: 'handshake', label: 'Handshake tokens' },
  { value: 'oauth', label: 'OAuth tokens' },
  { value: 'session', label: 'Sign-in sessions' },
];

/** Agents and tokens: every credential that can act for the owner, and how to end it. */
export function AgentsPage() {
  const [kind, setKind] = useState<'' | Kind>('');
  const [includeRevoked, setIncludeRevoked] = useState(false);
  const [creating, setCreating] = useState(false);
  const [issued, setIssued] = useState<string>();
  const filterId = useId();
  const tokens = usePaged(
    async (cursor) =>
      unwrap(await api.GET('/api/v1/tokens', { params: { query: { limit: 50, cursor, kind: kind || undefined, includeRevoked: includeRevoked || undefined } } })),
    [kind, includeRevoked],
  );
  const reload = tokens.reload;
  useLiveChanges(useCallback(() => reload(), [reload]), ['token.created', 'token.revoked']);

  return (
    <>
      <PageHeader title="Agents and tokens">
        {creating ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setIssued(undefined);
              setCreating(true);
            }}
          >
            Create token
          </button>
        )}
      </PageHeader>

      {creating ? (
        <CreateToken
          onCreated={(secret) => {
            setIssued(secret);
            setCreating(false);
            reload();
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      {issued ? (
        <>
          <OnceSecret label="New token" value={issued} onDone={() => setIssued(undefined)} />
          <UseInClient token={issued} />
        </>
      ) : null}

      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Tokens</h2>
        <div className="row filters">
          <label htmlFor={filterId}>Show</label>
          <select id={filterId} value={kind} onChange={(event) => setKind(event.currentTarget.value as '' | Kind)}>
            {FILTERS.map((filter) => (
              <option key={filter.value} value={filter.value}>
                {filter.label}
              </option>
            ))}
          </select>
          <label className="inline">
            <input type="checkbox" checked={includeRevoked} onChange={(event) => setIncludeRevoked(event.currentTarget.checked)} /> Include revoked and expired
          </label>
        </div>
        <Show loaded={tokens} what="Loading tokens">
          {(list) => <TokenGroups tokens={list} onChanged={reload} />}
        </Show>
        <LoadMore paged={tokens} />
      </section>

      <MasterToken />
      <HandshakeHistory />
    </>
  );
}

/** Tokens under one heading per kind, in a fixed order. */
function TokenGroups({ tokens, onChanged }: { tokens: Token[]; onChanged: () => void }) {
  const shown = tokens.filter((token) => token.kind !== 'master');
  if (shown.length === 0) return <Empty>No tokens here. Create one for a script or an agent with "Create token".</Empty>;
  const order: Kind[] = ['api', 'handshake', 'oauth', 'session'];
  return (
    <>
      {order.map((kind) => {
        const group = shown.filter((token) => token.kind === kind);
        if (group.length === 0) return null;
        return (
          <section key={kind} aria-labelledby={`kind-${kind}`} className="token-group">
            <h3 id={`kind-${kind}`}>
              {KINDS[kind].title} <span className="muted">({group.length})</span>
            </h3>
            <p className="muted">{KINDS[kind].about}</p>
            <ul className="cards">
              {group.map((token) => (
                <li key={token.id}>
                  <TokenCard token={token} onChanged={onChanged} />
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </>
  );
}

function TokenCard({ token, onChanged }: { token: Token; onChanged: () => void }) {
  const [secret, setSecret] = useState<string>();
  const [editingPolicy, setEditingPolicy] = useState(false);
  const [editingTags, setEditingTags] = useState(false);
  const active = token.status === 'active';
  // A token the owner gave away: its policy and its memory tags bound what it may do; the owner's
  // own credentials (master token, sign-in sessions) answer to neither.
  const delegated = token.kind === 'api' || token.kind === 'handshake' || token.kind === 'oauth';
  const regenerate = async () => {
    const answer = unwrap(await api.POST('/api/v1/tokens/{id}/regenerate', { params: { path: { id: token.id } } }));
    setSecret(answer.data.token);
  };
  const revoke = async () => {
    unwrap(await api.DELETE('/api/v1/tokens/{id}', { params: { path: { id: token.id } } }));
    onChanged();
  };
  return (
    <article className="card" aria-label={token.name}>
      <div className="row spread">
        <h4 className="token-name">{token.name}</h4>
        <span className={`tag status-${token.status}`}>{token.status}</span>
      </div>
      <dl className="facts">
        <dt>Token</dt>
        <dd className="mono">{token.hint}</dd>
        <dt>Scopes</dt>
        <dd>{token.kind === 'session' ? <span className="muted">every scope (except vault reveal)</span> : <ScopeTags scopes={token.scopes} />}</dd>
        <dt>Memory</dt>
        <dd>
          <MemoryTagsShown token={token} />
        </dd>
        {token.kind === 'oauth' ? (
          <>
            <dt>Client</dt>
            <dd className="mono">{token.clientId ?? 'unknown'}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          <When at={token.createdAt} />
        </dd>
        <dt>Last used</dt>
        <dd>
          <When at={token.lastUsedAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <When at={token.expiresAt} empty="never" />
        </dd>
        {token.revokedAt ? (
          <>
            <dt>Revoked</dt>
            <dd>
              <When at={token.revokedAt} />
            </dd>
          </>
        ) : null}
      </dl>
      {secret ? <OnceSecret label="New token" value={secret} onDone={() => setSecret(undefined)} /> : null}
      {active ? (
        <div className="row">
          {delegated ? (
            <button type="button" aria-expanded={editingPolicy} aria-label={`Policy for ${token.name}`} onClick={() => setEditingPolicy((open) => !open)}>
              Policy
            </button>
          ) : null}
          {delegated ? (
            <button type="button" aria-expanded={editingTags} aria-label={`Memory tags for ${token.name}`} onClick={() => setEditingTags((open) => !open)}>
              Memory tags
            </button>
          ) : null}
          {token.kind === 'api' || token.kind === 'handshake' ? (
            <ConfirmButton
              label="Regenerate"
              name={token.name}
              question={`The current secret of "${token.name}" stops working at once; whatever uses it needs the new one.`}
              confirmLabel="Yes, regenerate"
              onConfirm={regenerate}
            />
          ) : null}
          <ConfirmButton
            label="Revoke"
            confirmLabel="Yes, revoke"
            name={token.name}
            question={token.kind === 'session' ? 'That browser is signed out at once.' : `"${token.name}" stops working at once. This cannot be undone.`}
            onConfirm={revoke}
          />
        </div>
      ) : null}
      {active && delegated && editingPolicy ? <PolicyEditor token={token} onClose={() => setEditingPolicy(false)} /> : null}
      {active && delegated && editingTags ? <MemoryTagsEditor token={token} onSaved={onChanged} onClose={() => setEditingTags(false)} /> : null}
    </article>
  );
}

function CreateToken({ onCreated, onCancel }: { onCreated: (secret: string) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [memoryTags, setMemoryTags] = useState('');
  const action = useAction();
  const nameId = useId();
  const expiresId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      if (scopes.length === 0) throw new Error('Choose at least one scope: a token without any could do nothing.');
      const answer = unwrap(
        await api.POST('/api/v1/tokens', {
          body: {
            name: name.trim(),
            scopes: scopes as ScopeName[],
            expiresAt: expires ? new Date(expires).toISOString() : undefined,
            memoryTags: memoryTagsOf(memoryTags) ?? undefined,
          },
        }),
      );
      onCreated(answer.data.token);
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-token-heading">
      <h2 id="create-token-heading">Create token</h2>
      <div>
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} value={name} required maxLength={100} onChange={(event) => setName(event.currentTarget.value)} placeholder="e.g. my laptop's agent" />
      </div>
      <ScopePicker value={scopes} onChange={setScopes} />
      <MemoryTagsField value={memoryTags} onChange={setMemoryTags} />
      <div>
        <label htmlFor={expiresId}>Expires (optional)</label>
        <input id={expiresId} type="datetime-local" value={expires} onChange={(event) => setExpires(event.currentTarget.value)} />
        <p className="muted">Leave empty for a token that works until you revoke it.</p>
      </div>
      <SubmitOrCancel label="Create" busy={action.busy} onCancel={onCancel} />
      <ActionError error={action.error} />
    </form>
  );
}
