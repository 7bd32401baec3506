import { useRef, useState, type DragEvent } from 'react';
import { errorMessage, type Schemas } from '../../api/client';
import { uploadDocument } from '../../api/upload';

const ACCEPT = '.txt,.md,.markdown,.html,.htm,.pdf,.docx';
const MAX_BYTES = 10 * 1024 * 1024;

interface Upload {
  key: number;
  name: string;
  sent: number;
  total: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
}

/**
 * Files into the knowledge base, chosen or dropped; each upload shows its own progress bar and,
 * if it fails, the API's reason. Files go one after another, so one large file does not starve
 * the others of bandwidth and the bars fill in order.
 */
export function Uploader({ onUploaded }: { onUploaded: (document: Schemas['KBDocument']) => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const counter = useRef(0);
  const queue = useRef(Promise.resolve());

  const change = (key: number, patch: Partial<Upload>) => setUploads((list) => list.map((upload) => (upload.key === key ? { ...upload, ...patch } : upload)));

  const start = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const added: Array<{ upload: Upload; file: File }> = [...files].map((file) => ({
      file,
      upload: { key: ++counter.current, name: file.name, sent: 0, total: file.size, state: 'uploading' },
    }));
    // Finished uploads make room for the new ones; failed ones stay until dismissed.
    setUploads((list) => [...list.filter((upload) => upload.state !== 'done'), ...added.map((item) => item.upload)]);
    for (const { upload, file } of added) {
      if (file.size > MAX_BYTES) {
        change(upload.key, { state: 'failed', error: `${file.name} is larger than 10 MiB, the upload limit. Split it into smaller files.` });
        continue;
      }
      queue.current = queue.current.then(async () => {
        try {
          const document = await uploadDocument(file, (sent, total) => change(upload.key, { sent, total: total ?? file.size }));
          change(upload.key, { state: 'done', sent: file.size });
          onUploaded(document);
        } catch (caught) {
          change(upload.key, { state: 'failed', error: errorMessage(caught) });
        }
      });
    }
    if (input.current) input.current.value = '';
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    start(event.dataTransfer.files);
  };

  return (
    <section aria-labelledby="kb-upload" className="stack">
      <h2 id="kb-upload">Add documents</h2>
      <div
        className={over ? 'drop over' : 'drop'}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>Drop files here, or choose them.</p>
        <label className="file-pick">
          Upload a document
          <input ref={input} type="file" accept={ACCEPT} multiple onChange={(event) => start(event.currentTarget.files)} />
        </label>
        <p className="muted meta">.txt, .md, .html, .pdf or .docx, at most 10 MiB each. The text is extracted and stored; the title is the file name.</p>
      </div>
      {uploads.length > 0 ? (
        <ul className="uploads">
          {uploads.map((upload) => (
            <li key={upload.key}>
              <span className="upload-name">{upload.name}</span>
              {upload.state === 'uploading' ? (
                <>
                  <progress aria-label={`Uploading ${upload.name}`} max={upload.total || 1} value={upload.sent} />
                  <span className="muted meta">{percent(upload)}</span>
                </>
              ) : upload.state === 'done' ? (
                <span className="ok" role="status">
                  Uploaded
                </span>
              ) : (
                <>
                  <span className="error" role="alert">
                    {upload.error}
                  </span>
                  <button type="button" className="link" onClick={() => setUploads((list) => list.filter((item) => item.key !== upload.key))}>
                    Dismiss
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function percent(upload: Upload): string {
  if (!upload.total) return '';
  // All bytes sent: the server is extracting the text.
  if (upload.sent >= upload.total) return 'Processing…';
  return `${Math.floor((upload.sent / upload.total) * 100)} %`;
}
