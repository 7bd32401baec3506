import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { SubmitOrCancel } from '../../components/submit-or-cancel';
import { ActionError, useAction } from '../../components/actions';
import { ConfirmButton } from '../../components/confirm';
import { LoadMore, usePaged } from '../../components/paged';
import { Empty, Show, useLoad, When } from '../../components/ui';

type Connector = Schemas['Connector'];
type AuthType = Connector['authType'];

const AUTH_TYPES: Array<{ value: AuthType; label: string }> = [
  { value: 'bearer', label: 'Authorization: Bearer <secret>' },
  { value: 'header', label: 'A header of your choice' },
  { value: 'query', label: 'A query parameter' },
  { value: 'none', label: 'No credential' },
];

/** Connectors: the owner's own APIs, called with a vault secret Hearth attaches. */
export function Connectors({ onChanged }: { onChanged: () => void }) {
  const [adding, setAdding] = useState(false);
  const connectors = usePaged(async (cursor) => unwrap(await api.GET('/api/v1/connectors', { params: { query: { cursor, limit: 50 } } })));
  return (
    <section aria-labelledby="connectors-heading">
      <div className="row spread">
        <h2 id="connectors-heading">Connectors</h2>
        {adding ? null : (
          <button type="button" onClick={() => setAdding(true)}>
            Add a connector
          </button>
        )}
      </div>
      {adding ? (
        <ConnectorForm
          onCreated={() => {
            setAdding(false);
            connectors.reload();
            onChanged();
          }}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      <Show loaded={connectors} what="Loading connectors">
        {(list) =>
          list.length === 0 ? (
            <Empty>No connectors. Add one to let agents call an API of yours with a secret from the vault.</Empty>
          ) : (
            <ul className="cards">
              {list.map((connector) => (
                <li key={connector.id}>
                  <ConnectorCard
                    connector={connector}
                    onDeleted={() => {
                      connectors.reload();
                      onChanged();
                    }}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <LoadMore paged={connectors} />
    </section>
  );
}

function ConnectorCard({ connector, onDeleted }: { connector: Connector; onDeleted: () => void }) {
  const remove = async () => {
    unwrap(await api.DELETE('/api/v1/connectors/{id}', { params: { path: { id: connector.id } } }));
    onDeleted();
  };
  const carried = connector.authType === 'header' ? `header ${connector.headerName ?? ''}` : connector.authType === 'query' ? `query ?${connector.queryParam ?? ''}=` : connector.authType;
  return (
    <article className="card" aria-label={connector.name}>
      <div className="row spread">
        <h3 className="mono">{connector.name}</h3>
        {connector.connected ? null : <span className="tag status-needs_reauth">vault secret deleted</span>}
      </div>
      <dl className="facts">
        <dt>Address</dt>
        <dd className="mono">{connector.baseUrl}</dd>
        <dt>Credential</dt>
        <dd className="mono">{carried}</dd>
        <dt>Reads</dt>
        <dd className="mono">{connector.apiStyle === 'rpc' ? (connector.readMethods.length ? connector.readMethods.join(', ') : 'none: every call is a write') : 'GET and HEAD'}</dd>
        <dt>Created</dt>
        <dd>
          <When at={connector.createdAt} />
        </dd>
      </dl>
      <div className="row">
        <ConfirmButton label="Delete" name={connector.name} question={`Agents can no longer call "${connector.name}". The vault secret stays.`} onConfirm={remove} />
      </div>
    </article>
  );
}

/** The read methods as typed: split on commas and spaces, each without a leading slash. */
function readMethodsOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((method) => method.replace(/^\/+/, '')).filter((method) => method !== ''))];
}

function ConnectorForm({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const [form, setForm] = useState({
    name: '',
    baseUrl: '',
    authType: 'bearer' as AuthType,
    vaultTokenId: '',
    headerName: '',
    queryParam: '',
    apiStyle: 'rest' as Connector['apiStyle'],
    readMethods: '',
    password: '',
  });
  const vault = useLoad(async () => unwrap(await api.GET('/api/v1/vault/tokens', { params: { query: { limit: 200 } } })).data);
  const action = useAction();
  const id = useId();
  const set = (key: keyof typeof form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      unwrap(
        await api.POST('/api/v1/connectors', {
          body: {
            name: form.name.trim(),
            baseUrl: form.baseUrl.trim(),
            authType: form.authType,
            vaultTokenId: form.authType === 'none' ? undefined : form.vaultTokenId || undefined,
            headerName: form.authType === 'header' ? form.headerName.trim() : undefined,
            queryParam: form.authType === 'query' ? form.queryParam.trim() : undefined,
            apiStyle: form.apiStyle,
            readMethods: form.apiStyle === 'rpc' ? readMethodsOf(form.readMethods) : undefined,
            password: form.password || undefined,
          },
        }),
      );
      onCreated();
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Add a connector</h3>
      <div className="form-grid">
        <div>
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} required maxLength={64} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" value={form.name} onChange={set('name')} placeholder="e.g. my-api" />
        </div>
        <div>
          <label htmlFor={`${id}-url`}>Base address</label>
          <input id={`${id}-url`} required type="url" value={form.baseUrl} onChange={set('baseUrl')} placeholder="https://api.example.com/v2" />
        </div>
        <div>
          <label htmlFor={`${id}-auth`}>How the secret is sent</label>
          <select id={`${id}-auth`} value={form.authType} onChange={set('authType')}>
            {AUTH_TYPES.map((type) => (
              <option key={type.value} value={type.value}>
                {type.label}
              </option>
            ))}
          </select>
        </div>
        {form.authType === 'header' ? (
          <div>
            <label htmlFor={`${id}-header`}>Header name</label>
            <input id={`${id}-header`} required value={form.headerName} onChange={set('headerName')} placeholder="X-API-Key" />
          </div>
        ) : null}
        {form.authType === 'query' ? (
          <div>
            <label htmlFor={`${id}-query`}>Query parameter</label>
            <input id={`${id}-query`} required value={form.queryParam} onChange={set('queryParam')} placeholder="api_key" />
          </div>
        ) : null}
        <div>
          <label htmlFor={`${id}-style`}>Which calls only read</label>
          <select id={`${id}-style`} value={form.apiStyle} onChange={set('apiStyle')}>
            <option value="rest">GET and HEAD (most APIs)</option>
            <option value="rpc">Only the methods listed (APIs that act on GET, like Slack's)</option>
          </select>
        </div>
        {form.apiStyle === 'rpc' ? (
          <div>
            <label htmlFor={`${id}-reads`}>Read methods (paths after the base address, comma or space separated)</label>
            <input id={`${id}-reads`} value={form.readMethods} onChange={set('readMethods')} placeholder="conversations.list, users.info" />
          </div>
        ) : null}
        {form.authType !== 'none' ? (
          <div>
            <label htmlFor={`${id}-vault`}>Vault secret</label>
            <select id={`${id}-vault`} required value={form.vaultTokenId} onChange={set('vaultTokenId')}>
              <option value="">{vault.data ? (vault.data.length ? 'Choose a secret' : 'The vault is empty: store one first') : 'Loading…'}</option>
              {(vault.data ?? []).map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {entry.name} ({entry.service}, {entry.hint})
                </option>
              ))}
            </select>
          </div>
        ) : null}
      </div>
      {form.authType !== 'none' ? (
        <div>
          <label htmlFor={`${id}-password`}>Account password (only when the address is not on the secret's website)</label>
          <input id={`${id}-password`} type="password" autoComplete="current-password" value={form.password} onChange={set('password')} />
        </div>
      ) : null}
      {vault.error ? <ActionError error="The vault could not be read, so no secret can be chosen." /> : null}
      <SubmitOrCancel label="Add connector" busy={action.busy} onCancel={onCancel} />
      <ActionError error={action.error} />
    </form>
  );
}
