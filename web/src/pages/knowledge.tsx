import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SearchForm } from '../components/search-form';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';
import { Uploader } from './knowledge/uploader';

type Summary = Schemas['KBDocumentSummary'];

const PAGE_SIZE = 25;

/** The knowledge base: documents agents may read and search, uploaded or written here. */
export function KnowledgePage() {
  const [searched, setSearched] = useState('');
  const [open, setOpen] = useState<string>();
  const documents = usePaged(
    async (cursor) =>
      unwrap(
        await api.GET('/api/v1/brain/knowledge-base', {
          params: { query: searched ? { q: searched, limit: 100 } : { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    [searched],
  );

  const removed = (id: string) => {
    documents.update((list) => list.filter((item) => item.id !== id));
    if (open === id) setOpen(undefined);
  };

  return (
    <>
      <PageHeader title="Knowledge base" />
      <Uploader onUploaded={() => documents.reload()} />
      <WriteDocument onCreated={(document) => {
        documents.reload();
        setOpen(document.id);
      }} />
      <section aria-labelledby="kb-documents" className="stack">
        <h2 id="kb-documents">{searched ? `Documents matching “${searched}”` : 'Documents'}</h2>
        <SearchForm label="Search the knowledge base" searched={searched} onSearch={setSearched} />
        <Show loaded={documents} what="Loading documents">
          {(list) =>
            list.length === 0 ? (
              <Empty>{searched ? 'No document matches every word of that search.' : 'The knowledge base is empty. Upload a document above to start it.'}</Empty>
            ) : (
              <ul className="cards">
                {list.map((document) => (
                  <li key={document.id}>
                    <DocumentCard
                      document={document}
                      isOpen={open === document.id}
                      onOpen={() => setOpen(document.id)}
                      onClose={() => setOpen(undefined)}
                      onDeleted={() => removed(document.id)}
                    />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
        <LoadMore paged={documents} />
      </section>
    </>
  );
}

function DocumentCard({ document, isOpen, onOpen, onClose, onDeleted }: { document: Summary; isOpen: boolean; onOpen: () => void; onClose: () => void; onDeleted: () => void }) {
  return (
    <article className="card" aria-label={document.title}>
      <h3 className="doc-title">
        <button type="button" className="link" aria-expanded={isOpen} onClick={isOpen ? onClose : onOpen}>
          {document.title}
        </button>
      </h3>
      {isOpen ? null : document.excerpt ? <p className="muted excerpt">{document.excerpt}</p> : null}
      <p className="muted meta">
        {document.source} · {formatBytes(document.sizeBytes)}
        {document.mimeType ? ` · ${document.mimeType}` : ''} · updated <When at={document.updatedAt} />
      </p>
      {isOpen ? <DocumentReader id={document.id} /> : null}
      <div className="row">
        {isOpen ? (
          <button type="button" onClick={onClose}>
            Close
          </button>
        ) : (
          <button type="button" onClick={onOpen}>
            Read
          </button>
        )}
        <ConfirmButton question="Delete this document?" onConfirm={async () => {
          unwrap(await api.DELETE('/api/v1/brain/knowledge-base/{id}', { params: { path: { id: document.id } } }));
          onDeleted();
        }} />
      </div>
    </article>
  );
}

/** One document's whole text, as stored (for uploads: the text extracted from the file). */
function DocumentReader({ id }: { id: string }) {
  const document = useLoad(async () => unwrap(await api.GET('/api/v1/brain/knowledge-base/{id}', { params: { path: { id } } })).data, [id]);
  return (
    <Show loaded={document} what="Opening the document">
      {(doc) => (
        <>
          <p className="muted meta">
            Created <When at={doc.createdAt} />
          </p>
          <pre className="document-text" tabIndex={0} aria-label={`Text of ${doc.title}`}>
            {doc.content}
          </pre>
        </>
      )}
    </Show>
  );
}

/** A document typed or pasted here rather than uploaded. */
function WriteDocument({ onCreated }: { onCreated: (document: Schemas['KBDocument']) => void }) {
  const [expanded, setExpanded] = useState(false);
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const { busy, error, run } = useAction();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const document = unwrap(await api.POST('/api/v1/brain/knowledge-base', { body: { title, content, source: 'console' } })).data;
      setTitle('');
      setContent('');
      setExpanded(false);
      onCreated(document);
    });
  };

  if (!expanded) {
    return (
      <div className="row">
        <button type="button" onClick={() => setExpanded(true)}>
          Write a document
        </button>
      </div>
    );
  }
  return (
    <form className="card" onSubmit={(event) => void create(event)} aria-label="Write a document">
      <label>
        Title
        <input value={title} required onChange={(event) => setTitle(event.currentTarget.value)} />
      </label>
      <label>
        Content
        <textarea className="mono" rows={10} value={content} required onChange={(event) => setContent(event.currentTarget.value)} />
      </label>
      <ActionError error={error} />
      <SubmitOrCancel label={busy ? 'Saving…' : 'Save document'} busy={busy} disabled={!title.trim() || !content} onCancel={() => setExpanded(false)} />
    </form>
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
