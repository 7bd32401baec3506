import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SearchForm } from '../components/search-form';
import { Empty, PageHeader, Show, When } from '../components/ui';

type Entry = Schemas['MemoryEntry'];

const PAGE_SIZE = 25;

/** Memory: what agents (and the owner) wrote down, searchable, editable in place. */
export function MemoryPage() {
  const [searched, setSearched] = useState('');
  const entries = usePaged(
    async (cursor) =>
      unwrap(await api.GET('/api/v1/memory', { params: { query: searched ? { q: searched, limit: 100 } : { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    [searched],
  );


  return (
    <>
      <PageHeader title="Memory" />
      <AddMemory onAdded={(entry) => (searched ? entries.reload() : entries.update((list) => [entry, ...list]))} />
      <section aria-labelledby="memory-entries" className="stack">
        <h2 id="memory-entries">{searched ? `Entries matching “${searched}”` : 'Entries'}</h2>
        <SearchForm label="Search memory" searched={searched} onSearch={setSearched} />
        <Show loaded={entries} what="Loading memory">
          {(list) =>
            list.length === 0 ? (
              <Empty>{searched ? 'No entry contains every word of that search.' : 'Nothing is remembered yet. Add an entry above, or let an agent with the memory scope write one.'}</Empty>
            ) : (
              <ul className="cards">
                {list.map((entry) => (
                  <li key={entry.id}>
                    <MemoryCard
                      entry={entry}
                      onChanged={(changed) => entries.update((items) => items.map((item) => (item.id === changed.id ? changed : item)))}
                      onDeleted={() => entries.update((items) => items.filter((item) => item.id !== entry.id))}
                    />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
        <LoadMore paged={entries} />
      </section>
    </>
  );
}

function AddMemory({ onAdded }: { onAdded: (entry: Entry) => void }) {
  const [content, setContent] = useState('');
  const { busy, error, run } = useAction();
  const id = useId();

  const add = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const entry = unwrap(await api.POST('/api/v1/memory', { body: { content } })).data;
      setContent('');
      onAdded(entry);
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
      <ActionError error={error} />
    </form>
  );
}

function MemoryCard({ entry, onChanged, onDeleted }: { entry: Entry; onChanged: (entry: Entry) => void; onDeleted: () => void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(entry.content);
  const { busy, error, run, clearError } = useAction();
  const path = { params: { path: { id: entry.id } } };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      onChanged(unwrap(await api.PATCH('/api/v1/memory/{id}', { ...path, body: { content: draft } })).data);
      setEditing(false);
    });
  };

  return (
    <article className="card" aria-label={`Memory entry from ${new Date(entry.created_at).toLocaleString()}`}>
      {editing ? (
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
      ) : (
        <p className="prose">{entry.content}</p>
      )}
      <p className="muted meta">
        Created <When at={entry.created_at} />
        {entry.updatedAt !== entry.created_at ? (
          <>
            {' · '}updated <When at={entry.updatedAt} />
          </>
        ) : null}
      </p>
      <ActionError error={error} />
      {editing ? null : (
        <div className="row">
          <button
            type="button"
            onClick={() => {
              setDraft(entry.content);
              setEditing(true);
            }}
          >
            Edit
          </button>
          <ConfirmButton question="Delete this entry?" onConfirm={async () => {
            unwrap(await api.DELETE('/api/v1/memory/{id}', path));
            onDeleted();
          }} />
        </div>
      )}
    </article>
  );
}
