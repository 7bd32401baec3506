import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';

type VaultToken = Schemas['VaultToken'];

/** Vault: the owner's secrets for other services, stored encrypted; listed by hint only. */
export function VaultPage() {
  const [adding, setAdding] = useState(false);
  const entries = usePaged(async (cursor) => unwrap(await api.GET('/api/v1/vault/tokens', { params: { query: { cursor, limit: 50 } } })));
  return (
    <>
      <PageHeader title="Vault">
        {adding ? null : (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Store a secret
          </button>
        )}
      </PageHeader>
      <p className="muted">
        Secrets are encrypted at rest and shown here only by their last characters. Revealing a secret is reserved for the master token, so the console cannot show one.
      </p>
      {adding ? (
        <StoreEntry
          onStored={() => {
            setAdding(false);
            entries.reload();
          }}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      <section aria-labelledby="entries-heading">
        <h2 id="entries-heading">Stored secrets</h2>
        <Show loaded={entries} what="Loading the vault">
          {(list) =>
            list.length === 0 ? (
              <Empty>The vault is empty. Store an API key here and connectors can use it without anyone seeing it.</Empty>
            ) : (
              <ul className="cards">
                {list.map((entry) => (
                  <li key={entry.id}>
                    <VaultCard entry={entry} onDeleted={entries.reload} />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
        <LoadMore paged={entries} />
      </section>
    </>
  );
}

function VaultCard({ entry, onDeleted }: { entry: VaultToken; onDeleted: () => void }) {
  const remove = async () => {
    unwrap(await api.DELETE('/api/v1/vault/tokens/{id}', { params: { path: { id: entry.id } } }));
    onDeleted();
  };
  return (
    <article className="card" aria-label={entry.name}>
      <h3>
        {entry.name} <span className="tag mono">{entry.service}</span>
      </h3>
      <dl className="facts">
        <dt>Secret</dt>
        <dd className="mono">{entry.hint}</dd>
        <dt>Website</dt>
        <dd className="mono">{entry.websiteUrl}</dd>
        <dt>Stored</dt>
        <dd>
          <When at={entry.createdAt} />
        </dd>
        {entry.api ? (
          <>
            <dt>API</dt>
            <dd>
              {entry.api.status === 'found'
                ? `${entry.api.title ?? 'Found'}${entry.api.operationCount ? ` (${entry.api.operationCount} operations)` : ''}`
                : entry.api.status === 'none'
                  ? 'The site publishes no API description'
                  : `Discovery failed: ${entry.api.error ?? 'no reason given'}`}
            </dd>
          </>
        ) : null}
      </dl>
      <div className="row">
        <ConfirmButton label="Delete" name={entry.name} question={`"${entry.name}" is erased; connectors using it stop working.`} onConfirm={remove} />
      </div>
    </article>
  );
}

function StoreEntry({ onStored, onCancel }: { onStored: () => void; onCancel: () => void }) {
  const [form, setForm] = useState({ name: '', service: '', token: '', websiteUrl: '', discoverApi: false });
  const action = useAction();
  const id = useId();
  // The built-in services a secret can be stored for (not those that sign in with OAuth): offered
  // by id, and for one of them the website is the service's own, so the owner need not type it.
  const catalogue = useLoad(async () => unwrap(await api.GET('/api/v1/services', { params: { query: { source: 'catalogue' } } })).data.filter((service) => service.authKind !== 'oauth' && service.authKind !== 'none'), []);
  const builtIn = catalogue.data?.find((service) => service.id === form.service.trim().toLowerCase());
  const set = (key: 'name' | 'service' | 'token' | 'websiteUrl') => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      let websiteUrl = form.websiteUrl.trim();
      if (!websiteUrl && builtIn) {
        const service = unwrap(await api.GET('/api/v1/services/{service}', { params: { path: { service: builtIn.id } } })).data;
        websiteUrl = new URL(service.baseUrl).origin;
      }
      unwrap(await api.POST('/api/v1/vault/tokens', { body: { ...form, name: form.name.trim(), service: form.service.trim(), websiteUrl } }));
      onStored();
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Store a secret</h2>
      <div className="form-grid">
        <div>
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} required maxLength={100} value={form.name} onChange={set('name')} placeholder="e.g. GitHub personal token" />
        </div>
        <div>
          <label htmlFor={`${id}-service`}>Service</label>
          <input id={`${id}-service`} required maxLength={64} list={`${id}-services`} value={form.service} onChange={set('service')} placeholder="e.g. github" />
          <datalist id={`${id}-services`}>
            {(catalogue.data ?? []).map((service) => (
              <option key={service.id} value={service.id}>
                {service.name}
              </option>
            ))}
          </datalist>
        </div>
        <div>
          <label htmlFor={`${id}-url`}>Website</label>
          <input
            id={`${id}-url`}
            required={!builtIn}
            type="url"
            value={form.websiteUrl}
            onChange={set('websiteUrl')}
            aria-describedby={builtIn ? `${id}-url-hint` : undefined}
            placeholder="https://api.example.com"
          />
          {builtIn ? (
            <p id={`${id}-url-hint`} className="muted">
              Optional for {builtIn.name}, a built-in service: its own address is used unless you give another.
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor={`${id}-secret`}>Secret</label>
          <input id={`${id}-secret`} required type="password" autoComplete="off" value={form.token} onChange={set('token')} />
        </div>
      </div>
      <label className="inline">
        <input type="checkbox" checked={form.discoverApi} onChange={(event) => setForm({ ...form, discoverApi: event.currentTarget.checked })} /> Look for the
        site's API description and offer it as a service
      </label>
      <SubmitOrCancel label="Store" busy={action.busy} onCancel={onCancel} />
      <ActionError error={action.error} />
    </form>
  );
}
