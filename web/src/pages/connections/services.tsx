import { api, unwrap } from '../../api/client';
import { Empty, Show, useLoad } from '../../components/ui';

/** Every service the owner's agents can call through Hearth, and whether it has a credential. */
export function Services({ round }: { round: number }) {
  const services = useLoad(async () => unwrap(await api.GET('/api/v1/services')).data, [round]);
  return (
    <section aria-labelledby="services-heading">
      <h2 id="services-heading">Services</h2>
      <Show loaded={services} what="Loading services">
        {(list) =>
          list.length === 0 ? (
            <Empty>No services yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">Ready</th>
                    <th scope="col" className="optional">
                      Source
                    </th>
                    <th scope="col" className="optional">
                      Methods
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((service) => (
                    <tr key={service.id}>
                      <td>
                        <strong>{service.name}</strong> <span className="mono muted">{service.id}</span>
                        <div className="muted">{service.description}</div>
                      </td>
                      <td>{service.connected ? <span className="ok">yes</span> : <span className="muted">no credential</span>}</td>
                      <td className="optional">{service.source}</td>
                      <td className="optional">{service.methodsCount}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </section>
  );
}
