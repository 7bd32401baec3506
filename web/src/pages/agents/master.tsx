import { useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ConfirmButton } from '../../components/confirm';
import { OnceSecret, Show, useLoad, When } from '../../components/ui';

/**
 * The master token: shown by its hint only, and replaced (never revoked) with the account
 * password, since a sign-in session alone must not be enough to take over every right.
 */
export function MasterToken() {
  const master = useLoad(async () => unwrap(await api.GET('/api/v1/tokens', { params: { query: { kind: 'master', limit: 5 } } })).data);
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<string>();
  const passwordId = useId();
  const regenerate = async () => {
    const answer = unwrap(await api.POST('/api/v1/tokens/master/regenerate', { body: { password } }));
    setPassword('');
    setSecret(answer.data.token);
    master.reload();
  };
  return (
    <section aria-labelledby="master-heading">
      <h2 id="master-heading">Master token</h2>
      <p className="muted">The master token holds every right, including revealing vault secrets. Keep it off agents: give them scoped tokens instead.</p>
      <Show loaded={master} what="Loading the master token">
        {(list) => {
          const token = list.find((item) => item.status === 'active') ?? list[0];
          return token ? (
            <dl className="facts">
              <dt>Token</dt>
              <dd className="mono">{token.hint}</dd>
              <dt>Created</dt>
              <dd>
                <When at={token.createdAt} />
              </dd>
              <dt>Last used</dt>
              <dd>
                <When at={token.lastUsedAt} />
              </dd>
            </dl>
          ) : (
            <p className="muted">No master token is active.</p>
          );
        }}
      </Show>
      {secret ? (
        <OnceSecret label="New master token" value={secret} onDone={() => setSecret(undefined)} />
      ) : (
        <div className="master-actions">
          <ConfirmButton
            label="Regenerate master token"
            question={
              <strong className="warning">
                The current master token stops working at once, everywhere. Every script, agent or daemon that uses it fails until you give it the new one, which is shown
                here only once.
              </strong>
            }
            confirmLabel="Yes, regenerate the master token"
            onConfirm={regenerate}
          >
            <div>
              <label htmlFor={passwordId}>Your account password</label>
              <input id={passwordId} type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.currentTarget.value)} />
            </div>
          </ConfirmButton>
        </div>
      )}
    </section>
  );
}
