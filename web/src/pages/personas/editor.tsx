import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, errorMessage, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { ConfirmButton } from '../../components/confirm';
import { PersonaFields, type PersonaDraft } from '../../components/persona-fields';
import { Empty, Show, useLoad, When, type Loaded } from '../../components/ui';

type Persona = Schemas['Persona'];

/** One persona: its fields, its activation, and the documents and skills attached to it. */
export function PersonaEditor({ id, onChanged, onDeleted }: { id: string; onChanged: () => void; onDeleted: () => void }) {
  const persona = useLoad(async () => unwrap(await api.GET('/api/v1/personas/{id}', { params: { path: { id } } })).data, [id]);
  // Kept here: the form below starts afresh from each saved version, the message outlives it.
  const [notice, setNotice] = useState<string>();
  return (
    <Show loaded={persona} what="Opening the persona">
      {(loaded) => (
        <div className="stack">
          <PersonaForm
            key={loaded.updatedAt}
            persona={loaded}
            notice={notice}
            onSaved={(message) => {
              setNotice(message);
              persona.reload();
              onChanged();
            }}
            onFailed={() => setNotice(undefined)}
            onDeleted={onDeleted}
          />
          <AttachedDocuments personaId={id} />
          <AttachedSkills personaId={id} />
        </div>
      )}
    </Show>
  );
}

function PersonaForm({
  persona,
  notice,
  onSaved,
  onFailed,
  onDeleted,
}: {
  persona: Persona;
  notice: string | undefined;
  onSaved: (message: string) => void;
  onFailed: () => void;
  onDeleted: () => void;
}) {
  const [draft, setDraft] = useState<PersonaDraft>({ name: persona.name, description: persona.description, soul: persona.soul_content });
  const { name, description, soul } = draft;
  const { busy, error, run: runAction } = useAction();
  const path = { params: { path: { id: persona.id } } };
  const changed = name !== persona.name || description !== persona.description || soul !== persona.soul_content;

  // Leaving with unsaved words asks first, as a text editor would.
  useEffect(() => {
    if (!changed) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [changed]);

  const run = (action: () => Promise<unknown>, done: string) =>
    runAction(async () => {
      try {
        await action();
      } catch (caught) {
        onFailed();
        throw caught;
      }
      onSaved(done);
    });

  const save = (event: FormEvent) => {
    event.preventDefault();
    const body: { name?: string; description?: string; soul_content?: string } = {};
    if (name !== persona.name) body.name = name;
    if (description !== persona.description) body.description = description;
    if (soul !== persona.soul_content) body.soul_content = soul;
    void run(async () => unwrap(await api.PUT('/api/v1/personas/{id}', { ...path, body })), 'Saved.');
  };

  return (
    <form className="card" aria-label={`Persona ${persona.name}`} onSubmit={save}>
      <div className="row spread">
        <h2 className="card-title">
          {persona.name}
          {persona.active ? <span className="tag active-tag">Active</span> : null}
        </h2>
        <p className="muted meta">
          Created <When at={persona.createdAt} /> · updated <When at={persona.updatedAt} />
        </p>
      </div>
      <PersonaFields value={draft} onChange={setDraft} />
      <ActionError error={error} />
      {notice && !changed ? (
        <p className="ok" role="status">
          {notice}
        </p>
      ) : null}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !changed || !name.trim()}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {persona.active ? (
          <button type="button" disabled={busy} onClick={() => void run(async () => unwrap(await api.POST('/api/v1/personas/{id}/deactivate', path)), 'Deactivated: no persona is active now.')}>
            Deactivate
          </button>
        ) : (
          <button
            type="button"
            disabled={busy || changed}
            title={changed ? 'Save your changes first' : undefined}
            onClick={() => void run(async () => unwrap(await api.POST('/api/v1/personas/{id}/activate', path)), 'Activated: chat now speaks as this persona.')}
          >
            Activate
          </button>
        )}
        <ConfirmButton question="Delete this persona?" onConfirm={async () => {
          unwrap(await api.DELETE('/api/v1/personas/{id}', path));
          onDeleted();
        }} />
      </div>
    </form>
  );
}

function AttachedDocuments({ personaId }: { personaId: string }) {
  const path = { params: { path: { id: personaId } } };
  const attached = useLoad(async () => unwrap(await api.GET('/api/v1/personas/{id}/documents', path)).data, [personaId]);
  const candidates = useLoad(async () => unwrap(await api.GET('/api/v1/brain/knowledge-base', { params: { query: { limit: 200 } } })).data);
  return (
    <Attachments
      title="Knowledge documents"
      what="document"
      attached={attached}
      empty="No document is attached. Attached documents are the knowledge this persona draws on first."
      items={(list) => list.map((doc) => ({ key: doc.id, label: doc.title, detail: doc.source, attachedAt: doc.attachedAt }))}
      options={candidates.data?.map((doc) => ({ value: doc.id, label: doc.title }))}
      optionsError={candidates.error}
      onAttach={async (documentId) => {
        unwrap(await api.POST('/api/v1/personas/{id}/documents', { ...path, body: { documentId } }));
        attached.reload();
      }}
      onRemove={async (docId) => {
        unwrap(await api.DELETE('/api/v1/personas/{id}/documents/{docId}', { params: { path: { id: personaId, docId } } }));
        attached.reload();
      }}
    />
  );
}

function AttachedSkills({ personaId }: { personaId: string }) {
  const path = { params: { path: { id: personaId } } };
  const attached = useLoad(async () => unwrap(await api.GET('/api/v1/personas/{id}/skills', path)).data, [personaId]);
  const candidates = useLoad(async () => unwrap(await api.GET('/api/v1/skills', { params: { query: { limit: 200 } } })).data);
  return (
    <Attachments
      title="Skills"
      what="skill"
      attached={attached}
      empty="No skill is attached."
      items={(list) => list.map((skill) => ({ key: String(skill.id), label: skill.name, detail: skill.description, attachedAt: skill.attachedAt }))}
      options={candidates.data?.map((skill) => ({ value: String(skill.id), label: skill.name }))}
      optionsError={candidates.error}
      onAttach={async (skillId) => {
        unwrap(await api.POST('/api/v1/personas/{id}/skills', { ...path, body: { skillId: Number(skillId) } }));
        attached.reload();
      }}
      onRemove={async (skillId) => {
        unwrap(await api.DELETE('/api/v1/personas/{id}/skills/{skillId}', { params: { path: { id: personaId, skillId: Number(skillId) } } }));
        attached.reload();
      }}
    />
  );
}

interface AttachedItem {
  key: string;
  label: string;
  detail: string;
  attachedAt: string;
}

/** A list of attached records with a remove button each, and a picker to attach one more. */
function Attachments<T>({
  title,
  what,
  attached,
  empty,
  items,
  options,
  optionsError,
  onAttach,
  onRemove,
}: {
  title: string;
  what: string;
  attached: Loaded<T[]>;
  empty: string;
  items: (list: T[]) => AttachedItem[];
  options: Array<{ value: string; label: string }> | undefined;
  optionsError: unknown;
  onAttach: (value: string) => Promise<void>;
  onRemove: (key: string) => Promise<void>;
}) {
  const [choice, setChoice] = useState('');
  const { busy, error, run } = useAction();
  const heading = useId();

  const act = async (action: () => Promise<void>) => {
    await run(async () => {
      await action();
      setChoice('');
    });
  };

  const attachedKeys = new Set(attached.data ? items(attached.data).map((item) => item.key) : []);
  const available = options?.filter((option) => !attachedKeys.has(option.value));

  return (
    <section className="card" aria-labelledby={heading}>
      <h2 id={heading}>{title}</h2>
      <Show loaded={attached} what={`Loading attached ${what}s`}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{empty}</Empty>
          ) : (
            <ul className="attached">
              {items(list).map((item) => (
                <li key={item.key}>
                  <span>
                    <strong>{item.label}</strong>
                    {item.detail ? <span className="muted"> — {item.detail}</span> : null}
                  </span>
                  <button type="button" disabled={busy} aria-label={`Remove ${item.label}`} onClick={() => void act(() => onRemove(item.key))}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <form
        className="search-row"
        onSubmit={(event) => {
          event.preventDefault();
          if (choice) void act(() => onAttach(choice));
        }}
      >
        <label>
          Attach a {what}
          <select value={choice} onChange={(event) => setChoice(event.currentTarget.value)} disabled={!available || available.length === 0}>
            <option value="">{!available ? 'Loading…' : available.length === 0 ? `No other ${what} to attach` : `Choose a ${what}`}</option>
            {available?.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy || !choice}>
          Attach
        </button>
      </form>
      {optionsError ? (
        <p className="error" role="alert">
          {errorMessage(optionsError)}
        </p>
      ) : null}
      <ActionError error={error} />
    </section>
  );
}
