import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SearchForm } from '../components/search-form';
import { MarkedText, MatchedBy, type ShownHit } from '../components/search-hit';
import { SearchStatusPanel, searchesByMeaning, useSearchStatus } from '../components/search-status';
import { Empty, PageHeader, Show, useLoad, When } from '../components/ui';
import { navigate, useQuery, withQuery } from '../router';

type Entry = Schemas['MemoryEntry'];

const PAGE_SIZE = 25;
/** How many hits a search shows: the best ones, ranked; a person reads the first few. */
const SEARCH_LIMIT = 30;

/**
 * Memory: what agents (and the owner) wrote down, editable in place, and searched the way agents
 * search it. The words searched for are kept in the address, so a link or the back button
 * returns to a search.
 */
export function MemoryPage() {
  const searched = (useQuery().get('q') ?? '').trim();
  const status = useSearchStatus();
  const [added, setAdded] = useState<Entry>();

  return (
    <>
      <PageHeader title="Memory" />
      <SearchStatusPanel status={status} />
      <AddMemory
        onAdded={(entry) => {
          setAdded(entry);
          // A new entry waits for its vector: the status counts it and shows the progress.
          status.reload();
        }}
      />
      <section aria-labelledby="memory-entries" className="stack">
        <h2 id="memory-entries">{searched ? `Entries matching “${searched}”` : 'Entries'}</h2>
        <SearchForm label="Search memory" searched={searched} onSearch={(words) => navigate(withQuery('/memory', { q: words }))} />
        {searched ? <MemorySearch q={searched} byMeaning={searchesByMeaning(status.data)} added={added} /> : <MemoryList added={added} />}
      </section>
    </>
  );
}

/** Every entry, newest first, page by page; an entry added on this page comes first at once. */
function MemoryList({ added }: { added: Entry | undefined }) {
  const entries = usePaged(async (cursor) => unwrap(await api.GET('/api/v1/memory', { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })));
  const { update } = entries;
  useEffect(() => {
    if (added) update((list) => (list.some((entry) => entry.id === added.id) ? list : [added, ...list]));
  }, [added, update]);

  return (
    <>
      <Show loaded={entries} what="Loading memory">
        {(list) =>
          list.length === 0 ? (
            <Empty>Nothing is remembered yet. Add an entry above, or let an agent with the memory scope write one.</Empty>
          ) : (
            <ul className="cards">
              {list.map((entry) => (
                <li key={entry.id}>
                  <MemoryCard
                    id={entry.id}
                    entry={entry}
                    onChanged={(changed) => update((items) => items.map((item) => (item.id === changed.id ? changed : item)))}
                    onDeleted={() => update((items) => items.filter((item) => item.id !== entry.id))}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <LoadMore paged={entries} />
    </>
  );
}

interface Found {
  hit: ShownHit;
  /** The whole entry, for editing; missing only if it changed between the two reads. */
  entry: Entry | undefined;
}

/**
 * A search of memory, ranked as agents get it (`GET /api/v1/search`, words and meaning): each hit
 * shows the matching text with the words found marked. The entries themselves come from the
 * memory search of the same words (the same ranking), read at the same time, so that a hit can
 * be edited whole.
 */
function MemorySearch({ q, byMeaning, added }: { q: string; byMeaning: boolean; added: Entry | undefined }) {
  const found = useLoad(async (): Promise<Found[]> => {
    const [hits, entries] = await Promise.all([
      api.GET('/api/v1/search', { params: { query: { q, types: 'memory', limit: SEARCH_LIMIT } } }),
      api.GET('/api/v1/memory', { params: { query: { q, limit: SEARCH_LIMIT } } }),
    ]);
    const byId = new Map(unwrap(entries).data.map((entry) => [entry.id, entry]));
    return unwrap(hits).data.map((hit) => ({ hit, entry: byId.get(hit.id) }));
  }, [q, added]);
  // An edit changes the text and so what matches and where: the search is asked again. A
  // deleted entry just leaves the list.
  const { reload } = found;
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());

  return (
    <Show loaded={found} what="Searching memory">
      {(all) => {
        const list = all.filter(({ hit }) => !deleted.has(hit.id));
        return list.length === 0 ? (
          <Empty>
            Nothing in memory matches “{q}”.{' '}
            {byMeaning
              ? 'Search looked for entries holding any of its words and for entries close to it in meaning. Try other words, or show all entries.'
              : 'Search looked for entries holding any of its words (search by meaning is not available right now). Try other words, or show all entries.'}
          </Empty>
        ) : (
          <ol className="cards" aria-label="Search results, best first">
            {list.map(({ hit, entry }) => (
              <li key={hit.id}>
                <MemoryCard id={hit.id} entry={entry} hit={hit} onChanged={reload} onDeleted={() => setDeleted((ids) => new Set(ids).add(hit.id))} />
              </li>
            ))}
          </ol>
        );
      }}
    </Show>
  );
}

function AddMemory({ onAdded }: { onAdded: (entry: Entry) => void }) {
  const [content, setContent] = useState('');
  const [already, setAlready] = useState<Entry>();
  const { busy, error, run } = useAction();
  const id = useId();

  const add = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const answer = unwrap(await api.POST('/api/v1/memory', { body: { content } }));
      setContent('');
      // The same text as a current entry adds nothing: the answer is that entry.
      setAlready('duplicateOf' in answer ? answer.data : undefined);
      onAdded(answer.data);
    });
  };

  return (
    <form className="card" onSubmit={(event) => void add(event)} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Add to memory</h2>
      <label>
        New memory
        <textarea value={content} required rows={4} onChange={(event) => setContent(event.currentTarget.value)} placeholder="Markdown, e.g. “Prefers meetings after 10:00.”" />
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !content.trim()}>
          {busy ? 'Adding…' : 'Add memory'}
        </button>
      </div>
      {already ? (
        <p role="status">
          Already in memory: nothing was added. The entry has now been written {already.seenCount} times.
        </p>
      ) : null}
      <ActionError error={error} />
    </form>
  );
}

/**
 * One memory entry: its text (for a search hit, the matching text with the words found marked),
 * when it was written, and its edit and delete actions. Editing needs the whole entry.
 */
function MemoryCard({ id, entry, hit, onChanged, onDeleted }: { id: string; entry: Entry | undefined; hit?: ShownHit; onChanged: (entry: Entry) => void; onDeleted: () => void }) {
  const [editing, setEditing] = useState(false);
  const [whole, setWhole] = useState(false);
  const [draft, setDraft] = useState(entry?.content ?? '');
  const { busy, error, run, clearError } = useAction();
  const path = { params: { path: { id } } };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      onChanged(unwrap(await api.PATCH('/api/v1/memory/{id}', { ...path, body: { content: draft } })).data);
      setEditing(false);
    });
  };

  // A hit's text is bounded: the whole entry may be longer.
  const excerpt = hit !== undefined && entry !== undefined && entry.content !== hit.text;
  return (
    <article className="card" aria-label={entry ? `Memory entry from ${new Date(entry.created_at).toLocaleString()}` : 'Memory entry'}>
      {editing && entry ? (
        <form className="stack" onSubmit={(event) => void save(event)}>
          <label>
            Edit memory
            <textarea value={draft} rows={Math.min(20, Math.max(4, draft.split('\n').length + 1))} onChange={(event) => setDraft(event.currentTarget.value)} autoFocus />
          </label>
          <div className="row">
            <button type="submit" className="primary" disabled={busy || !draft.trim() || draft === entry.content}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setDraft(entry.content);
                setEditing(false);
                clearError();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : hit && !whole ? (
        <p className="prose hit-text">
          <MarkedText text={hit.text} marks={hit.marks} />
        </p>
      ) : (
        <p className="prose">{entry?.content ?? hit?.text}</p>
      )}
      {hit || entry ? (
        <p className="muted meta">
          {hit ? <MatchedBy matched={hit.matched} /> : null}
          {entry ? (
            <>
              Created <When at={entry.created_at} />
              {entry.updatedAt !== entry.created_at ? (
                <>
                  {' · '}updated <When at={entry.updatedAt} />
                </>
              ) : null}
            </>
          ) : null}
        </p>
      ) : null}
      <ActionError error={error} />
      {editing ? null : (
        <div className="row">
          {excerpt ? (
            <button type="button" className="link" aria-expanded={whole} onClick={() => setWhole(!whole)}>
              {whole ? 'Show the matching part' : 'Show the whole entry'}
            </button>
          ) : null}
          {entry ? (
            <button
              type="button"
              onClick={() => {
                setDraft(entry.content);
                setEditing(true);
              }}
            >
              Edit
            </button>
          ) : null}
          <ConfirmButton question="Delete this entry?" onConfirm={async () => {
            unwrap(await api.DELETE('/api/v1/memory/{id}', path));
            onDeleted();
          }} />
        </div>
      )}
    </article>
  );
}
