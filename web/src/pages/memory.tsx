import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { LoadMore, usePaged } from '../components/paged';
import { SearchForm } from '../components/search-form';
import type { ShownHit } from '../components/search-hit';
import { SearchStatusPanel, searchesByMeaning, useSearchStatus } from '../components/search-status';
import { Empty, PageHeader, Show, useLoad } from '../components/ui';
import { navigate, useQuery, withQuery } from '../router';
import { MemoryCard, type CardEvents } from './memory/entry';
import { apiFilters, filterQuery, FilterForm, hasFilters, useMemoryFilters, type Entry, type MemoryFilters } from './memory/filters';
import { ForgetAgent } from './memory/forget';
import { ImportMemory } from './memory/import-memory';
import { MemoryProfilePanel } from './memory/profile';

const PAGE_SIZE = 25;
/** How many hits a search shows: the best ones, ranked; a person reads the first few. */
const SEARCH_LIMIT = 30;

/**
 * Memory: what agents (and the owner) wrote down, and the owner's review of it. Each entry says
 * who wrote it, when, through which channel and from what; the list narrows by agent, channel,
 * kind, tag and pinned; one agent's entries can be forgotten at once. The search words and the
 * filters are kept in the address, so a link or the back button returns to the same view.
 *
 * The page is a column of sections; a new panel (the pinned profile, say) is one more section
 * here, reading the same filters and told of changes through `changed`.
 */
export function MemoryPage() {
  const query = useQuery();
  const searched = (query.get('q') ?? '').trim();
  // One entry named by a link (a chat reply's source), shown above the rest.
  const named = query.get('entry') ?? undefined;
  const filters = useMemoryFilters();
  const status = useSearchStatus();
  const [added, setAdded] = useState<Entry>();
  // Bumped when entries change in bulk (forgetting an agent): lists and counts read again.
  const [changed, setChanged] = useState(0);
  const authors = useLoad(async () => unwrap(await api.GET('/api/v1/memory/authors')).data, [changed, added]);
  // Forgetting is offered for agents: the owner's own entries (master token, login sessions) are deleted one by one.
  const ownTokens = new Set(authors.data?.flatMap((author) => (author.token && (author.token.kind === 'master' || author.token.kind === 'session') ? [author.token.id] : [])) ?? []);
  const show = (next: { q?: string; filters?: MemoryFilters }) =>
    navigate(withQuery('/memory', { q: next.q ?? searched, ...filterQuery(next.filters ?? filters) }));

  return (
    <>
      <PageHeader title="Memory" />
      {/* Read again when entries change in bulk; its own pins and moves refresh the lists below. */}
      {named ? <NamedEntry key={named} id={named} onClose={() => navigate(withQuery('/memory', { q: searched, ...filterQuery(filters) }))} /> : null}
      <MemoryProfilePanel key={changed} onChanged={() => setChanged((n) => n + 1)} />
      <SearchStatusPanel status={status} />
      <AddMemory
        onAdded={(entry) => {
          setAdded(entry);
          // A new entry waits for its vector: the status counts it and shows the progress.
          status.reload();
        }}
      />
      <ImportMemory onImported={() => setChanged((n) => n + 1)} />
      <section aria-labelledby="memory-entries" className="stack">
        <h2 id="memory-entries">{searched ? `Entries matching “${searched}”` : 'Entries'}</h2>
        <SearchForm label="Search memory" searched={searched} onSearch={(words) => show({ q: words })} />
        <FilterForm filters={filters} authors={authors.data} onChange={(next) => show({ filters: next })} />
        {filters.author && !ownTokens.has(filters.author) ? (
          <ForgetAgent
            key={filters.author}
            tokenId={filters.author}
            author={authors.data?.find((author) => author.token?.id === filters.author)}
            onForgotten={() => setChanged((n) => n + 1)}
          />
        ) : null}
        {searched ? (
          <MemorySearch q={searched} filters={filters} byMeaning={searchesByMeaning(status.data)} added={added} changed={changed} />
        ) : (
          <MemoryList filters={filters} added={added} changed={changed} />
        )}
      </section>
    </>
  );
}

/** The entries passing the filters, newest first, page by page; an entry added on this page comes first at once. */
function MemoryList({ filters, added, changed }: { filters: MemoryFilters; added: Entry | undefined; changed: number }) {
  const entries = usePaged(
    async (cursor) => unwrap(await api.GET('/api/v1/memory', { params: { query: { limit: PAGE_SIZE, ...apiFilters(filters), ...(cursor ? { cursor } : {}) } } })),
    [JSON.stringify(filters), changed],
  );
  const { update } = entries;
  useEffect(() => {
    // Only into the unfiltered list: a filtered one may not hold it.
    if (added && !hasFilters(filters)) update((list) => (list.some((entry) => entry.id === added.id) ? list : [added, ...list]));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [added, update]);
  const eventsOf = (entry: Entry): CardEvents => ({
    onChanged: (changedEntry) => update((items) => items.map((item) => (item.id === changedEntry.id ? changedEntry : item))),
    onDeleted: () => update((items) => items.filter((item) => item.id !== entry.id)),
    onReplaced: (old, newer) =>
      // The correction comes first; the replaced entry stays only where replaced ones are shown.
      update((items) => [newer, ...items.flatMap((item) => (item.id !== old.id ? [item] : filters.history ? [old] : []))]),
  });

  return (
    <>
      <Show loaded={entries} what="Loading memory">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              {hasFilters(filters)
                ? 'No entry passes these filters. Clear a filter to see more.'
                : 'Nothing is remembered yet. Add an entry above, or let an agent with the memory scope write one.'}
            </Empty>
          ) : (
            <ul className="cards" aria-label="Memory entries">
              {list.map((entry) => (
                <li key={entry.id}>
                  <MemoryCard id={entry.id} entry={entry} events={eventsOf(entry)} />
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
  /** The matching text with the words found marked; missing when filters narrowed the search (see below). */
  hit: ShownHit | undefined;
  id: string;
  /** The whole entry, for editing; missing only if it changed between the two reads. */
  entry: Entry | undefined;
}

/**
 * A search of memory, ranked as agents get it (`GET /api/v1/search`, words and meaning): each hit
 * shows the matching text with the words found marked. The entries themselves come from the
 * memory search of the same words (the same ranking), read at the same time, so that a hit can
 * be edited whole. With filters, the memory search alone answers (the one search takes none):
 * the same ranking, narrowed, without the marks.
 */
function MemorySearch({ q, filters, byMeaning, added, changed }: { q: string; filters: MemoryFilters; byMeaning: boolean; added: Entry | undefined; changed: number }) {
  const filtered = hasFilters(filters);
  const found = useLoad(async (): Promise<Found[]> => {
    const [hits, entries] = await Promise.all([
      filtered ? undefined : api.GET('/api/v1/search', { params: { query: { q, types: 'memory', limit: SEARCH_LIMIT } } }),
      api.GET('/api/v1/memory', { params: { query: { q, limit: SEARCH_LIMIT, ...apiFilters(filters) } } }),
    ]);
    const list = unwrap(entries).data;
    if (!hits) return list.map((entry) => ({ hit: undefined, id: entry.id, entry }));
    const byId = new Map(list.map((entry) => [entry.id, entry]));
    return unwrap(hits).data.map((hit) => ({ hit, id: hit.id, entry: byId.get(hit.id) }));
  }, [q, added, changed, JSON.stringify(filters)]);
  // An edit changes the text and so what matches and where: the search is asked again. A
  // deleted entry just leaves the list.
  const { reload } = found;
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());

  return (
    <Show loaded={found} what="Searching memory">
      {(all) => {
        const list = all.filter(({ id }) => !deleted.has(id));
        return list.length === 0 ? (
          <Empty>
            Nothing in memory matches “{q}”{filtered ? ' with these filters' : ''}.{' '}
            {byMeaning
              ? 'Search looked for entries holding any of its words and for entries close to it in meaning. Try other words, or show all entries.'
              : 'Search looked for entries holding any of its words (search by meaning is not available right now). Try other words, or show all entries.'}
          </Empty>
        ) : (
          <ol className="cards" aria-label="Search results, best first">
            {list.map(({ hit, id, entry }) => (
              <li key={id}>
                <MemoryCard
                  id={id}
                  entry={entry}
                  {...(hit ? { hit } : {})}
                  events={{ onChanged: reload, onReplaced: reload, onDeleted: () => setDeleted((ids) => new Set(ids).add(id)) }}
                />
              </li>
            ))}
          </ol>
        );
      }}
    </Show>
  );
}

/**
 * The entry a link names (`/memory?entry=<id>`, as a chat reply's sources link): the entry as it
 * is now, read from its chain, so that one replaced since shows what replaced it too.
 */
function NamedEntry({ id, onClose }: { id: string; onClose: () => void }) {
  const chain = useLoad(async () => unwrap(await api.GET('/api/v1/memory/{id}/history', { params: { path: { id } } })).data, [id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [id]);
  const { reload } = chain;
  return (
    <section className="card reader" aria-labelledby="memory-named">
      <div className="row spread">
        <h2 id="memory-named" ref={heading} tabIndex={-1}>
          The entry linked here
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <Show loaded={chain} what="Opening the entry">
        {(entries) => {
          const entry = entries.find((item) => item.id === id);
          const newer = entry?.supersededBy ? entries.find((item) => item.id === entry.supersededBy) : undefined;
          return entry ? (
            <>
              <MemoryCard id={entry.id} entry={entry} events={{ onChanged: reload, onReplaced: reload, onDeleted: onClose }} />
              {newer ? (
                <>
                  <p className="muted meta">It has been replaced by:</p>
                  <MemoryCard id={newer.id} entry={newer} events={{ onChanged: reload, onReplaced: reload, onDeleted: reload }} />
                </>
              ) : null}
            </>
          ) : (
            <Empty>This entry is no longer in memory.</Empty>
          );
        }}
      </Show>
    </section>
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
