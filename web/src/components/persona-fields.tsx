import { useId } from 'react';

const SOUL_MAX_BYTES = 64 * 1024;

/** What the owner writes of a persona, in the creating and the editing form alike. */
export interface PersonaDraft {
  name: string;
  description: string;
  soul: string;
}

/** A persona's name, description and soul, the fields both persona forms show. */
export function PersonaFields({ value, onChange }: { value: PersonaDraft; onChange: (draft: PersonaDraft) => void }) {
  return (
    <>
      <label>
        Name
        <input value={value.name} required maxLength={100} onChange={(event) => onChange({ ...value, name: event.currentTarget.value })} />
      </label>
      <label>
        Description
        <textarea rows={2} value={value.description} maxLength={2000} onChange={(event) => onChange({ ...value, description: event.currentTarget.value })} />
      </label>
      <SoulField value={value.soul} onChange={(soul) => onChange({ ...value, soul })} />
    </>
  );
}

/** The soul: a large monospace editor with its size, since the API's limit is in bytes. */
function SoulField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const id = useId();
  const bytes = new TextEncoder().encode(value).length;
  return (
    <div className="soul">
      <label htmlFor={id}>Soul</label>
      <textarea
        id={id}
        className="mono soul-text"
        rows={18}
        spellCheck={false}
        value={value}
        aria-describedby={`${id}-count`}
        onChange={(event) => onChange(event.currentTarget.value)}
        placeholder="The persona's instructions, in markdown: who it is, how it speaks, what it must never do."
      />
      <p id={`${id}-count`} className={bytes > SOUL_MAX_BYTES ? 'error meta' : 'muted meta'}>
        {value.length.toLocaleString()} characters
        {bytes > SOUL_MAX_BYTES ? ` — ${bytes.toLocaleString()} bytes, over the ${SOUL_MAX_BYTES.toLocaleString()}-byte limit` : ''}
      </p>
    </div>
  );
}
