import { useCallback, useState, type ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { ApproveOrDeny } from '../components/approve-or-deny';
import { Empty, OnceSecret, PageHeader, Show, useLoad, When } from '../components/ui';
import { useLiveChanges } from '../live';

type Handshake = Schemas['Handshake'];
type Scope = NonNullable<Handshake['grantedScopes']>[number];
type AppRequest = Schemas['AuthorizationRequest'];

/** Home: what waits for the owner's decision, live. */
export function HomePage() {
  const handshakes = useLoad(async () => unwrap(await api.GET('/api/v1/handshakes', { params: { query: { status: 'pending', limit: 100 } } })).data);
  const reload = handshakes.reload;
  useLiveChanges(useCallback(() => reload(), [reload]), ['handshake.created', 'handshake.decided']);
  // A request just approved here stays on the page (with its token, if the owner wants to pass
  // it on) until the owner closes it, though the live list no longer holds it as pending.
  const [kept, setKept] = useState<Handshake[]>([]);
  const keep = useCallback((handshake: Handshake) => setKept((list) => [...list.filter((h) => h.handshakeId !== handshake.handshakeId), handshake]), []);
  const release = useCallback(
    (handshake: Handshake) => {
      setKept((list) => list.filter((h) => h.handshakeId !== handshake.handshakeId));
      reload();
    },
    [reload],
  );
  return (
    <>
      <PageHeader title="Home" />
      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Agents asking for access</h2>
        <Show loaded={handshakes} what="Loading requests">
          {(pending) => {
            const list = [...kept, ...pending.filter((h) => !kept.some((k) => k.handshakeId === h.handshakeId))];
            return list.length === 0 ? (
              <Empty>Nothing waits for you. When an agent asks for access, it appears here at once.</Empty>
            ) : (
              <ul className="cards">
                {list.map((handshake) => (
                  <li key={handshake.handshakeId}>
                    <HandshakeCard handshake={handshake} onApproved={keep} onDone={release} />
                  </li>
                ))}
              </ul>
            );
          }}
        </Show>
      </section>
      <ActionApprovals />
      <AppRequests />
    </>
  );
}

type Approval = Schemas['Approval'];
type HeldRequest = Schemas['HeldRequest'];
type HeldField = Schemas['HeldRequestField'];

/**
 * Requests the owner's policies held back (a token whose policy says "ask" for that kind of
 * action): each says in words what would happen; approving runs it once, as the token that asked.
 */
function ActionApprovals() {
  const approvals = useLoad(async () => unwrap(await api.GET('/api/v1/approvals', { params: { query: { status: 'pending', limit: 100 } } })).data);
  const reload = approvals.reload;
  useLiveChanges(useCallback(() => reload(), [reload]), ['approval.requested', 'approval.decided']);
  // A decision made here stays on the page with its outcome until the owner closes it.
  const [decided, setDecided] = useState<Approval[]>([]);
  const close = (id: string) => {
    setDecided((list) => list.filter((approval) => approval.id !== id));
    reload();
  };
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions waiting for your approval</h2>
      <Show loaded={approvals} what="Loading held actions">
        {(pending) => {
          const list = [...decided, ...pending.filter((approval) => !decided.some((d) => d.id === approval.id))];
          return list.length === 0 ? (
            <Empty>No action waits. When a token whose policy says “Ask me” tries one, it appears here at once.</Empty>
          ) : (
            <ul className="cards">
              {list.map((approval) => (
                <li key={approval.id}>
                  <ApprovalCard approval={approval} onDecided={(next) => setDecided((all) => [...all.filter((d) => d.id !== next.id), next])} onClose={() => close(approval.id)} />
                </li>
              ))}
            </ul>
          );
        }}
      </Show>
    </section>
  );
}

const OUTCOME: Record<Approval['status'], string> = {
  pending: 'Waiting',
  approved: 'Approved, running',
  executed: 'Approved and done',
  failed: 'Approved, but it failed',
  denied: 'Denied',
  expired: 'Expired',
};

function ApprovalCard({ approval, onDecided, onClose }: { approval: Approval; onDecided: (approval: Approval) => void; onClose: () => void }) {
  const action = useAction();
  const path = { params: { path: { id: approval.id } } };
  // The exact request is read before the owner may approve it: the words above it are a summary.
  const held = useLoad(async () => (approval.status === 'pending' ? unwrap(await api.GET('/api/v1/approvals/{id}', path)).data.request : null), [approval.id, approval.status]);
  const decide = (decision: 'approve' | 'deny') =>
    action.run(async () => {
      const answer =
        decision === 'approve'
          ? unwrap(await api.POST('/api/v1/approvals/{id}/approve', path))
          : unwrap(await api.POST('/api/v1/approvals/{id}/deny', path));
      onDecided(answer.data);
    });
  return (
    <article className="card" aria-label={`Action by ${approval.tokenName}`}>
      <h3>{approval.description}</h3>
      <dl className="facts">
        <dt>Token</dt>
        <dd>{approval.tokenName}</dd>
        <dt>Request</dt>
        <dd className="mono">
          {approval.method} {approval.path}
        </dd>
        <dt>Kind</dt>
        <dd className="mono">{approval.actionClass}</dd>
        <dt>Asked</dt>
        <dd>
          <When at={approval.createdAt} />
        </dd>
        {approval.status === 'pending' ? (
          <>
            <dt>Expires</dt>
            <dd>
              <When at={approval.expiresAt} />
            </dd>
          </>
        ) : null}
      </dl>
      {approval.status === 'pending' ? (
        <Show loaded={held} what="Loading the exact request">
          {(request) => (request ? <HeldRequestView request={request} /> : null)}
        </Show>
      ) : null}
      {approval.status === 'pending' ? (
        <div className="row">
          <button type="button" className="primary" disabled={action.busy || !held.data} onClick={() => decide('approve')}>
            Approve
          </button>
          <button type="button" className="danger" disabled={action.busy} onClick={() => decide('deny')}>
            Deny
          </button>
        </div>
      ) : (
        <div className="row">
          <p role="status" className={approval.status === 'executed' ? 'ok' : undefined}>
            {OUTCOME[approval.status]}
            {approval.resultStatus !== null ? ` (it answered ${approval.resultStatus})` : ''}.
          </p>
          <button type="button" className="link" onClick={onClose}>
            Done
          </button>
        </div>
      )}
      <ActionError error={action.error} />
    </article>
  );
}

/** A run of this many spaces or more is shown counted (`␠×200`): padding is how a tail is pushed out of sight. */
const SPACE_RUN = 3;
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2420\\]/u;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * A held value with what would not show written out, as the server's description writes it
 * (`\n`, `\u{202e}`, `␠×200`); each written-out part is marked, so that no literal text can pass
 * for one.
 */
function Visible({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let plain = '';
  const mark = (shown: string) => {
    if (plain) parts.push(plain);
    plain = '';
    parts.push(
      <mark key={parts.length} className="escape">
        {shown}
      </mark>,
    );
  };
  for (let i = 0; i < text.length; ) {
    if (text[i] === ' ') {
      let end = i;
      while (text[end] === ' ') end++;
      if (end - i >= SPACE_RUN) mark(`␠×${end - i}`);
      else plain += text.slice(i, end);
      i = end;
      continue;
    }
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    if (HIDDEN.test(char)) mark(NAMED[char] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`));
    else plain += char;
    i += char.length;
  }
  if (plain) parts.push(plain);
  return <>{parts}</>;
}

const count = (n: number) => n.toLocaleString('en-US');

function FieldValue({ field }: { field: HeldField }) {
  if (field.secret) return <span className="muted">secret, {count(field.length ?? 0)} characters, not shown</span>;
  if (field.type === 'object' || field.type === 'array') return <code>{field.type === 'object' ? '{}' : '[]'}</code>;
  if (field.type !== 'string') return <code>{String(field.value)}</code>;
  const text = String(field.value ?? '');
  const size =
    field.bytes !== null
      ? `${count(field.bytes)} bytes${field.truncated ? `; the first ${count(text.length)} of ${count(field.length ?? 0)} characters shown` : ''}`
      : field.truncated
        ? `${count(field.length ?? 0)} characters; the first ${count(text.length)} shown`
        : null;
  return (
    <>
      {text === '' && !field.truncated ? <span className="muted">empty</span> : <code className="held-value">
          <Visible text={text} />
        </code>}
      {size ? <span className="muted"> ({size})</span> : null}
    </>
  );
}

/** The exact request that runs if approved: method, path and every body field, nothing left out unsaid. */
function HeldRequestView({ request }: { request: HeldRequest }) {
  return (
    <section className="held-request" aria-label="The exact request">
      <h4>The exact request</h4>
      <p className="mono">
        {request.method} <Visible text={request.path} />
      </p>
      {request.bodyStatus === 'none' ? (
        <p className="muted">No body.</p>
      ) : request.bodyStatus === 'dropped' ? (
        <p className="muted">Its body is no longer kept.</p>
      ) : (
        <table className="held-fields">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {request.fields.map((field) => (
              <tr key={field.name}>
                <th scope="row" className="mono">
                  <Visible text={field.name} />
                </th>
                <td>
                  <FieldValue field={field} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {request.omittedFields > 0 ? <p className="muted">And {count(request.omittedFields)} more fields, not listed here.</p> : null}
    </section>
  );
}

/**
 * OAuth apps (MCP clients) whose consent page was sent to this console. Approving here sends the
 * waiting browser on to the app with its code; nothing secret is shown on this side.
 */
function AppRequests() {
  const requests = useLoad(async () => unwrap(await api.GET('/api/v1/authorization/requests')).data);
  const reload = requests.reload;
  useLiveChanges(useCallback(() => reload(), [reload]), ['authorization.requested', 'authorization.decided']);
  return (
    <section aria-labelledby="apps-heading">
      <h2 id="apps-heading">Apps asking to connect</h2>
      <Show loaded={requests} what="Loading app requests">
        {(pending) =>
          pending.length === 0 ? (
            <Empty>No app is waiting. When you choose “Send to my console” on an app's consent page, it appears here at once.</Empty>
          ) : (
            <>
              {/* Anyone who knows the owner's email can send a request here: the owner's own action is the proof. */}
              <p className="warning">Approve only if you started connecting this app yourself, just now.</p>
              <ul className="cards">
                {pending.map((request) => (
                  <li key={request.id}>
                    <AppRequestCard request={request} onDone={reload} />
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </Show>
    </section>
  );
}

function AppRequestCard({ request, onDone }: { request: AppRequest; onDone: () => void }) {
  const path = { params: { path: { id: request.id } } };
  const approve = async (scopes: string[]) => {
    unwrap(await api.POST('/api/v1/authorization/requests/{id}/approve', { ...path, body: { scopes: scopes as Scope[] } }));
    onDone();
  };
  const deny = async () => {
    unwrap(await api.POST('/api/v1/authorization/requests/{id}/deny', path));
    onDone();
  };

  return (
    <article className="card" aria-label={`App ${request.client.name}`}>
      <h3>{request.client.name} asks to connect</h3>
      <dl className="facts">
        <dt>Access sent to</dt>
        <dd className="mono">{request.client.redirectHost}</dd>
        <dt>Asks for</dt>
        <dd className="mono">{request.requestedScopes.join(', ')}</dd>
        <dt>Asked</dt>
        <dd>
          <When at={request.createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <When at={request.expiresAt} />
        </dd>
      </dl>
      <ApproveOrDeny requested={request.requestedScopes} onApprove={approve} onDeny={deny} />
    </article>
  );
}

function HandshakeCard({ handshake, onApproved, onDone }: { handshake: Handshake; onApproved: (handshake: Handshake) => void; onDone: (handshake: Handshake) => void }) {
  const [approved, setApproved] = useState<{ token: string; scopes: string[] }>();
  const [showToken, setShowToken] = useState(false);
  const path = { params: { path: { id: handshake.handshakeId } } };

  const approve = async (scopes: string[]) => {
    const answer = unwrap(await api.POST('/api/v1/handshakes/{id}/approve', { ...path, body: { scopes: scopes as Scope[] } }));
    onApproved(handshake);
    setApproved({ token: answer.data.token, scopes: answer.data.handshake.grantedScopes ?? [] });
  };
  const deny = async () => {
    unwrap(await api.POST('/api/v1/handshakes/{id}/deny', path));
    onDone(handshake);
  };

  if (approved) {
    return (
      <article className="card" aria-label={`Request from ${handshake.agentId}`}>
        <h3>{handshake.agentId} may now use: {approved.scopes.join(', ') || 'nothing'}</h3>
        <p>The agent collects its token by itself with the claim secret it was given when it asked.</p>
        {showToken ? (
          <OnceSecret label={`Token for ${handshake.agentId}`} value={approved.token} />
        ) : (
          <button type="button" onClick={() => setShowToken(true)}>
            The agent cannot collect it: show the token to pass on
          </button>
        )}
        <button type="button" className="link" onClick={() => onDone(handshake)}>
          Done
        </button>
      </article>
    );
  }

  return (
    <article className="card" aria-label={`Request from ${handshake.agentId}`}>
      <h3>
        <span className="mono">{handshake.agentId}</span> asks for access
      </h3>
      {handshake.message ? <blockquote>{handshake.message}</blockquote> : null}
      <dl className="facts">
        <dt>Asks for</dt>
        <dd className="mono">{handshake.requestedScopes.join(', ')}</dd>
        <dt>Asked</dt>
        <dd>
          <When at={handshake.createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <When at={handshake.expiresAt} />
        </dd>
        {handshake.clientIp ? (
          <>
            <dt>From</dt>
            <dd className="mono">{handshake.clientIp}</dd>
          </>
        ) : null}
      </dl>
      <ApproveOrDeny requested={handshake.requestedScopes} onApprove={approve} onDeny={deny} />
    </article>
  );
}
