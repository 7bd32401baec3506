import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, useAction } from '../components/actions';
import { ConfirmButton } from '../components/confirm';
import { LoadMore, usePaged } from '../components/paged';
import { SearchForm } from '../components/search-form';
import { Empty, PageHeader, Show, When } from '../components/ui';
import { SkillEditor } from './skills/editor';

type Summary = Schemas['SkillSummary'];

const PAGE_SIZE = 25;

/** Skills: SKILL.md instructions agents can look up and follow. */
export function SkillsPage() {
  const [searched, setSearched] = useState('');
  // undefined: no editor open; 'new': creating; a number: editing that skill.
  const [editing, setEditing] = useState<number | 'new'>();
  const skills = usePaged(
    async (cursor) =>
      unwrap(await api.GET('/api/v1/skills', { params: { query: searched ? { q: searched, limit: 100 } : { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    [searched],
  );

  const replace = (changed: Summary) => skills.update((list) => list.map((item) => (item.id === changed.id ? changed : item)));

  return (
    <>
      <PageHeader title="Skills">
        {editing === 'new' ? null : (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            New skill
          </button>
        )}
      </PageHeader>
      {editing === 'new' ? (
        <SkillEditor
          onCancel={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            skills.reload();
          }}
        />
      ) : null}
      <section aria-labelledby="skills-list" className="stack">
        <h2 id="skills-list">{searched ? `Skills matching “${searched}”` : 'Your skills'}</h2>
        <SearchForm label="Search skills" searched={searched} onSearch={setSearched} />
        <Show loaded={skills} what="Loading skills">
          {(list) =>
            list.length === 0 ? (
              <Empty>{searched ? 'No skill holds any word of that search.' : 'No skill yet. A skill is a SKILL.md: a frontmatter naming it, then the instructions an agent follows.'}</Empty>
            ) : (
              <ul className="cards">
                {list.map((skill) => (
                  <li key={skill.id}>
                    {editing === skill.id ? (
                      <SkillEditor
                        id={skill.id}
                        onCancel={() => setEditing(undefined)}
                        onSaved={(saved) => {
                          replace(saved);
                          setEditing(undefined);
                        }}
                      />
                    ) : (
                      <SkillCard
                        skill={skill}
                        onEdit={() => setEditing(skill.id)}
                        onChanged={replace}
                        onDeleted={() => skills.update((items) => items.filter((item) => item.id !== skill.id))}
                      />
                    )}
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
        <LoadMore paged={skills} />
      </section>
    </>
  );
}

function SkillCard({ skill, onEdit, onChanged, onDeleted }: { skill: Summary; onEdit: () => void; onChanged: (skill: Summary) => void; onDeleted: () => void }) {
  const { busy, error, run } = useAction();
  const path = { params: { path: { id: skill.id } } };

  const toggle = async () => {
    await run(async () => {
      const answer = skill.active ? await api.POST('/api/v1/skills/{id}/deactivate', path) : await api.POST('/api/v1/skills/{id}/activate', path);
      onChanged(unwrap(answer).data);
    });
  };

  return (
    <article className={skill.active ? 'card active-card' : 'card'} aria-label={skill.name}>
      <h3 className="card-title">
        <span className="mono">{skill.name}</span>
        {/* Said either way: a new skill starts inactive, and agents are not offered it until it is activated. */}
        {skill.active ? (
          <span className="tag active-tag">Active</span>
        ) : (
          <span className="tag inactive-tag" title="Agents are not offered this skill until it is activated">
            Inactive
          </span>
        )}
        {skill.category ? <span className="tag">{skill.category}</span> : null}
      </h3>
      {skill.description ? <p className="prose">{skill.description}</p> : <p className="muted">No description.</p>}
      <p className="muted meta">
        {skill.origin.type === 'installed' ? 'Installed from the marketplace' : 'Created here'} · updated <When at={skill.updatedAt} />
      </p>
      <ActionError error={error} />
      <div className="row">
        <button type="button" onClick={onEdit}>
          Edit
        </button>
        <button type="button" disabled={busy} onClick={() => void toggle()}>
          {skill.active ? 'Deactivate' : 'Activate'}
        </button>
        <ConfirmButton question="Delete this skill?" onConfirm={async () => {
          unwrap(await api.DELETE('/api/v1/skills/{id}', path));
          onDeleted();
        }} />
      </div>
    </article>
  );
}
