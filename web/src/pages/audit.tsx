import { useId, useMemo, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { LoadMore, usePaged } from '../components/paged';
import { saveFile } from '../components/download';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';

type Entry = Schemas['AuditEntry'];

interface Filters {
  action: string;
  from: string;
  to: string;
  tokenId: string;
}

const NO_FILTERS: Filters = { action: '', from: '', to: '', tokenId: '' };
const COLUMNS = ['createdAt', 'action', 'outcome', 'tokenId', 'tokenName', 'ip', 'userAgent', 'targetType', 'targetId', 'details'] as const;

/** A datetime-local value (the owner's local time) as the API's ISO time, or nothing. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** Audit log: security events, newest first, filtered on the server by action, token and time. */
export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const id = useId();
  const entries = usePaged(
    async (cursor) =>
      unwrap(
        await api.GET('/api/v1/audit/log', {
          params: {
            query: { cursor, limit: 100, action: filters.action.trim() || undefined, tokenId: filters.tokenId || undefined, from: iso(filters.from), to: iso(filters.to) },
          },
        }),
      ),
    [filters],
  );
  const names = useTokenNames();
  const rows = entries.data ?? [];

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
  };
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const exportJson = () => saveFile(`hearth-audit-${stamp}.json`, JSON.stringify(rows, null, 2), 'application/json');
  const exportCsv = () => saveFile(`hearth-audit-${stamp}.csv`, toCsv(rows, names), 'text/csv');

  // While other filters are read, the entries in view are the old filters': nothing to export yet.
  const exportable = rows.length > 0 && !entries.loading;
  return (
    <>
      <PageHeader title="Audit log">
        <button type="button" disabled={!exportable} onClick={exportCsv}>
          Export CSV
        </button>
        <button type="button" disabled={!exportable} onClick={exportJson}>
          Export JSON
        </button>
      </PageHeader>
      <form className="card stack" onSubmit={apply} aria-label="Filters">
        <div className="form-grid">
          <div>
            <label htmlFor={`${id}-action`}>Action</label>
            <input id={`${id}-action`} className="mono" value={draft.action} onChange={(event) => setDraft({ ...draft, action: event.currentTarget.value })} placeholder="token.* or auth.login" />
          </div>
          <div>
            <label htmlFor={`${id}-from`}>From</label>
            <input id={`${id}-from`} type="datetime-local" value={draft.from} onChange={(event) => setDraft({ ...draft, from: event.currentTarget.value })} />
          </div>
          <div>
            <label htmlFor={`${id}-to`}>Until</label>
            <input id={`${id}-to`} type="datetime-local" value={draft.to} onChange={(event) => setDraft({ ...draft, to: event.currentTarget.value })} />
          </div>
          <div>
            <label htmlFor={`${id}-token`}>Token</label>
            <select id={`${id}-token`} value={draft.tokenId} onChange={(event) => setDraft({ ...draft, tokenId: event.currentTarget.value })}>
              <option value="">Any token</option>
              {[...names].map(([value, name]) => (
                <option key={value} value={value}>
                  {name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="row">
          <button type="submit" className="primary">
            Apply
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
        <p className="muted">The exports hold the entries loaded so far; load more to include older ones.</p>
      </form>
      <Show loaded={entries} what="Loading the audit log">
        {() =>
          rows.length === 0 ? (
            <Empty>No entries match.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="audit">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Action</th>
                    {/* Kept at every width: who did it is what an audit log is read for. */}
                    <th scope="col">Token</th>
                    <th scope="col" className="optional">
                      Target
                    </th>
                    <th scope="col" className="optional">
                      From
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((entry) => (
                    <AuditRow key={entry.id} entry={entry} tokenName={entry.tokenId ? names.get(entry.tokenId) : undefined} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <p className="muted" aria-live="polite">
        {entries.data ? `${rows.length} of ${entries.data.length} loaded entries shown.` : ''}
      </p>
      <LoadMore paged={entries} />
    </>
  );
}

function AuditRow({ entry, tokenName }: { entry: Entry; tokenName: string | undefined }) {
  return (
    <tr>
      <td>
        <When at={entry.createdAt} />
      </td>
      <td className="mono">
        {entry.action} <span className={`tag outcome-${entry.outcome}`}>{entry.outcome}</span>
        {entry.details && Object.keys(entry.details).length ? (
          <details>
            <summary>Details</summary>
            <pre className="output">{JSON.stringify(entry.details, null, 2)}</pre>
          </details>
        ) : null}
      </td>
      <td>{entry.tokenId ? (tokenName ?? <span className="mono">{entry.tokenId}</span>) : <span className="muted">none</span>}</td>
      <td className="optional mono">{entry.targetType ? `${entry.targetType} ${entry.targetId ?? ''}` : '—'}</td>
      <td className="optional mono">{entry.ip ?? '—'}</td>
    </tr>
  );
}

/** The owner's token names by id (revoked ones and sessions too), to name the actors. */
function useTokenNames(): Map<string, string> {
  const tokens = useLoad(async () => {
    const [others, sessions] = await Promise.all([
      api.GET('/api/v1/tokens', { params: { query: { includeRevoked: true, limit: 200 } } }),
      api.GET('/api/v1/tokens', { params: { query: { kind: 'session', includeRevoked: true, limit: 200 } } }),
    ]);
    return [...unwrap(others).data, ...unwrap(sessions).data];
  });
  return useMemo(() => new Map((tokens.data ?? []).map((token) => [token.id, token.kind === 'session' ? `${token.name} (sign-in)` : token.name])), [tokens.data]);
}

function toCsv(rows: Entry[], names: Map<string, string>): string {
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    // Quoted always; a leading =, +, - or @ is prefixed so a spreadsheet does not run it as a formula.
    const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return `"${safe.replace(/"/g, '""')}"`;
  };
  const lines = rows.map((entry) =>
    COLUMNS.map((column) => cell(column === 'tokenName' ? (entry.tokenId ? names.get(entry.tokenId) : undefined) : entry[column])).join(','),
  );
  return [COLUMNS.join(','), ...lines].join('\r\n') + '\r\n';
}
