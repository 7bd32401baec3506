import { useId, type ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';

type Plan = Schemas['Plan'];

/** One measured quantity: what is used (null: not counted), and the limit (null: none). */
type Meter = { used: number | null; limit: number | null };

const formatBytes = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : bytes < 1024 ** 3 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${(bytes / 1024 ** 3).toFixed(1)} GB`;
const formatCount = (count: number) => count.toLocaleString();

function formatPrice(plan: Plan): string {
  if (plan.price === 0) return 'Free';
  const amount = new Intl.NumberFormat(undefined, { style: 'currency', currency: plan.currency.toUpperCase() }).format(plan.price / 100);
  return `${amount} a ${plan.interval}`;
}

/** Plan and usage: what the owner's plan allows, what is used, and how to change plans. */
export function PlanPage() {
  const me = useLoad(async () => unwrap(await api.GET('/api/v1/auth/me')).data);
  const plans = useLoad(async () => unwrap(await api.GET('/api/v1/billing/plans')).data);
  const usage = useLoad(async () => unwrap(await api.GET('/api/v1/billing/usage')).data);
  const currentId = usage.data?.plan.id ?? me.data?.planId;
  return (
    <>
      <PageHeader title="Plan and usage" />
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage</h2>
        <Show loaded={usage} what="Loading usage">
          {(data) => (
            <div className="card stack">
              <p>
                Your plan: <strong>{data.plan.name}</strong>
              </p>
              {data.limitsApply ? null : <p className="muted">No plan limits apply to your account on this server: nothing below can run out.</p>}
              <UsageMeter label="Memory entries" meter={data.usage.memoryEntries} format={formatCount} />
              <UsageMeter label="Knowledge base text" meter={data.usage.knowledgeBytes} format={formatBytes} />
              <UsageMeter label="Vault secrets" meter={data.usage.vaultTokens} format={formatCount} />
              <UsageMeter label="Devices" meter={data.usage.devices} format={formatCount} />
              <UsageMeter label="API requests today" meter={data.usage.apiRequestsPerDay} format={formatCount}>
                <span className="muted">
                  Resets <When at={data.usage.apiRequestsPerDay.resetsAt} />.
                </span>
              </UsageMeter>
            </div>
          )}
        </Show>
      </section>
      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading">Plans</h2>
        <Show loaded={plans} what="Loading plans">
          {(list) =>
            list.length === 0 ? (
              <Empty>This server offers no plans.</Empty>
            ) : (
              <ul className="cards plans">
                {list.map((plan) => (
                  <li key={plan.id}>
                    <PlanCard plan={plan} current={plan.id === currentId} />
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

function UsageMeter({ label, meter, format, children }: { label: string; meter: Meter; format: (value: number) => string; children?: ReactNode }) {
  const id = useId();
  const used = meter.used === null ? 'not counted' : format(meter.used);
  const words = meter.limit === null ? `${used} (unlimited)` : `${used} of ${format(meter.limit)}`;
  const full = meter.limit !== null && meter.used !== null && meter.used >= meter.limit;
  const measured = meter.limit !== null && meter.used !== null;
  return (
    <div className="usage">
      <div className="row spread">
        {measured ? <label htmlFor={id}>{label}</label> : <strong>{label}</strong>}
        <span className={full ? 'warning' : undefined}>{words}</span>
      </div>
      {!measured || meter.limit === null || meter.used === null ? null : (
        <meter id={id} min={0} max={Math.max(meter.limit, 1)} low={meter.limit * 0.8} high={meter.limit * 0.95} optimum={0} value={Math.min(meter.used, meter.limit)} aria-valuetext={words}>
          {words}
        </meter>
      )}
      {children}
    </div>
  );
}

function PlanCard({ plan, current }: { plan: Plan; current: boolean }) {
  const action = useAction();
  const upgrade = () =>
    void action.run(async () => {
      const answer = unwrap(await api.POST('/api/v1/billing/checkout', { body: { planId: plan.id } }));
      window.location.assign(answer.data.url);
    });
  const limit = (value: number | null, format: (value: number) => string) => (value === null ? 'unlimited' : format(value));
  return (
    <article className={current ? 'card current-plan' : 'card'} aria-label={plan.name}>
      <div className="row spread">
        <h3>{plan.name}</h3>
        {current ? <span className="tag status-active">your plan</span> : null}
      </div>
      <p className="price">{formatPrice(plan)}</p>
      <dl className="facts">
        <dt>Memory entries</dt>
        <dd>{limit(plan.limits.memoryEntries, formatCount)}</dd>
        <dt>Knowledge base</dt>
        <dd>{limit(plan.limits.knowledgeBytes, formatBytes)}</dd>
        <dt>Vault secrets</dt>
        <dd>{limit(plan.limits.vaultTokens, formatCount)}</dd>
        <dt>Devices</dt>
        <dd>{limit(plan.limits.devices, formatCount)}</dd>
        <dt>Requests a day</dt>
        <dd>{limit(plan.limits.apiRequestsPerDay, formatCount)}</dd>
      </dl>
      {current || plan.price === 0 ? null : !plan.purchasable ? (
        <p className="muted">Payments are not set up on this server: the administrator can move your account to this plan.</p>
      ) : (
        <div className="row">
          <button type="button" className="primary" aria-label={`Upgrade to ${plan.name}`} disabled={action.busy} onClick={upgrade}>
            {action.busy ? 'Opening checkout…' : 'Upgrade'}
          </button>
        </div>
      )}
      <ActionError error={action.error} />
    </article>
  );
}
