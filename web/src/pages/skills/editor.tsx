import { useId, useState, type FormEvent } from 'react';
import { ApiError, api, errorMessage, unwrap, type Schemas } from '../../api/client';
import { Show, useLoad } from '../../components/ui';
import { checkFrontmatter, SKILL_TEMPLATE } from './frontmatter';

type Skill = Schemas['Skill'];

interface Problem {
  message: string;
  details: string[];
}

/** The API's refusal as a sentence and, for a validation error, one line per field. */
function problemOf(caught: unknown): Problem {
  const details =
    caught instanceof ApiError && Array.isArray(caught.details)
      ? caught.details.map((detail: unknown) => {
          const d = detail as { field?: unknown; message?: unknown };
          return [typeof d.field === 'string' ? d.field : '', typeof d.message === 'string' ? d.message : JSON.stringify(detail)].filter(Boolean).join(': ');
        })
      : [];
  return { message: errorMessage(caught), details };
}

/** Creates a skill (no id) or edits one, as its SKILL.md text. */
export function SkillEditor({ id, onSaved, onCancel }: { id?: number; onSaved: (skill: Skill) => void; onCancel: () => void }) {
  const skill = useLoad(async () => (id === undefined ? undefined : unwrap(await api.GET('/api/v1/skills/{id}', { params: { path: { id } } })).data) ?? null, [id]);
  return (
    <Show loaded={skill} what="Opening the skill">
      {(loaded) => <SkillForm key={loaded?.updatedAt ?? 'new'} skill={loaded ?? undefined} onSaved={onSaved} onCancel={onCancel} />}
    </Show>
  );
}

function SkillForm({ skill, onSaved, onCancel }: { skill: Skill | undefined; onSaved: (skill: Skill) => void; onCancel: () => void }) {
  const [text, setText] = useState(skill?.scriptContent ?? SKILL_TEMPLATE);
  const [category, setCategory] = useState(skill?.category ?? '');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const [checked, setChecked] = useState(false);
  const id = useId();
  const check = checkFrontmatter(text);
  const changed = !skill || text !== skill.scriptContent || category !== skill.category;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    setProblem(undefined);
    if (check.problems.length > 0 || !check.name) return;
    setBusy(true);
    try {
      const body = { name: check.name, description: check.description ?? '', category, scriptContent: text };
      const saved = skill
        ? unwrap(await api.PUT('/api/v1/skills/{id}', { params: { path: { id: skill.id } }, body })).data
        : unwrap(await api.POST('/api/v1/skills', { body })).data;
      onSaved(saved);
    } catch (caught) {
      setProblem(problemOf(caught));
    } finally {
      setBusy(false);
    }
  };

  const shown = checked || text !== (skill?.scriptContent ?? SKILL_TEMPLATE) ? check.problems : [];
  return (
    <form className="card skill-editor" aria-labelledby={`${id}-heading`} onSubmit={(event) => void save(event)}>
      <h2 id={`${id}-heading`}>{skill ? `Edit ${skill.name}` : 'New skill'}</h2>
      <div className="skill-columns">
        <div className="soul">
          <label htmlFor={`${id}-md`}>SKILL.md</label>
          <textarea
            id={`${id}-md`}
            className="mono soul-text"
            rows={20}
            spellCheck={false}
            value={text}
            aria-describedby={`${id}-notes`}
            aria-invalid={shown.length > 0 || problem ? true : undefined}
            onChange={(event) => setText(event.currentTarget.value)}
          />
          <p className="muted meta">{text.length.toLocaleString()} characters</p>
        </div>
        <div id={`${id}-notes`} className="skill-notes stack">
          <p className="muted meta">
            The frontmatter between the <code>---</code> lines names the skill (its <code>name</code> is also its slug) and says what it does
            (<code>description</code>). Besides these, only license, compatibility, metadata and allowed-tools are kept.
          </p>
          {shown.length > 0 ? (
            <ul className="error checks" role="alert">
              {shown.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
          {problem ? (
            <div className="error" role="alert">
              <p>{problem.message}</p>
              {problem.details.length > 0 ? (
                <ul className="checks">
                  {problem.details.map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          <label>
            Category
            <input value={category} onChange={(event) => setCategory(event.currentTarget.value)} placeholder="optional, e.g. writing" />
          </label>
        </div>
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !changed}>
          {busy ? 'Saving…' : skill ? 'Save' : 'Create skill'}
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          {skill ? 'Close' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}
