import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { ConfirmButton } from '../../components/confirm';
import { Empty, Show, useLoad, When } from '../../components/ui';

type Provider = Schemas['OAuthProviderStatus'];

const PROVIDER_NAMES: Record<string, string> = { google: 'Google' };
const providerName = (provider: string) => PROVIDER_NAMES[provider] ?? provider;

const STATUS_WORDS: Record<Provider['status'], string> = {
  connected: 'connected',
  needs_reauth: 'needs reconnecting',
  not_connected: 'not connected',
};

/** Connected accounts (OAuth): their state, and connect, reconnect or disconnect. */
export function Accounts() {
  const providers = useLoad(async () => unwrap(await api.GET('/api/v1/oauth/status')).data);
  return (
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">Connected accounts</h2>
      <Show loaded={providers} what="Loading connected accounts">
        {(list) =>
          list.length === 0 ? (
            <Empty>This server offers no account to connect.</Empty>
          ) : (
            <ul className="cards">
              {list.map((provider) => (
                <li key={provider.provider}>
                  <ProviderCard provider={provider} onChanged={providers.reload} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function ProviderCard({ provider, onChanged }: { provider: Provider; onChanged: () => void }) {
  const connect = useAction();
  const name = providerName(provider.provider);
  // The API answers Hearth's own connect page, which asks for the password and goes on to the
  // provider's consent page; the browser leaves the console for it and comes back afterwards.
  const start = () =>
    void connect.run(async () => {
      const answer = unwrap(await api.GET('/api/v1/oauth/authorize/{service}', { params: { path: { service: provider.provider } } }));
      window.location.assign(answer.data.url);
    });
  const disconnect = async () => {
    unwrap(await api.POST('/api/v1/oauth/disconnect/{service}', { params: { path: { service: provider.provider } } }));
    onChanged();
  };
  return (
    <article className="card" aria-label={name}>
      <div className="row spread">
        <h3>{name}</h3>
        <span className={`tag status-${provider.status}`}>{STATUS_WORDS[provider.status]}</span>
      </div>
      {provider.status === 'needs_reauth' ? (
        <p className="warning">
          {name} refused the stored access{provider.lastError ? `: ${provider.lastError}` : ''}. Connect again to restore it.
        </p>
      ) : null}
      {provider.connected || provider.account ? (
        <dl className="facts">
          <dt>Account</dt>
          <dd>{provider.account ?? 'unknown'}</dd>
          <dt>Connected</dt>
          <dd>
            <When at={provider.connectedAt} />
          </dd>
          <dt>Access</dt>
          <dd>{provider.scopes.length ? provider.scopes.map((scope) => scope.replace(/^https:\/\/www\.googleapis\.com\/auth\//, '')).join(', ') : 'none'}</dd>
        </dl>
      ) : null}
      {!provider.configured ? (
        <p className="muted">The server has no {name} client credentials yet; the administrator sets them (see the README) before anyone can connect.</p>
      ) : (
        <div className="row">
          {provider.status !== 'connected' ? (
            <button type="button" className="primary" disabled={connect.busy} onClick={start}>
              {provider.status === 'needs_reauth' ? `Reconnect ${name}` : 'Connect'}
            </button>
          ) : null}
          {provider.status !== 'not_connected' ? (
            <ConfirmButton label="Disconnect" confirmLabel="Yes, disconnect" name={name} question={`Hearth forgets its access to your ${name} account; mail and files stop working until you connect again.`} onConfirm={disconnect} />
          ) : null}
        </div>
      )}
      <ActionError error={connect.error} />
    </article>
  );
}
