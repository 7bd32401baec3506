import { useEffect, useState } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { authorName, type Author } from './filters';

type Counted = Schemas['MemoryForgotten'];

const entries = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'entry' : 'entries'}`;

/**
 * Forget everything one agent wrote, in one action: first counted (a dry run, nothing changes),
 * then confirmed with that count, which the server checks again, so that what is deleted is what
 * the owner was shown (an agent writing meanwhile makes the server refuse, and the new count is
 * asked for confirmation).
 */
export function ForgetAgent({ tokenId, author, onForgotten }: { tokenId: string; author: Author | undefined; onForgotten: (done: Counted) => void }) {
  const [counted, setCounted] = useState<Counted>();
  const [done, setDone] = useState<Counted>();
  const { busy, error, run, clearError } = useAction();
  // Named as the authors list names it; once forgotten it leaves that list, and keeps its name here.
  const listed = author ? authorName(author) : undefined;
  const [name, setName] = useState(listed ?? tokenId);
  useEffect(() => {
    if (listed) setName(listed);
  }, [listed]);

  /** What forgetting would delete now (a dry run: nothing changes). */
  const countNow = async () => unwrap(await api.POST('/api/v1/memory/forget', { body: { author: tokenId, dryRun: true } })).data;

  const count = () =>
    run(async () => {
      setDone(undefined);
      setCounted(await countNow());
    });

  const forget = (expectedCount: number) =>
    run(async () => {
      try {
        const result = unwrap(await api.POST('/api/v1/memory/forget', { body: { author: tokenId, expectedCount } })).data;
        setCounted(undefined);
        setDone(result);
        onForgotten(result);
      } catch (caught) {
        // The count changed since it was shown: show the new one to confirm instead.
        setCounted(await countNow());
        throw caught;
      }
    });

  return (
    <section className="card danger-zone" aria-labelledby="forget-agent">
      <h2 id="forget-agent">Forget what this agent wrote</h2>
      <p className="muted">
        Deletes every entry written by {name}, current or replaced, through any channel, and nothing else. Entries of others that one of them replaced become current again.
      </p>
      {counted ? (
        <div className="stack" role="group" aria-label="Confirm forgetting">
          <p>
            {counted.count === 0 ? (
              <>Nothing to forget: {name} has no entries left.</>
            ) : (
              <>
                Forget {entries(counted.count)} written by {name}?
                {counted.restored > 0 ? ` ${entries(counted.restored)} of others that they replaced will be current again.` : ''} This cannot be undone.
              </>
            )}
          </p>
          <div className="row">
            {counted.count > 0 ? (
              <button type="button" className="danger" disabled={busy} onClick={() => void forget(counted.count)}>
                {busy ? 'Forgetting…' : `Yes, forget ${entries(counted.count)}`}
              </button>
            ) : null}
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setCounted(undefined);
                clearError();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="row">
          <button type="button" className="danger" disabled={busy} onClick={() => void count()}>
            Forget everything this agent wrote…
          </button>
        </div>
      )}
      {done ? (
        <p role="status">
          Forgot {entries(done.deleted)} written by {name}
          {done.restored > 0 ? `; ${entries(done.restored)} of others ${done.restored === 1 ? 'is' : 'are'} current again` : ''}.
        </p>
      ) : null}
      <ActionError error={error} />
    </section>
  );
}
