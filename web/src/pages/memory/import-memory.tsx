import { useId, useState, type FormEvent } from 'react';
import { answerData, sessionHeaders, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { When } from '../../components/ui';

type Result = Schemas['MemoryImport'];
type Format = Result['format'];

const IMPORT_PATH = '/api/v1/memory/import';

/** The formats, as a person knows them: the tool, and what to give. */
const FORMATS: Array<{ value: Format; label: string; hint: string; accept: string }> = [
  { value: 'mem0', label: 'mem0', hint: 'Its JSON export (what get_all answers).', accept: '.json' },
  { value: 'mcp-memory', label: 'MCP memory server', hint: 'Its memory.json (JSON Lines of entities and relations).', accept: '.json,.jsonl' },
  { value: 'letta', label: 'Letta', hint: 'An agent file (.af): its memory blocks, pinned.', accept: '.af,.json' },
  { value: 'markdown', label: 'Obsidian or basic-memory', hint: 'The folder of notes as a .zip, or one .md note.', accept: '.zip,.md,.markdown' },
  { value: 'text', label: 'Pasted text', hint: 'What ChatGPT or Claude answer to “what do you remember about me”: one memory per line or bullet.', accept: '.txt,.md' },
];

/** Sends the import as a form (a file, or the pasted text as one), with the session's headers. */
async function sendImport(format: Format, upload: Blob, name: string, dryRun: boolean): Promise<Result> {
  const form = new FormData();
  form.append('format', format);
  form.append('dryRun', String(dryRun));
  form.append('file', upload, name);
  const response = await fetch(IMPORT_PATH, { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json', ...sessionHeaders() }, body: form });
  return answerData<Result>(response.status, response.statusText, await response.text());
}

/**
 * "Bring memory from another tool": a format, a file or pasted text, a preview of what would be
 * added and skipped (a dry run, which changes nothing), then the import itself, all or nothing.
 */
export function ImportMemory({ onImported }: { onImported: () => void }) {
  const id = useId();
  const [format, setFormat] = useState<Format>('text');
  const [file, setFile] = useState<File>();
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<Result>();
  const [done, setDone] = useState<Result>();
  const { busy, error, run, clearError } = useAction();
  const chosen = FORMATS.find((f) => f.value === format)!;
  const ready = file !== undefined || text.trim() !== '';

  const payload = (): [Blob, string] => (file ? [file, file.name] : [new Blob([text], { type: 'text/plain' }), 'pasted text']);
  const changed = () => {
    setPreview(undefined);
    setDone(undefined);
    clearError();
  };

  const previewImport = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      setDone(undefined);
      const [blob, name] = payload();
      setPreview(await sendImport(format, blob, name, true));
    });
  };

  const importNow = async () => {
    await run(async () => {
      const [blob, name] = payload();
      const result = await sendImport(format, blob, name, false);
      setPreview(undefined);
      setDone(result);
      setFile(undefined);
      setText('');
      onImported();
    });
  };

  return (
    <form className="card" onSubmit={(event) => void previewImport(event)} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Bring memory from another tool</h2>
      <label>
        From
        <select
          value={format}
          onChange={(event) => {
            setFormat(event.currentTarget.value as Format);
            changed();
          }}
        >
          {FORMATS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      <p className="muted">{chosen.hint} At most 10 MiB. You see what would be added before anything is.</p>
      <label>
        File
        <input
          key={`${format}-${done ? 'done' : 'open'}`}
          type="file"
          accept={chosen.accept}
          onChange={(event) => {
            setFile(event.currentTarget.files?.[0]);
            changed();
          }}
        />
      </label>
      {!file && (
        <label>
          Or paste the text
          <textarea
            value={text}
            rows={5}
            onChange={(event) => {
              setText(event.currentTarget.value);
              changed();
            }}
            placeholder={"- Lives in Lyon\n- Prefers short answers"}
          />
        </label>
      )}
      <div className="row">
        <button type="submit" disabled={busy || !ready}>
          {busy && !preview ? 'Reading…' : 'Preview'}
        </button>
        {preview && (
          <button type="button" className="primary" disabled={busy || preview.counts.entries === 0} onClick={() => void importNow()}>
            {busy ? 'Importing…' : `Import ${preview.counts.entries} ${preview.counts.entries === 1 ? 'entry' : 'entries'}`}
          </button>
        )}
      </div>
      <ActionError error={error} />
      {done && (
        <p role="status">
          Imported {done.counts.entries} {done.counts.entries === 1 ? 'entry' : 'entries'}
          {done.counts.skipped > 0 ? `, skipped ${done.counts.skipped}` : ''}.
        </p>
      )}
      {preview && <ImportPreview result={preview} />}
    </form>
  );
}

/** What a dry run found: the counts, the entries that would be added, what would be skipped and why. */
function ImportPreview({ result }: { result: Result }) {
  const { counts } = result;
  return (
    <section aria-label="Import preview" className="stack">
      <p role="status">
        Would add {counts.entries} {counts.entries === 1 ? 'entry' : 'entries'}; skip {counts.skipped}
        {counts.duplicates > 0 ? ` (${counts.duplicates} repeated)` : ''}
        {counts.split > 0 ? `; ${counts.split} long ${counts.split === 1 ? 'note' : 'notes'} split in parts` : ''}.
      </p>
      {result.entries.length > 0 && (
        <ul className="cards" aria-label="Entries to add">
          {result.entries.map((entry, i) => (
            <li key={i}>
              <p className="prose">{entry.content.length > 600 ? `${entry.content.slice(0, 600)}…` : entry.content}</p>
              <p className="muted">
                {entry.kind}
                {entry.pinned ? ', pinned' : ''} · <When at={entry.created_at} />{' '}
                {entry.tags.map((tag) => (
                  <span key={tag} className="tag">
                    {tag}
                  </span>
                ))}
              </p>
            </li>
          ))}
        </ul>
      )}
      {result.entriesTruncated && <p className="muted">The first {result.entries.length} are shown.</p>}
      {result.skipped.length > 0 && (
        <details>
          <summary>Skipped ({counts.skipped})</summary>
          <ul aria-label="Skipped">
            {result.skipped.map((skip, i) => (
              <li key={i}>
                <span className="mono">{skip.where}</span>: {skip.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
