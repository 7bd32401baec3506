import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { SubmitOrCancel } from '../../components/submit-or-cancel';

type Token = Schemas['Token'];

/** The tags typed in a field, comma-separated; none is no limit (null). The server normalizes them. */
export function memoryTagsOf(text: string): string[] | null {
  const tags = text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  return tags.length === 0 ? null : tags;
}

/**
 * The field of the token editor that limits a token's memory to tags: a work agent that sees and
 * writes only entries tagged `work`. Empty: the token reaches all of the owner's memory.
 */
export function MemoryTagsField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id}>Memory tags (optional)</label>
      <input id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)} placeholder="e.g. work, projects" aria-describedby={`${id}-help`} />
      <p className="muted" id={`${id}-help`}>
        Comma-separated. When set, the token sees, searches and writes only memory entries carrying one of these tags; other entries do not exist for it.
        Leave empty for all memory.
      </p>
    </div>
  );
}

/** How a token's memory limit reads in its card. */
export function MemoryTagsShown({ token }: { token: Token }) {
  // The owner's own tokens are never limited.
  if (token.kind === 'master' || token.kind === 'session' || !token.memoryTags) return <span className="muted">all memory</span>;
  return (
    <span>
      {token.memoryTags.map((tag) => (
        <span key={tag} className="tag">
          {tag}
        </span>
      ))}
    </span>
  );
}

/** Changes, or lifts, the memory tags of an existing token (PUT /api/v1/tokens/{id}). */
export function MemoryTagsEditor({ token, onSaved, onClose }: { token: Token; onSaved: (token: Token) => void; onClose: () => void }) {
  const [text, setText] = useState((token.memoryTags ?? []).join(', '));
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const answer = unwrap(await api.PUT('/api/v1/tokens/{id}', { params: { path: { id: token.id } }, body: { memoryTags: memoryTagsOf(text) } }));
      onSaved(answer.data);
      onClose();
    });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={`Memory tags of ${token.name}`}>
      <MemoryTagsField value={text} onChange={setText} />
      <SubmitOrCancel label="Save memory tags" busy={action.busy} onCancel={onClose} />
      <ActionError error={action.error} />
    </form>
  );
}
