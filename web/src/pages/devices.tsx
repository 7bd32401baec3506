import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';
import { AddPc } from './devices/add-pc';
import { DeviceWorkspace } from './devices/workspace';

type Device = Schemas['AfpDevice'];

const PRIVILEGE_WORDS: Record<Device['privilege'], string> = {
  read: 'read files',
  write: 'read and write files',
  exec: 'read and write files, run commands',
};

/** Devices: the owner's PCs running the daemon, and their files and commands. */
export function DevicesPage() {
  const devices = useLoad(async () => unwrap(await api.GET('/api/v1/afp/devices')).data);
  const [chosenId, setChosenId] = useState<string>();
  const chosen = devices.data?.find((device) => device.id === chosenId);
  return (
    <>
      <PageHeader title="Devices">
        <button type="button" onClick={devices.reload} disabled={devices.loading}>
          Refresh
        </button>
      </PageHeader>
      <section aria-labelledby="devices-heading">
        <h2 id="devices-heading">Your PCs</h2>
        <Show loaded={devices} what="Loading devices">
          {(list) =>
            list.length === 0 ? (
              <Empty>No PC is connected yet. Add one below: it takes a download and one command.</Empty>
            ) : (
              <ul className="cards">
                {list.map((device) => (
                  <li key={device.id}>
                    <DeviceCard
                      device={device}
                      chosen={device.id === chosenId}
                      onChoose={() => setChosenId(device.id === chosenId ? undefined : device.id)}
                      onRemoved={() => {
                        if (device.id === chosenId) setChosenId(undefined);
                        devices.reload();
                      }}
                    />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
      {chosen ? <DeviceWorkspace key={chosen.id} device={chosen} /> : null}
      <AddPc />
    </>
  );
}

function DeviceCard({ device, chosen, onChoose, onRemoved }: { device: Device; chosen: boolean; onChoose: () => void; onRemoved: () => void }) {
  const remove = async () => {
    unwrap(await api.DELETE('/api/v1/afp/devices/{deviceId}', { params: { path: { deviceId: device.id } } }));
    onRemoved();
  };
  return (
    <article className="card" aria-label={device.name}>
      <div className="row spread">
        <h3>{device.name}</h3>
        <span className={`tag status-${device.status}`}>{device.status}</span>
      </div>
      <dl className="facts">
        <dt>Last seen</dt>
        <dd>
          <When at={device.lastSeenAt} />
        </dd>
        <dt>Allows</dt>
        <dd>
          <span className="tag mono">{device.privilege}</span> {PRIVILEGE_WORDS[device.privilege]}
        </dd>
        <dt>Platform</dt>
        <dd className="mono">{device.platform}</dd>
        <dt>Folder</dt>
        <dd className="mono">{device.root}</dd>
        <dt>Daemon</dt>
        <dd className="mono">{device.version}</dd>
      </dl>
      <div className="row">
        <button type="button" aria-pressed={chosen} onClick={onChoose}>
          {chosen ? 'Close files' : 'Open files'}
        </button>
        <ConfirmButton
          label="Remove"
          confirmLabel="Yes, remove"
          name={device.name}
          question={`"${device.name}" is forgotten and its daemon stops; started again, it registers as a new device.`}
          onConfirm={remove}
        />
      </div>
    </article>
  );
}
