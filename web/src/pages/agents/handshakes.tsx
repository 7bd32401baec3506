import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ScopeTags } from '../../components/actions';
import { LoadMore, usePaged } from '../../components/paged';
import { Empty, Show, When } from '../../components/ui';

type Status = 'approved' | 'denied';

/** The agents that asked for access, and what was decided; pending ones wait on the home page. */
export function HandshakeHistory() {
  const [status, setStatus] = useState<Status>('approved');
  const handshakes = usePaged(async (cursor) => unwrap(await api.GET('/api/v1/handshakes', { params: { query: { status, cursor, limit: 20 } } })), [status]);
  return (
    <section aria-labelledby="handshakes-heading">
      <h2 id="handshakes-heading">Agent handshakes</h2>
      <fieldset className="row segmented">
        <legend>Show</legend>
        {(['approved', 'denied'] as const).map((value) => (
          <label key={value} className="inline">
            <input type="radio" name="handshake-status" value={value} checked={status === value} onChange={() => setStatus(value)} /> {value === 'approved' ? 'Approved' : 'Denied or expired'}
          </label>
        ))}
      </fieldset>
      <Show loaded={handshakes} what="Loading handshakes">
        {(list) =>
          list.length === 0 ? (
            <Empty>No {status} handshakes yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">{status === 'approved' ? 'Granted' : 'Asked for'}</th>
                    <th scope="col">Decided</th>
                    <th scope="col" className="optional">
                      From
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((handshake) => (
                    <tr key={handshake.handshakeId}>
                      <td className="mono">
                        {handshake.agentId}
                        {handshake.revokedAt ? <span className="tag">revoked</span> : null}
                      </td>
                      <td>
                        <ScopeTags scopes={handshake.grantedScopes ?? handshake.requestedScopes} />
                      </td>
                      <td>
                        <When at={handshake.decidedAt} empty="—" />
                      </td>
                      <td className="optional mono">{handshake.clientIp ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <LoadMore paged={handshakes} />
    </section>
  );
}
