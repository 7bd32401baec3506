import { useId, useRef, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { fromBase64, saveFile, toBase64 } from '../../components/download';
import { Empty, ErrorNote, Loading, useLoad, When } from '../../components/ui';

type Device = Schemas['AfpDevice'];
type Listing = Schemas['AfpDirectoryListing'];
type FileContent = Schemas['AfpFileContent'];

/** Uploads from the console are kept small: the API takes up to 10 MiB, carried as base64 JSON. */
const UPLOAD_LIMIT = 5 * 1024 * 1024;

const separatorOf = (device: Device) => (device.platform.startsWith('win') ? '\\' : '/');

function join(device: Device, dir: string, name: string): string {
  const separator = separatorOf(device);
  return dir.endsWith(separator) ? dir + name : dir + separator + name;
}

/** The folder above, never above the device's root (the daemon refuses anything outside it). */
function parentOf(device: Device, dir: string): string | undefined {
  const separator = separatorOf(device);
  if (dir === device.root || dir.length <= device.root.length) return undefined;
  const cut = dir.lastIndexOf(separator);
  if (cut <= 0) return separator;
  const parent = dir.slice(0, cut);
  return parent.length < device.root.length ? device.root : parent;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One device's files and, where it allows, its command line. */
export function DeviceWorkspace({ device }: { device: Device }) {
  const [dir, setDir] = useState(device.root);
  const [typed, setTyped] = useState(device.root);
  const listing = useLoad(async () => unwrap(await api.GET('/api/v1/afp/{deviceId}/ls', { params: { path: { deviceId: device.id }, query: { path: dir } } })).data, [dir]);
  const [file, setFile] = useState<FileContent>();
  const reader = useAction();
  const id = useId();
  const canWrite = device.privilege !== 'read';

  const open = (path: string) => {
    setDir(path);
    setTyped(path);
    setFile(undefined);
  };
  const read = (path: string) =>
    void reader.run(async () => {
      setFile(unwrap(await api.GET('/api/v1/afp/{deviceId}/read', { params: { path: { deviceId: device.id }, query: { path } } })).data);
    });
  const download = (path: string, name: string) =>
    void reader.run(async () => {
      const content = unwrap(await api.GET('/api/v1/afp/{deviceId}/read', { params: { path: { deviceId: device.id }, query: { path, encoding: 'base64' } } })).data;
      saveFile(name, fromBase64(content.content));
    });
  const go = (event: FormEvent) => {
    event.preventDefault();
    open(typed.trim() || device.root);
  };
  const parent = parentOf(device, dir);

  return (
    <section aria-labelledby={`${id}-heading`} className="workspace">
      <h2 id={`${id}-heading`}>Files on {device.name}</h2>
      {device.status === 'offline' ? <p className="warning">This PC is offline: its files can be reached once its daemon connects again.</p> : null}
      <form className="row" onSubmit={go}>
        <label htmlFor={`${id}-path`} className="grow">
          Folder
          <input id={`${id}-path`} className="mono" value={typed} onChange={(event) => setTyped(event.currentTarget.value)} />
        </label>
        <button type="submit">Open</button>
        {parent ? (
          <button type="button" onClick={() => open(parent)}>
            Up
          </button>
        ) : null}
      </form>
      {listing.data === undefined && !listing.error ? <Loading what="Listing the folder" /> : null}
      <ErrorNote error={listing.error} retry={listing.reload} />
      {listing.data && !listing.error ? <Entries device={device} listing={listing.data} onOpen={open} onRead={read} onDownload={download} /> : null}
      <ActionError error={reader.error} />
      {file ? (
        <div className="stack">
          <div className="row spread">
            <h3 className="mono file-name">{file.path}</h3>
            <button type="button" className="link" onClick={() => setFile(undefined)}>
              Close
            </button>
          </div>
          {file.encoding === 'base64' ? (
            <p className="muted">A binary file ({formatSize(file.size)}): use Download to save it.</p>
          ) : (
            <pre className="output" aria-label={`Content of ${file.path}`}>
              {file.content}
            </pre>
          )}
        </div>
      ) : null}
      {canWrite ? <Upload device={device} dir={dir} onUploaded={listing.reload} /> : <p className="muted">This PC allows reading only; it was started with --privilege read.</p>}
      {device.privilege === 'exec' ? <CommandBox device={device} cwd={dir} /> : null}
    </section>
  );
}

function Entries({
  device,
  listing,
  onOpen,
  onRead,
  onDownload,
}: {
  device: Device;
  listing: Listing;
  onOpen: (path: string) => void;
  onRead: (path: string) => void;
  onDownload: (path: string, name: string) => void;
}) {
  if (listing.entries.length === 0) return <Empty>This folder is empty.</Empty>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" className="optional">
              Size
            </th>
            <th scope="col" className="optional">
              Modified
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {listing.entries.map((entry) => {
            const path = join(device, listing.path, entry.name);
            return (
              <tr key={entry.name}>
                <td className="mono">
                  {entry.type === 'directory' ? (
                    <button type="button" className="link" onClick={() => onOpen(path)}>
                      {entry.name}/
                    </button>
                  ) : (
                    entry.name
                  )}
                </td>
                <td className="optional">{entry.type === 'directory' ? '—' : formatSize(entry.size)}</td>
                <td className="optional">
                  <When at={entry.modifiedAt} />
                </td>
                <td>
                  {entry.type === 'file' ? (
                    <span className="row">
                      <button type="button" aria-label={`Read ${entry.name}`} onClick={() => onRead(path)}>
                        Read
                      </button>
                      <button type="button" aria-label={`Download ${entry.name}`} onClick={() => onDownload(path, entry.name)}>
                        Download
                      </button>
                    </span>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {listing.truncated ? <p className="muted">Only the first entries of this very large folder are listed.</p> : null}
    </div>
  );
}

function Upload({ device, dir, onUploaded }: { device: Device; dir: string; onUploaded: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const action = useAction();
  const [done, setDone] = useState<string>();
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    void action.run(async () => {
      const chosen = input.current?.files?.[0];
      if (!chosen) throw new Error('Choose a file to upload first.');
      if (chosen.size > UPLOAD_LIMIT) throw new Error(`${chosen.name} is ${formatSize(chosen.size)}; the console uploads files up to ${formatSize(UPLOAD_LIMIT)}.`);
      const content = toBase64(new Uint8Array(await chosen.arrayBuffer()));
      const answer = unwrap(await api.POST('/api/v1/afp/{deviceId}/write', { params: { path: { deviceId: device.id } }, body: { path: join(device, dir, chosen.name), content, encoding: 'base64' } }));
      setDone(`${answer.data.created ? 'Uploaded' : 'Replaced'} ${answer.data.path} (${formatSize(answer.data.size)}).`);
      if (input.current) input.current.value = '';
      onUploaded();
    });
  };
  return (
    <form className="row" onSubmit={submit}>
      <label htmlFor={`${id}-file`} className="grow">
        Upload a file to this folder (an existing file of that name is replaced)
        <input id={`${id}-file`} ref={input} type="file" />
      </label>
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Uploading…' : 'Upload'}
      </button>
      {done ? (
        <p className="ok" role="status">
          {done}
        </p>
      ) : null}
      <ActionError error={action.error} />
    </form>
  );
}

function CommandBox({ device, cwd }: { device: Device; cwd: string }) {
  const [cmd, setCmd] = useState('');
  const [result, setResult] = useState<Schemas['AfpExecResult']>();
  const action = useAction();
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    void action.run(async () => {
      setResult(unwrap(await api.POST('/api/v1/afp/{deviceId}/exec', { params: { path: { deviceId: device.id } }, body: { cmd, cwd } })).data);
    });
  };
  return (
    <div className="stack">
      <h3>Run a command</h3>
      <form className="row" onSubmit={submit}>
        <label htmlFor={`${id}-cmd`} className="grow">
          Command (run in <span className="mono">{cwd}</span>, ended after 30 seconds)
          <input id={`${id}-cmd`} className="mono" required value={cmd} onChange={(event) => setCmd(event.currentTarget.value)} />
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Running…' : 'Run'}
        </button>
      </form>
      <ActionError error={action.error} />
      {result ? (
        <div className="stack" aria-live="polite">
          <p>
            {result.exitCode === null ? `Ended by ${result.signal ?? 'a signal'}` : `Exit code ${result.exitCode}`} in {result.durationMs} ms
            {result.truncated ? ' (output cut at 1 MiB)' : ''}.
          </p>
          <h4>stdout</h4>
          <pre className="output" aria-label="Standard output">
            {result.stdout || '(empty)'}
          </pre>
          <h4>stderr</h4>
          <pre className="output" aria-label="Standard error">
            {result.stderr || '(empty)'}
          </pre>
        </div>
      ) : null}
    </div>
  );
}
