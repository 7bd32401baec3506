import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SearchForm } from '../components/search-form';
import { MarkedText, MatchedBy, type ShownHit } from '../components/search-hit';
import { SearchStatusPanel, searchesByMeaning, useSearchStatus } from '../components/search-status';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';
import { Link, navigate, useQuery, withQuery } from '../router';
import { Uploader } from './knowledge/uploader';

type Summary = Schemas['KBDocumentSummary'];

const PAGE_SIZE = 25;
/** How many passages a search shows: the best ones, ranked; a person reads the first few. */
const SEARCH_LIMIT = 30;

/** A span of a document's text ([from, to) in UTF-16 code units), as a passage's offsets give it. */
interface Span {
  from: number;
  to: number;
}

/** The passage an address names (`from`, `to`), if it names one. */
function spanOf(query: URLSearchParams): Span | undefined {
  const from = Number(query.get('from') ?? NaN);
  const to = Number(query.get('to') ?? NaN);
  return Number.isInteger(from) && Number.isInteger(to) && from >= 0 && to > from ? { from, to } : undefined;
}

/**
 * The knowledge base: documents agents may read and search, uploaded or written here. A search
 * answers passages, ranked as agents get them; each links to its document, opened at the
 * passage. The search and the open document are kept in the address, so the back button and a
 * link return to them.
 */
export function KnowledgePage() {
  const query = useQuery();
  const searched = (query.get('q') ?? '').trim();
  const shown = query.get('document') ?? undefined;
  const status = useSearchStatus();
  const [open, setOpen] = useState<string>();
  const [changed, setChanged] = useState(0);
  const stored = () => {
    setChanged((n) => n + 1);
    // New passages wait for their vectors: the status counts them and shows the progress.
    status.reload();
  };

  return (
    <>
      <PageHeader title="Knowledge base" />
      <SearchStatusPanel status={status} />
      <Uploader onUploaded={stored} />
      <WriteDocument
        onCreated={(document) => {
          stored();
          // The new document opens: in the list, or, while a search is shown, above it.
          if (searched) navigate(withQuery('/knowledge', { q: searched, document: document.id }));
          else setOpen(document.id);
        }}
      />
      {shown ? <DocumentView id={shown} passage={spanOf(query)} onClose={() => navigate(withQuery('/knowledge', { q: searched }))} /> : null}
      <section aria-labelledby="kb-documents" className="stack">
        <h2 id="kb-documents">{searched ? `Passages matching “${searched}”` : 'Documents'}</h2>
        <SearchForm label="Search the knowledge base" searched={searched} onSearch={(words) => navigate(withQuery('/knowledge', { q: words }))} />
        {searched ? (
          <KnowledgeSearch q={searched} byMeaning={searchesByMeaning(status.data)} changed={changed} />
        ) : (
          <DocumentList changed={changed} open={open} onOpen={setOpen} />
        )}
      </section>
    </>
  );
}

/** Every document, newest first, page by page (read again after an upload or a new document); one may be open. */
function DocumentList({ changed, open, onOpen }: { changed: number; open: string | undefined; onOpen: (id: string | undefined) => void }) {
  const documents = usePaged(
    async (cursor) => unwrap(await api.GET('/api/v1/brain/knowledge-base', { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    [changed],
  );
  const removed = (id: string) => {
    documents.update((list) => list.filter((item) => item.id !== id));
    if (open === id) onOpen(undefined);
  };
  return (
    <>
      <Show loaded={documents} what="Loading documents">
        {(list) =>
          list.length === 0 ? (
            <Empty>The knowledge base is empty. Upload a document above to start it.</Empty>
          ) : (
            <ul className="cards">
              {list.map((document) => (
                <li key={document.id}>
                  <DocumentCard
                    document={document}
                    isOpen={open === document.id}
                    onOpen={() => onOpen(document.id)}
                    onClose={() => onOpen(undefined)}
                    onDeleted={() => removed(document.id)}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <LoadMore paged={documents} />
    </>
  );
}

/**
 * A search of the knowledge base, ranked as agents get it (`GET /api/v1/search`, words and
 * meaning): the best passages, each with its document's title (a link that opens the document
 * at the passage), the headings it sits under, and its text with the words found marked.
 */
function KnowledgeSearch({ q, byMeaning, changed }: { q: string; byMeaning: boolean; changed: number }) {
  const passages = useLoad(async () => unwrap(await api.GET('/api/v1/search', { params: { query: { q, types: 'knowledge', limit: SEARCH_LIMIT } } })).data, [q, changed]);
  return (
    <Show loaded={passages} what="Searching the knowledge base">
      {(hits) =>
        hits.length === 0 ? (
          <Empty>
            No passage of the knowledge base matches “{q}”.{' '}
            {byMeaning
              ? 'Search looked for passages holding any of its words and for passages close to it in meaning. Try other words, or show all documents.'
              : 'Search looked for passages holding any of its words (search by meaning is not available right now). Try other words, or show all documents.'}
          </Empty>
        ) : (
          <ol className="cards" aria-label="Search results, best first">
            {hits.map((hit) => (
              <li key={hit.id}>
                <PassageCard hit={hit} q={q} />
              </li>
            ))}
          </ol>
        )
      }
    </Show>
  );
}

function PassageCard({ hit, q }: { hit: ShownHit; q: string }) {
  const document = hit.document;
  const title = document?.title ?? hit.title;
  const headings = document?.headingPath ?? [];
  return (
    <article className="card passage" aria-label={`Passage of ${title}${headings.length ? `, under ${headings.join(' › ')}` : ''}`}>
      <h3 className="doc-title">
        {document ? <Link href={withQuery('/knowledge', { q, document: document.id, from: document.start, to: document.end })}>{title}</Link> : title}
      </h3>
      {headings.length ? (
        <p className="muted meta heading-path" aria-label="Under the headings">
          {headings.join(' › ')}
        </p>
      ) : null}
      <blockquote className="hit-text">
        <MarkedText text={hit.text} marks={hit.marks} />
      </blockquote>
      {hit.matched === 'words' ? null : (
        <p className="meta">
          <MatchedBy matched={hit.matched} />
        </p>
      )}
    </article>
  );
}

/** A document opened from a search: its whole text, scrolled to the passage found and the passage marked. */
function DocumentView({ id, passage, onClose }: { id: string; passage: Span | undefined; onClose: () => void }) {
  const document = useLoad(async () => unwrap(await api.GET('/api/v1/brain/knowledge-base/{id}', { params: { path: { id } } })).data, [id]);
  const heading = useRef<HTMLHeadingElement>(null);
  const title = document.data?.title;
  // Keyboard and screen-reader focus follow the link that opened it.
  useEffect(() => {
    heading.current?.focus();
  }, [id, title]);
  return (
    <section className="card reader" aria-label={title ? `Document ${title}` : 'Document'}>
      <div className="row spread">
        <h2 ref={heading} tabIndex={-1} className="doc-title">
          {title ?? 'Document'}
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <Show loaded={document} what="Opening the document">
        {(doc) => (
          <>
            <p className="muted meta">
              {doc.source} · updated <When at={doc.updatedAt} />
            </p>
            <DocumentText title={doc.title} content={doc.content} passage={passage} />
          </>
        )}
      </Show>
    </section>
  );
}

/**
 * A document's text as stored, with a passage marked and scrolled into view when one is given
 * (offsets outside the text mark nothing: the document may have changed since the search).
 */
function DocumentText({ title, content, passage }: { title: string; content: string; passage?: Span }) {
  const marked = useRef<HTMLElement>(null);
  const span = passage && passage.to <= content.length ? passage : undefined;
  useEffect(() => {
    marked.current?.scrollIntoView({ block: 'center' });
  }, [span?.from, span?.to, content]);
  return (
    <pre className="document-text" tabIndex={0} aria-label={`Text of ${title}`}>
      {span ? (
        <>
          {content.slice(0, span.from)}
          <mark ref={marked} className="passage-mark" aria-label="The passage found">
            {content.slice(span.from, span.to)}
          </mark>
          {content.slice(span.to)}
        </>
      ) : (
        content
      )}
    </pre>
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
        {/* What the owner uploaded is the size they know; text sent as JSON has only its own. */}
        {document.source} · {document.fileBytes === null ? formatBytes(document.sizeBytes) : `${formatBytes(document.fileBytes)} file`}
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
          <DocumentText title={doc.title} content={doc.content} />
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
