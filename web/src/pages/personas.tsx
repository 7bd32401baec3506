import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { SubmitOrCancel } from '../components/submit-or-cancel';
import { ActionError, useAction } from '../components/actions';
import { LoadMore, usePaged } from '../components/paged';
import { PersonaFields, type PersonaDraft } from '../components/persona-fields';
import { Empty, PageHeader, Show, When } from '../components/ui';
import { PersonaEditor } from './personas/editor';

type Persona = Schemas['Persona'];

/** Personas: who the owner's assistant speaks as; one may be active at a time. */
export function PersonasPage() {
  const [open, setOpen] = useState<string>();
  const [creating, setCreating] = useState(false);
  const personas = usePaged(async (cursor) => unwrap(await api.GET('/api/v1/personas', { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } })));

  if (open) {
    return (
      <>
        <PageHeader title="Personas">
          <button type="button" onClick={() => setOpen(undefined)}>
            Back to all personas
          </button>
        </PageHeader>
        <PersonaEditor
          id={open}
          onChanged={() => personas.reload()}
          onDeleted={() => {
            setOpen(undefined);
            personas.reload();
          }}
        />
      </>
    );
  }

  return (
    <>
      <PageHeader title="Personas">
        {creating ? null : (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New persona
          </button>
        )}
      </PageHeader>
      {creating ? (
        <CreatePersona
          onCancel={() => setCreating(false)}
          onCreated={(persona) => {
            setCreating(false);
            personas.reload();
            setOpen(persona.id);
          }}
        />
      ) : null}
      <Show loaded={personas} what="Loading personas">
        {(list) =>
          list.length === 0 ? (
            <Empty>No persona yet. A persona is a name and a “soul”: the instructions chat follows while it is active.</Empty>
          ) : (
            <ul className="cards">
              {list.map((persona) => (
                <li key={persona.id}>
                  <PersonaCard persona={persona} onOpen={() => setOpen(persona.id)} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <LoadMore paged={personas} />
    </>
  );
}

function PersonaCard({ persona, onOpen }: { persona: Persona; onOpen: () => void }) {
  return (
    <article className={persona.active ? 'card active-card' : 'card'} aria-label={persona.name}>
      <h2 className="card-title">
        <button type="button" className="link" onClick={onOpen}>
          {persona.name}
        </button>
        {persona.active ? <span className="tag active-tag">Active</span> : null}
      </h2>
      {persona.description ? <p className="prose">{persona.description}</p> : <p className="muted">No description.</p>}
      <p className="muted meta">
        {persona.soul_content.length.toLocaleString()} characters of soul · updated <When at={persona.updatedAt} />
      </p>
      <div className="row">
        <button type="button" onClick={onOpen}>
          Edit
        </button>
      </div>
    </article>
  );
}

function CreatePersona({ onCreated, onCancel }: { onCreated: (persona: Persona) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<PersonaDraft>({ name: '', description: '', soul: '' });
  const { busy, error, run } = useAction();
  const heading = useId();

  const create = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const body = { name: draft.name, soul_content: draft.soul, ...(draft.description.trim() ? { description: draft.description } : {}) };
      onCreated(unwrap(await api.POST('/api/v1/personas', { body })).data);
    });
  };

  return (
    <form className="card" aria-labelledby={heading} onSubmit={create}>
      <h2 id={heading}>New persona</h2>
      <PersonaFields value={draft} onChange={setDraft} />
      <ActionError error={error} />
      <SubmitOrCancel label={busy ? 'Creating…' : 'Create persona'} busy={busy} disabled={!draft.name.trim()} onCancel={onCancel} />
    </form>
  );
}
