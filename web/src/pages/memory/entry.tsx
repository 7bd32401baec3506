import { useId, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { ConfirmButton } from '../../components/confirm';
import { MarkedText, MatchedBy, type ShownHit } from '../../components/search-hit';
import { Show, useLoad, When } from '../../components/ui';
import { authorName, CHANNEL_NAMES, type Entry } from './filters';

const SOURCE_KINDS: Record<NonNullable<Entry['source']>['kind'], string> = {
  conversation: 'a conversation',
  mail: 'a mail',
  document: 'a document',
  url: 'a web page',
  other: 'elsewhere',
};

/** What a card reports to its list: a change in place, a deletion, or a correction that replaced it. */
export interface CardEvents {
  onChanged: (entry: Entry) => void;
  onDeleted: () => void;
  /** The entry was superseded by `newer` (written here as its correction). */
  onReplaced: (old: Entry, newer: Entry) => void;
}

/**
 * One memory entry: its text (for a search hit, the matching text with the words found marked),
 * what it is (kind, tags, pinned, replaced or expired), and who wrote it, when and through which
 * channel, always in view; where it came from and its history open on demand. The owner edits it,
 * writes its correction (which supersedes it), pins or unpins it, or deletes it.
 */
export function MemoryCard({ id, entry, hit, events }: { id: string; entry: Entry | undefined; hit?: ShownHit; events: CardEvents }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'correct'>('view');
  const [whole, setWhole] = useState(false);
  const [provenance, setProvenance] = useState(false);
  const [history, setHistory] = useState(false);
  const { busy, error, run } = useAction();
  const path = { params: { path: { id } } };
  const detailsId = useId();

  const pin = (pinned: boolean) =>
    run(async () => {
      events.onChanged(unwrap(await api.PATCH('/api/v1/memory/{id}', { ...path, body: { pinned } })).data);
    });

  // A hit's text is bounded: the whole entry may be longer.
  const excerpt = hit !== undefined && entry !== undefined && entry.content !== hit.text;
  const replaced = entry?.supersededBy != null;
  const expired = entry?.validUntil != null && entry.validUntil <= new Date().toISOString();
  return (
    <article className={`card memory-entry${replaced || expired ? ' replaced' : ''}`} aria-label={entry ? `Memory entry from ${new Date(entry.created_at).toLocaleString()}` : 'Memory entry'}>
      {mode === 'edit' && entry ? (
        <ContentForm
          label="Edit memory"
          initial={entry.content}
          submit="Save"
          onCancel={() => setMode('view')}
          onSubmit={async (content) => {
            events.onChanged(unwrap(await api.PATCH('/api/v1/memory/{id}', { ...path, body: { content } })).data);
            setMode('view');
          }}
        />
      ) : hit && !whole ? (
        <p className="prose hit-text">
          <MarkedText text={hit.text} marks={hit.marks} />
        </p>
      ) : (
        <p className="prose">{entry?.content ?? hit?.text}</p>
      )}
      {entry ? <EntryTags entry={entry} replaced={replaced} expired={expired} /> : null}
      {hit || entry ? (
        <p className="muted meta">
          {hit ? <MatchedBy matched={hit.matched} /> : null}
          {entry ? <WrittenBy entry={entry} /> : null}
        </p>
      ) : null}
      {entry && provenance ? <Provenance id={`${detailsId}-provenance`} entry={entry} /> : null}
      {entry && history ? <History id={`${detailsId}-history`} entry={entry} /> : null}
      {mode === 'correct' && entry ? (
        <ContentForm
          label="Correction"
          hint="The corrected entry replaces this one: this one is kept in its history, and leaves lists, search and the context."
          initial={entry.content}
          submit="Save the correction"
          onCancel={() => setMode('view')}
          onSubmit={async (content) => {
            const newer = unwrap(
              await api.POST('/api/v1/memory', { body: { content, kind: entry.kind, tags: entry.tags, pinned: entry.pinned, supersedes: [entry.id] } }),
            ).data;
            setMode('view');
            events.onReplaced({ ...entry, supersededBy: newer.id, supersededAt: newer.created_at }, newer);
          }}
        />
      ) : null}
      <ActionError error={error} />
      {mode !== 'view' ? null : (
        <div className="row">
          {excerpt ? (
            <button type="button" className="link" aria-expanded={whole} onClick={() => setWhole(!whole)}>
              {whole ? 'Show the matching part' : 'Show the whole entry'}
            </button>
          ) : null}
          {entry ? (
            <>
              <button type="button" aria-expanded={provenance} aria-controls={provenance ? `${detailsId}-provenance` : undefined} onClick={() => setProvenance(!provenance)}>
                Where it came from
              </button>
              <button type="button" aria-expanded={history} aria-controls={history ? `${detailsId}-history` : undefined} onClick={() => setHistory(!history)}>
                History
              </button>
              <button type="button" onClick={() => setMode('edit')}>
                Edit
              </button>
              {replaced ? null : (
                <button type="button" onClick={() => setMode('correct')}>
                  Correct
                </button>
              )}
              <button type="button" disabled={busy} aria-pressed={entry.pinned} onClick={() => void pin(!entry.pinned)}>
                {entry.pinned ? 'Unpin' : 'Pin'}
              </button>
            </>
          ) : null}
          <ConfirmButton
            question="Delete this entry?"
            onConfirm={async () => {
              unwrap(await api.DELETE('/api/v1/memory/{id}', path));
              events.onDeleted();
            }}
          />
        </div>
      )}
    </article>
  );
}

function EntryTags({ entry, replaced, expired }: { entry: Entry; replaced: boolean; expired: boolean }) {
  return (
    <p className="meta">
      <span className="tag">{entry.kind}</span>
      {entry.pinned ? <span className="tag pinned">pinned</span> : null}
      {replaced ? <span className="tag replaced">replaced</span> : null}
      {expired ? <span className="tag replaced">expired</span> : null}
      {entry.tags.map((tag) => (
        <span key={tag} className="tag mono">
          #{tag}
        </span>
      ))}
    </p>
  );
}

/** The line every card shows: who wrote it, when, through which channel. */
function WrittenBy({ entry }: { entry: Entry }) {
  return (
    <>
      Written by {authorName(entry.author)}
      {entry.author.channel !== 'unknown' ? <> through {CHANNEL_NAMES[entry.author.channel]}</> : null}, <When at={entry.created_at} />
      {entry.updatedAt !== entry.created_at ? (
        <>
          {' · '}changed <When at={entry.updatedAt} />
        </>
      ) : null}
    </>
  );
}

/** "Why does my agent know this": everything the server recorded, and what the writer said it came from. */
function Provenance({ id, entry }: { id: string; entry: Entry }) {
  const { author, source, editedBy } = entry;
  return (
    <section id={id} className="provenance" aria-label="Where it came from">
      <dl className="facts">
        <dt>Written by</dt>
        <dd>{authorName(author)}</dd>
        {author.token ? (
          <>
            <dt>Token</dt>
            <dd className="mono">{author.token.id}</dd>
          </>
        ) : null}
        {author.agent ? (
          <>
            <dt>{author.agent.kind === 'oauth_client' ? 'OAuth app' : 'Agent (handshake)'}</dt>
            <dd>
              {author.agent.name} <span className="muted mono">{author.agent.id}</span>
            </dd>
          </>
        ) : null}
        <dt>Through</dt>
        <dd>{CHANNEL_NAMES[author.channel]}</dd>
        <dt>When</dt>
        <dd>{new Date(entry.created_at).toLocaleString()}</dd>
        <dt>From</dt>
        <dd>
          {source ? (
            <>
              {SOURCE_KINDS[source.kind]}
              {source.ref ? (
                <>
                  {': '}
                  <span className="mono">{source.ref}</span>
                </>
              ) : null}
              {source.quote ? <blockquote>{source.quote}</blockquote> : null}
            </>
          ) : (
            <span className="muted">the writer did not say</span>
          )}
        </dd>
        {editedBy ? (
          <>
            <dt>Last changed by</dt>
            <dd>
              {authorName(editedBy)} through {CHANNEL_NAMES[editedBy.channel]}, {new Date(entry.updatedAt).toLocaleString()}
            </dd>
          </>
        ) : null}
        {entry.validFrom || entry.validUntil ? (
          <>
            <dt>Holds</dt>
            <dd>
              {entry.validFrom ? `from ${new Date(entry.validFrom).toLocaleString()}` : ''} {entry.validUntil ? `until ${new Date(entry.validUntil).toLocaleString()}` : ''}
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

/** The chain this entry belongs to, oldest first: what it replaced, and what replaced it. */
function History({ id, entry }: { id: string; entry: Entry }) {
  const chain = useLoad(async () => unwrap(await api.GET('/api/v1/memory/{id}/history', { params: { path: { id: entry.id } } })).data, [entry.id, entry.updatedAt]);
  return (
    <section id={id} className="history" aria-label="History">
      <Show loaded={chain} what="Loading the history">
        {(list) =>
          list.length <= 1 ? (
            <p className="muted">Never replaced: this entry is its own history.</p>
          ) : (
            <ol aria-label="History of this entry, oldest first">
              {list.map((version) => (
                <li key={version.id} aria-current={version.id === entry.id ? 'true' : undefined}>
                  <p className="prose">{version.content}</p>
                  <p className="muted meta">
                    {version.id === entry.id ? 'This entry · ' : ''}
                    <WrittenBy entry={version} />
                    {version.supersededAt ? (
                      <>
                        {' · '}replaced <When at={version.supersededAt} />
                      </>
                    ) : (
                      ' · current'
                    )}
                  </p>
                </li>
              ))}
            </ol>
          )
        }
      </Show>
    </section>
  );
}

function ContentForm({
  label,
  hint,
  initial,
  submit,
  onSubmit,
  onCancel,
}: {
  label: string;
  hint?: string;
  initial: string;
  submit: string;
  onSubmit: (content: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const { busy, error, run } = useAction();
  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(() => onSubmit(draft));
  };
  return (
    <form className="stack" onSubmit={save}>
      <label>
        {label}
        <textarea value={draft} rows={Math.min(20, Math.max(4, draft.split('\n').length + 1))} onChange={(event) => setDraft(event.currentTarget.value)} autoFocus />
      </label>
      {hint ? <p className="muted meta">{hint}</p> : null}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !draft.trim() || draft === initial}>
          {busy ? 'Saving…' : submit}
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ActionError error={error} />
    </form>
  );
}
