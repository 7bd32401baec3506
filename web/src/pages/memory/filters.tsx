import { useMemo } from 'react';
import type { Schemas } from '../../api/client';
import { useQuery } from '../../router';

export type Entry = Schemas['MemoryEntry'];
export type Author = Schemas['MemoryAuthorSummary'];
type Channel = Entry['author']['channel'];
type Kind = Entry['kind'];

const CHANNELS: ReadonlyArray<[Channel, string]> = [
  ['api', 'API'],
  ['mcp', 'MCP'],
  ['console', 'Console'],
  ['import', 'Import'],
  ['unknown', 'Unknown (before authors were recorded)'],
];
const KINDS: readonly Kind[] = ['fact', 'preference', 'event', 'instruction', 'note'];

/**
 * The memory page's filters, kept in the address (like the search words) so that a link, a
 * reload or the back button shows the same entries. Each narrows the list, as the API's own
 * filters of `GET /api/v1/memory` do.
 */
export interface MemoryFilters {
  author?: string | undefined;
  channel?: Channel | undefined;
  kind?: Kind | undefined;
  tag?: string | undefined;
  pinned?: boolean | undefined;
  /** Superseded and expired entries too. */
  history?: boolean | undefined;
}

/** The filters the address holds; anything it does not understand is left out. */
export function useMemoryFilters(): MemoryFilters {
  const query = useQuery();
  return useMemo(() => {
    const channel = query.get('channel');
    const kind = query.get('kind');
    const pinned = query.get('pinned');
    return {
      author: query.get('author') || undefined,
      channel: CHANNELS.some(([value]) => value === channel) ? (channel as Channel) : undefined,
      kind: KINDS.includes(kind as Kind) ? (kind as Kind) : undefined,
      tag: query.get('tag')?.trim() || undefined,
      pinned: pinned === 'true' ? true : pinned === 'false' ? false : undefined,
      history: query.get('history') === '1' || undefined,
    };
  }, [query]);
}

/** The filters as the address writes them. */
export function filterQuery(filters: MemoryFilters): Record<string, string | undefined> {
  return {
    author: filters.author,
    channel: filters.channel,
    kind: filters.kind,
    tag: filters.tag,
    pinned: filters.pinned === undefined ? undefined : String(filters.pinned),
    history: filters.history ? '1' : undefined,
  };
}

/** The filters as `GET /api/v1/memory` takes them. */
export function apiFilters(filters: MemoryFilters) {
  return {
    ...(filters.author ? { author: filters.author } : {}),
    ...(filters.channel ? { channel: filters.channel } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(filters.tag ? { tag: filters.tag } : {}),
    ...(filters.pinned !== undefined ? { pinned: filters.pinned } : {}),
    ...(filters.history ? { include: 'history' as const } : {}),
  };
}

export function hasFilters(filters: MemoryFilters): boolean {
  return Object.values(filters).some((value) => value !== undefined);
}

const TOKEN_KINDS: Record<NonNullable<Entry['author']['token']>['kind'], string> = {
  master: 'master token',
  session: 'login session',
  api: 'API token',
  handshake: 'agent token',
  oauth: 'OAuth token',
};

/** Who wrote, in words: the token's name and kind as it wrote, the agent behind it, or unknown. */
export function authorName(author: Pick<Entry['author'], 'token' | 'agent'>): string {
  if (!author.token) return 'unknown (written before authors were recorded)';
  if (author.token.kind === 'master' || author.token.kind === 'session') return `you (${TOKEN_KINDS[author.token.kind]})`;
  const agent = author.agent ? `, ${author.agent.kind === 'oauth_client' ? 'OAuth app' : 'agent'} “${author.agent.name}”` : '';
  return `“${author.token.name}” (${TOKEN_KINDS[author.token.kind]}${agent})`;
}

export const CHANNEL_NAMES: Record<Channel, string> = {
  api: 'the API',
  mcp: 'MCP (a tool call)',
  console: 'the console',
  import: 'an import',
  unknown: 'an unknown channel',
};

/**
 * The filter form: every change goes to the address at once (no "apply" step), which the page
 * reads back. `authors` come from `GET /api/v1/memory/authors`, with how many entries each wrote.
 */
export function FilterForm({ filters, authors, onChange }: { filters: MemoryFilters; authors: Author[] | undefined; onChange: (filters: MemoryFilters) => void }) {
  const set = (change: Partial<MemoryFilters>) => onChange({ ...filters, ...change });
  // An author given in the address but no longer listed (all its entries deleted) stays choosable.
  const listed = authors?.some((author) => author.token?.id === filters.author) ?? false;
  return (
    <form className="filters row" aria-label="Filter memory" onSubmit={(event) => event.preventDefault()}>
      <label>
        Agent
        <select value={filters.author ?? ''} onChange={(event) => set({ author: event.currentTarget.value || undefined })}>
          <option value="">Every author</option>
          {authors
            ?.filter((author) => author.token !== null)
            .map((author) => (
              <option key={author.token!.id} value={author.token!.id}>
                {authorName(author)}: {author.count} {author.count === 1 ? 'entry' : 'entries'}
              </option>
            ))}
          {filters.author && !listed ? <option value={filters.author}>{filters.author} (no entries)</option> : null}
        </select>
      </label>
      <label>
        Channel
        <select value={filters.channel ?? ''} onChange={(event) => set({ channel: (event.currentTarget.value || undefined) as Channel | undefined })}>
          <option value="">Any channel</option>
          {CHANNELS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Kind
        <select value={filters.kind ?? ''} onChange={(event) => set({ kind: (event.currentTarget.value || undefined) as Kind | undefined })}>
          <option value="">Any kind</option>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
      </label>
      <label>
        Tag
        <input
          type="text"
          defaultValue={filters.tag ?? ''}
          key={filters.tag ?? ''}
          maxLength={64}
          placeholder="e.g. work"
          // A tag is applied once typed (on leaving the box or pressing Enter), not at every key.
          onBlur={(event) => set({ tag: event.currentTarget.value.trim() || undefined })}
          onKeyDown={(event) => {
            if (event.key === 'Enter') set({ tag: event.currentTarget.value.trim() || undefined });
          }}
        />
      </label>
      <label>
        Pinned
        <select
          value={filters.pinned === undefined ? '' : String(filters.pinned)}
          onChange={(event) => set({ pinned: event.currentTarget.value === '' ? undefined : event.currentTarget.value === 'true' })}
        >
          <option value="">Pinned or not</option>
          <option value="true">Only pinned</option>
          <option value="false">Only not pinned</option>
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={filters.history ?? false} onChange={(event) => set({ history: event.currentTarget.checked || undefined })} />
        Show replaced and expired entries
      </label>
      {hasFilters(filters) ? (
        <button type="button" className="link" onClick={() => onChange({})}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
