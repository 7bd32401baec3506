import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import type { operations } from '../api/schema';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { Empty, OnceSecret, PageHeader, Show, useLoad, When } from '../components/ui';
import { useLiveChanges } from '../live';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];
type EventType = operations['createWebhook']['requestBody']['content']['application/json']['events'][number];

/**
 * The event types a webhook can subscribe to, as the API's schema lists them. The check below
 * fails the type check when the API adds or drops one, so the form never offers a stale list.
 */
const EVENT_TYPES = [
  'handshake.created',
  'handshake.decided',
  'handshake.claimed',
  'handshake.revoked',
  'authorization.requested',
  'authorization.decided',
  'token.created',
  'token.revoked',
  'device.online',
  'device.offline',
  'oauth.needs_reauth',
  'login.failed',
  'approval.requested',
  'approval.decided',
  'webhook.paused',
  'plan.changed',
] as const satisfies readonly EventType[];
type Listed = (typeof EVENT_TYPES)[number];
const everyEventListed: [Exclude<EventType, Listed>] extends [never] ? true : never = true;
void everyEventListed;

/** Webhooks: addresses the server POSTs account events to, signed, with every delivery's attempts. */
export function WebhooksPage() {
  const webhooks = useLoad(async () => unwrap(await api.GET('/api/v1/webhooks')).data);
  // A webhook the circuit breaker pauses shows as paused at once, with its Resume button.
  useLiveChanges(webhooks.reload, ['webhook.paused']);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<string>();
  return (
    <>
      <PageHeader title="Webhooks">
        {adding ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setSecret(undefined);
              setAdding(true);
            }}
          >
            Add webhook
          </button>
        )}
      </PageHeader>
      <p className="muted">Hearth sends each event you choose to your address as a signed POST (Standard Webhooks), retrying while it fails.</p>
      {adding ? (
        <AddWebhook
          onAdded={(created) => {
            setSecret(created);
            setAdding(false);
            webhooks.reload();
          }}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      {secret ? <OnceSecret label="Signing secret" value={secret} onDone={() => setSecret(undefined)} /> : null}
      <section aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Your webhooks</h2>
        <Show loaded={webhooks} what="Loading webhooks">
          {(list) =>
            list.length === 0 ? (
              <Empty>No webhooks yet. Add one with "Add webhook" to be told of events as they happen.</Empty>
            ) : (
              <ul className="cards">
                {list.map((webhook) => (
                  <li key={webhook.id}>
                    <WebhookCard webhook={webhook} onChanged={webhooks.reload} />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
    </>
  );
}

function AddWebhook({ onAdded, onCancel }: { onAdded: (secret: string) => void; onCancel: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const action = useAction();
  const urlId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      if (events.length === 0) throw new Error('Choose at least one event: a webhook without any would be sent nothing.');
      const answer = unwrap(await api.POST('/api/v1/webhooks', { body: { url: url.trim(), events } }));
      onAdded(answer.data.secret);
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="add-webhook-heading">
      <h2 id="add-webhook-heading">Add webhook</h2>
      <div>
        <label htmlFor={urlId}>URL</label>
        <input id={urlId} type="url" required value={url} onChange={(event) => setUrl(event.currentTarget.value)} placeholder="https://example.com/hearth-events" />
      </div>
      <fieldset className="webhook-events">
        <legend>Events</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="inline">
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(event) => {
                const on = event.currentTarget.checked;
                setEvents((list) => (on ? [...list, type] : list.filter((listed) => listed !== type)));
              }}
            />{' '}
            <span className="mono">{type}</span>
          </label>
        ))}
      </fieldset>
      <SubmitOrCancel label="Add webhook" busy={action.busy} onCancel={onCancel} />
      <ActionError error={action.error} />
    </form>
  );
}

function WebhookCard({ webhook, onChanged }: { webhook: Webhook; onChanged: () => void }) {
  const [showDeliveries, setShowDeliveries] = useState(false);
  // Bumped after a test event so that an open deliveries list reads again and shows it.
  const [sent, setSent] = useState(0);
  const action = useAction();
  const [tested, setTested] = useState(false);
  const sendTest = () =>
    void action.run(async () => {
      setTested(false);
      unwrap(await api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: webhook.id } } }));
      setTested(true);
      setShowDeliveries(true);
      setSent((n) => n + 1);
    });
  const setEnabled = (enabled: boolean) =>
    void action.run(async () => {
      unwrap(await api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { enabled } }));
      onChanged();
    });
  const resume = () =>
    void action.run(async () => {
      unwrap(await api.POST('/api/v1/webhooks/{id}/resume', { params: { path: { id: webhook.id } } }));
      onChanged();
    });
  const remove = async () => {
    unwrap(await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: webhook.id } } }));
    onChanged();
  };
  return (
    <article className="card" aria-label={webhook.url}>
      <div className="row spread">
        <h3 className="webhook-url mono">{webhook.url}</h3>
        <span className={`tag webhook-${webhook.status}`}>{webhook.status === 'active' ? 'enabled' : webhook.status}</span>
      </div>
      {webhook.status === 'paused' ? (
        <div className="warning stack" role="status">
          <p>
            Paused after {webhook.consecutiveFailures} failed {webhook.consecutiveFailures === 1 ? 'attempt' : 'attempts'} in a row: its endpoint kept
            failing, so Hearth stopped sending to it. Its
            deliveries wait.{' '}
            {webhook.pausedUntil ? (
              <>
                One delivery will be tried again <When at={webhook.pausedUntil} />; if it succeeds, sending resumes.
              </>
            ) : null}{' '}
            Fix the endpoint, then resume it to send the waiting deliveries now.
          </p>
          <div className="row">
            <button type="button" className="primary" disabled={action.busy} onClick={resume}>
              Resume
            </button>
          </div>
        </div>
      ) : null}
      <dl className="facts">
        <dt>Events</dt>
        <dd>
          {webhook.events.map((type) => (
            <span key={type} className="tag mono">
              {type}
            </span>
          ))}
        </dd>
        {webhook.status === 'active' && webhook.consecutiveFailures > 0 ? (
          <>
            <dt>Failing</dt>
            <dd>{webhook.consecutiveFailures} attempts in a row</dd>
          </>
        ) : null}
        <dt>Added</dt>
        <dd>
          <When at={webhook.createdAt} />
        </dd>
      </dl>
      <div className="row">
        <button type="button" disabled={action.busy || !webhook.enabled} onClick={sendTest}>
          Send a test event
        </button>
        <button type="button" disabled={action.busy} onClick={() => setEnabled(!webhook.enabled)}>
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries((open) => !open)}>
          Deliveries
        </button>
        <ConfirmButton name={webhook.url} question="Delete this webhook and its deliveries? Pending ones are never sent." onConfirm={remove} />
      </div>
      {tested ? (
        <p className="ok" role="status">
          Test event queued.
        </p>
      ) : null}
      <ActionError error={action.error} />
      {showDeliveries ? <Deliveries webhook={webhook} round={sent} /> : null}
    </article>
  );
}

/** A webhook's deliveries, newest first, each with its attempts. */
function Deliveries({ webhook, round }: { webhook: Webhook; round: number }) {
  const deliveries = usePaged(
    async (cursor) => unwrap(await api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: webhook.id }, query: { limit: 20, cursor } } })),
    [webhook.id, round],
  );
  return (
    <section className="deliveries stack" aria-label={`Deliveries to ${webhook.url}`}>
      <div className="row spread">
        <h4>Deliveries</h4>
        <button type="button" disabled={deliveries.loading} onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <Show loaded={deliveries} what="Loading deliveries">
        {(list) =>
          list.length === 0 ? (
            <Empty>Nothing sent yet. "Send a test event" sends one now.</Empty>
          ) : (
            <ul className="delivery-list">
              {list.map((delivery) => (
                <li key={delivery.id}>
                  <DeliveryItem delivery={delivery} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <LoadMore paged={deliveries} />
    </section>
  );
}

function DeliveryItem({ delivery }: { delivery: Delivery }) {
  return (
    <div className="delivery">
      <div className="row">
        <span className="mono">{delivery.eventType}</span>
        <span className={`tag delivery-${delivery.state}`}>{delivery.failureReason && delivery.attempts.length === 0 ? 'not sent' : delivery.state}</span>
        <When at={delivery.createdAt} />
        {delivery.state === 'pending' && delivery.nextAttemptAt ? (
          <span className="muted">
            next attempt <When at={delivery.nextAttemptAt} />
          </span>
        ) : null}
      </div>
      {delivery.failureReason ? <p className="warning">{delivery.failureReason}</p> : null}
      {delivery.attempts.length === 0 ? (
        delivery.failureReason ? null : <p className="muted">No attempt yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Attempts to deliver {delivery.eventType}</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Status</th>
                <th scope="col">Error</th>
                <th scope="col" className="optional">
                  Duration
                </th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt, index) => (
                // Attempts are only ever appended (oldest first), so the position names one.
                <tr key={index}>
                  <td>
                    <When at={attempt.attemptedAt} />
                  </td>
                  <td>
                    <span className={`tag outcome-${attempt.outcome === 'succeeded' ? 'success' : 'failure'}`}>{attempt.responseStatus ?? '—'}</span>
                  </td>
                  <td>{attempt.error ?? <span className="muted">none</span>}</td>
                  <td className="optional">{attempt.durationMs} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
