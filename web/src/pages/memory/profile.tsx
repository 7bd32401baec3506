import { useId, useState, type DragEvent, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { Empty, Show, useLoad } from '../../components/ui';

type Entry = Schemas['MemoryEntry'];

/** How many entries not pinned the picker offers: the newest ones. */
const PICK_LIMIT = 50;

/** An entry's first line, short enough for a row of the panel. */
function headline(content: string): string {
  const line = content.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/**
 * The pinned profile: the owner's core facts and standing instructions, which lead every agent's
 * context in the order shown. The owner pins entries, unpins them, and orders them by dragging
 * or with the move buttons (the keyboard's way). Each change sends the whole order at once
 * (PUT /memory/profile/order), so two edits at once leave one whole order, never a mix.
 */
export function MemoryProfilePanel({ onChanged }: { onChanged?: () => void }) {
  const profile = useLoad(async () => unwrap(await api.GET('/api/v1/memory/profile')).data, []);
  const [order, setOrder] = useState<Entry[]>();
  const [dragged, setDragged] = useState<string>();
  // Bumped by every pin and unpin, so that the picker offers the entries not pinned as they are now.
  const [version, setVersion] = useState(0);
  const { busy, error, run } = useAction();
  const shown = order ?? profile.data;

  const changed = () => {
    setVersion((n) => n + 1);
    setOrder(undefined);
    profile.reload();
    onChanged?.();
  };

  const place = (from: number, to: number) => {
    if (!shown || to < 0 || to >= shown.length || from === to) return;
    const next = [...shown];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    setOrder(next);
    void run(async () => {
      try {
        const answer = unwrap(await api.PUT('/api/v1/memory/profile/order', { body: { order: next.map((entry) => entry.id) } }));
        setOrder(answer.data);
      } catch (caught) {
        // Pinned or unpinned elsewhere meanwhile: show the profile as it is now.
        changed();
        throw caught;
      }
    });
  };

  const unpin = (entry: Entry) =>
    void run(async () => {
      unwrap(await api.PATCH('/api/v1/memory/{id}', { params: { path: { id: entry.id } }, body: { pinned: false } }));
      changed();
    });

  const dropOn = (index: number) => (event: DragEvent) => {
    event.preventDefault();
    if (!shown || dragged === undefined) return;
    place(
      shown.findIndex((entry) => entry.id === dragged),
      index,
    );
    setDragged(undefined);
  };

  return (
    <section className="card stack" aria-labelledby="memory-profile">
      <h2 id="memory-profile">Profile</h2>
      <p className="muted">Pinned entries: your core facts and standing instructions. Every agent's context starts with them, in this order, before any other memory.</p>
      <Show loaded={profile} what="Loading the profile">
        {() =>
          !shown || shown.length === 0 ? (
            <Empty>Nothing is pinned yet. Pin an entry below to put it at the top of every agent's context.</Empty>
          ) : (
            <ol className="cards" aria-label="Pinned entries, first first">
              {shown.map((entry, index) => (
                <li
                  key={entry.id}
                  draggable={!busy}
                  onDragStart={() => setDragged(entry.id)}
                  onDragOver={(event) => event.preventDefault()}
                  onDrop={dropOn(index)}
                  aria-label={`Pinned ${index + 1}: ${headline(entry.content)}`}
                >
                  <article className="card">
                    <p className="prose">{headline(entry.content)}</p>
                    <p className="muted meta">{entry.kind}</p>
                    <div className="row">
                      <button type="button" disabled={busy || index === 0} onClick={() => place(index, index - 1)} aria-label={`Move up: ${headline(entry.content)}`}>
                        Move up
                      </button>
                      <button
                        type="button"
                        disabled={busy || index === shown.length - 1}
                        onClick={() => place(index, index + 1)}
                        aria-label={`Move down: ${headline(entry.content)}`}
                      >
                        Move down
                      </button>
                      <button type="button" disabled={busy} onClick={() => unpin(entry)} aria-label={`Unpin: ${headline(entry.content)}`}>
                        Unpin
                      </button>
                    </div>
                  </article>
                </li>
              ))}
            </ol>
          )
        }
      </Show>
      <ActionError error={error} />
      <PinEntry key={version} onPinned={changed} />
    </section>
  );
}

/** Pins one of the newest entries not pinned yet; it joins the profile last. */
function PinEntry({ onPinned }: { onPinned: () => void }) {
  const candidates = useLoad(async () => unwrap(await api.GET('/api/v1/memory', { params: { query: { pinned: false, limit: PICK_LIMIT } } })).data, []);
  const [chosen, setChosen] = useState('');
  const { busy, error, run } = useAction();
  const id = useId();

  const pin = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      unwrap(await api.PATCH('/api/v1/memory/{id}', { params: { path: { id: chosen } }, body: { pinned: true } }));
      onPinned();
    });
  };

  return (
    <form className="row" onSubmit={pin}>
      <label htmlFor={id}>Pin an entry</label>
      <select id={id} value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
        <option value="">Choose one of the newest entries…</option>
        {(candidates.data ?? []).map((entry) => (
          <option key={entry.id} value={entry.id}>
            {headline(entry.content)}
          </option>
        ))}
      </select>
      <button type="submit" disabled={busy || chosen === ''}>
        {busy ? 'Pinning…' : 'Pin'}
      </button>
      <ActionError error={error} />
    </form>
  );
}
