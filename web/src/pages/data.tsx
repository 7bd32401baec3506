import { useEffect, useRef, useState, type DragEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { downloadExport, sendArchive, type ImportStage } from '../api/archive';
import { ActionError, useAction } from '../components/actions';
import { PageHeader } from '../components/ui';

type Job = Schemas['ExportJob'];
type Report = Schemas['ImportReport'];

/** Export and import: the whole account out as one archive (with its progress), and an archive back in, its dry run shown before it is applied. */
export function DataPage() {
  return (
    <>
      <PageHeader title="Export and import" />
      <ExportSection />
      <ImportSection />
    </>
  );
}

function ExportSection() {
  const [password, setPassword] = useState('');
  const [withSecrets, setWithSecrets] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const [job, setJob] = useState<Job>();
  const action = useAction();

  // Follows a running export until it is done or failed.
  useEffect(() => {
    if (!job || job.status !== 'running') return;
    const timer = setTimeout(() => {
      void (async () => {
        try {
          setJob(unwrap(await api.GET('/api/v1/export/{id}', { params: { path: { id: job.id } } })).data);
        } catch {
          // A status read that failed (the network, a restart) is tried again: a new object re-runs this effect.
          setJob({ ...job });
        }
      })();
    }, 500);
    return () => clearTimeout(timer);
  }, [job]);

  const start = () =>
    action.run(async () => {
      const body = { password, ...(withSecrets ? { includeSecrets: true, passphrase } : {}) };
      setJob(unwrap(await api.POST('/api/v1/export', { body })).data);
      setPassword('');
    });

  return (
    <section aria-labelledby="export-heading" className="card stack">
      <h2 id="export-heading">Export everything</h2>
      <p className="muted">
        One archive of the whole account: memory, knowledge, personas, skills, identity and preferences as Markdown, and every record as JSON Lines. Tokens appear without their secrets.
      </p>
      <label>
        Your account password
        <input type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.currentTarget.value)} />
      </label>
      <label className="check">
        <input type="checkbox" checked={withSecrets} onChange={(event) => setWithSecrets(event.currentTarget.checked)} /> Include vault secrets, OAuth tokens and webhook secrets, encrypted
      </label>
      {withSecrets ? (
        <label>
          Passphrase for the secrets (at least 10 characters; keep it, nothing opens them without it)
          <input type="password" autoComplete="new-password" value={passphrase} onChange={(event) => setPassphrase(event.currentTarget.value)} />
        </label>
      ) : null}
      <div>
        <button type="button" disabled={action.busy || password === '' || job?.status === 'running'} onClick={() => void start()}>
          Start export
        </button>
      </div>
      <ActionError error={action.error} />
      {job ? <ExportProgress job={job} /> : null}
    </section>
  );
}

function ExportProgress({ job }: { job: Job }) {
  const download = useAction();
  if (job.status === 'running') {
    return (
      <p>
        <progress aria-label="Export progress" max={job.progress.total || 1} value={job.progress.done} /> {job.progress.done} of {job.progress.total} records
      </p>
    );
  }
  if (job.status !== 'done' || !job.downloadUrl) {
    return (
      <p className="error" role="alert">
        The export {job.status}: {job.error ?? 'start it again'}
      </p>
    );
  }
  const url = job.downloadUrl;
  return (
    <div className="stack">
      <p className="ok" role="status">
        The archive is ready ({Math.max(1, Math.round((job.sizeBytes ?? 0) / 1024))} KB){job.includesSecrets ? ', secrets encrypted with your passphrase' : ''}.
      </p>
      <div>
        <button type="button" disabled={download.busy} onClick={() => void download.run(() => downloadExport(url, `hearth-export-${job.createdAt.slice(0, 10)}.zip`))}>
          Download the archive
        </button>
      </div>
      <ActionError error={download.error} />
    </div>
  );
}

function ImportSection() {
  const [file, setFile] = useState<File>();
  const [passphrase, setPassphrase] = useState('');
  const [sent, setSent] = useState<ImportStage>();
  const [dryRun, setDryRun] = useState<Report>();
  const [applied, setApplied] = useState<Report>();
  const [over, setOver] = useState(false);
  const { error, run } = useAction();
  const input = useRef<HTMLInputElement>(null);

  const send = (chosen: File, asDryRun: boolean) =>
    run(async () => {
      setSent({ stage: 'sending', done: 0, total: chosen.size });
      try {
        const report = await sendArchive(chosen, { dryRun: asDryRun, passphrase }, setSent);
        if (asDryRun) setDryRun(report);
        else setApplied(report);
      } finally {
        setSent(undefined);
      }
    });

  const choose = (files: FileList | null) => {
    const chosen = files?.[0];
    if (!chosen) return;
    setFile(chosen);
    setDryRun(undefined);
    setApplied(undefined);
    void send(chosen, true);
    if (input.current) input.current.value = '';
  };

  return (
    <section aria-labelledby="import-heading" className="card stack">
      <h2 id="import-heading">Import an archive</h2>
      <label>
        Passphrase of the archive&apos;s secrets (if it has any)
        <input type="password" autoComplete="off" value={passphrase} onChange={(event) => setPassphrase(event.currentTarget.value)} />
      </label>
      <div
        className={over ? 'drop over' : 'drop'}
        onDragOver={(event: DragEvent) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event: DragEvent) => {
          event.preventDefault();
          setOver(false);
          choose(event.dataTransfer.files);
        }}
      >
        <p>Drop an archive here, or choose it. Nothing changes until you apply it: first you see what it would do.</p>
        <label className="file-pick">
          Choose an archive
          <input ref={input} type="file" accept=".zip,application/zip" onChange={(event) => choose(event.currentTarget.files)} />
        </label>
      </div>
      {sent ? (
        <div className="stack">
          <progress aria-label={sent.stage === 'sending' ? 'Sending the archive' : 'Applying the archive'} max={sent.total || 1} value={sent.done} />
          <p className="muted meta" role="status">
            {sent.stage === 'sending'
              ? `Sending the archive: ${Math.round(sent.done / 1024)} of ${Math.round(sent.total / 1024)} KB`
              : `Going through the archive: ${sent.done} of ${sent.total} records`}
          </p>
        </div>
      ) : null}
      <ActionError error={error} />
      {dryRun && !applied && file ? (
        <div className="stack">
          <h3>What importing {file.name} would do</h3>
          <ReportTable report={dryRun} />
          <div>
            <button type="button" disabled={sent !== undefined} onClick={() => void send(file, false)}>
              Apply the import
            </button>
          </div>
        </div>
      ) : null}
      {applied ? (
        <div className="stack">
          <p className="ok" role="status">
            Imported.
          </p>
          <ReportTable report={applied} />
        </div>
      ) : null}
    </section>
  );
}

function ReportTable({ report }: { report: Report }) {
  const rows = Object.entries(report.tables).filter(([, c]) => c.added + c.unchanged + c.conflicts + c.skipped > 0);
  return (
    <>
      <table>
        <thead>
          <tr>
            <th>Records</th>
            <th>Added</th>
            <th>Unchanged</th>
            <th>Conflicts</th>
            <th>Skipped</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([table, c]) => (
            <tr key={table}>
              <td className="mono">{table}</td>
              <td>{c.added}</td>
              <td>{c.unchanged}</td>
              <td>{c.conflicts}</td>
              <td>{c.skipped}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.issues.length > 0 ? (
        <ul>
          {report.issues.map((issue) => (
            <li key={`${issue.table}:${issue.id}`}>
              {issue.outcome}: {issue.table} {issue.id}: {issue.reason}
            </li>
          ))}
        </ul>
      ) : null}
      {report.notes.map((note) => (
        <p key={note} className="muted">
          {note}
        </p>
      ))}
    </>
  );
}
