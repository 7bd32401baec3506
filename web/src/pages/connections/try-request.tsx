import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { useLoad } from '../../components/ui';

type Result = Schemas['ServiceCallResult'];

/** Sends one GET through the service proxy, as an agent would, and shows the service's answer. */
export function TryRequest({ round }: { round: number }) {
  const services = useLoad(async () => unwrap(await api.GET('/api/v1/services')).data, [round]);
  const [service, setService] = useState('');
  const [path, setPath] = useState('/');
  const [result, setResult] = useState<Result>();
  const action = useAction();
  const id = useId();
  const chosen = service || services.data?.find((item) => item.connected)?.id || services.data?.[0]?.id || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    void action.run(async () => {
      const answer = unwrap(await api.POST('/api/v1/services/{service}/proxy', { params: { path: { service: chosen } }, body: { method: 'GET', path: path.trim() || '/' } }));
      setResult(answer.data);
    });
  };
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Try a request</h2>
      <form className="card stack" onSubmit={submit}>
        <div className="form-grid">
          <div>
            <label htmlFor={`${id}-service`}>Service</label>
            <select id={`${id}-service`} value={chosen} onChange={(event) => setService(event.currentTarget.value)}>
              {(services.data ?? []).map((item) => (
                <option key={item.id} value={item.id}>
                  {item.name}
                  {item.connected ? '' : ' (no credential)'}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={`${id}-method`}>Method</label>
            <select id={`${id}-method`} value="GET" disabled>
              <option value="GET">GET</option>
            </select>
          </div>
          <div>
            <label htmlFor={`${id}-path`}>Path</label>
            <input id={`${id}-path`} className="mono" value={path} onChange={(event) => setPath(event.currentTarget.value)} placeholder="/user" />
          </div>
        </div>
        <div className="row">
          <button type="submit" className="primary" disabled={action.busy || !chosen}>
            {action.busy ? 'Sending…' : 'Send'}
          </button>
        </div>
        {services.error ? <ActionError error="The services could not be listed." /> : null}
        <ActionError error={action.error} />
      </form>
      {result ? (
        <div className="stack" aria-live="polite">
          <p>
            The service answered <strong>{result.status}</strong>
            {result.status >= 400 ? ' (its own answer, passed on as it came)' : ''}.
          </p>
          <pre className="output" aria-label="Response body">
            {result.encoding === 'json' ? JSON.stringify(result.body, null, 2) : result.encoding === 'empty' ? '(empty)' : String(result.body)}
          </pre>
        </div>
      ) : null}
    </section>
  );
}
