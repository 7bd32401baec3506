import { useRef } from 'react';

/**
 * One editable row of a free JSON object. Strings are edited as text; any other value (a number,
 * a list, an object) as JSON, so that what the form does not understand comes back unchanged.
 */
export interface KeyValueRow {
  id: number;
  key: string;
  value: string;
  json: boolean;
}

let nextRowId = 0;

export function rowsOf(object: Record<string, unknown> | undefined): KeyValueRow[] {
  return Object.entries(object ?? {}).map(([key, value]) =>
    typeof value === 'string' ? { id: ++nextRowId, key, value, json: false } : { id: ++nextRowId, key, value: JSON.stringify(value), json: true },
  );
}

/** The rows as an object, or the first problem in words (an empty key, a key twice, JSON that does not parse). */
export function objectOf(rows: KeyValueRow[], what: string): Record<string, unknown> | string {
  const out: Record<string, unknown> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (!key && !row.value.trim()) continue;
    if (!key) return `${what}: a row has a value but no key. Give it a key, or remove the row.`;
    if (Object.hasOwn(out, key)) return `${what}: the key "${key}" appears twice. Keep one row for it.`;
    if (row.json) {
      try {
        out[key] = JSON.parse(row.value);
      } catch {
        return `${what}: the value of "${key}" is not valid JSON. Fix it, or switch the row to text.`;
      }
    } else out[key] = row.value;
  }
  return out;
}

/** Key and value inputs, one row each, with Remove and "Add a row". */
export function KeyValueRows({ legend, rows, onChange }: { legend: string; rows: KeyValueRow[]; onChange: (rows: KeyValueRow[]) => void }) {
  const list = useRef<HTMLUListElement>(null);
  const set = (id: number, patch: Partial<KeyValueRow>) => onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  const add = () => {
    onChange([...rows, { id: ++nextRowId, key: '', value: '', json: false }]);
    // The new row's key field takes the focus once it exists.
    requestAnimationFrame(() => list.current?.querySelector<HTMLInputElement>('li:last-child input')?.focus());
  };
  return (
    <fieldset className="kv">
      <legend>{legend}</legend>
      {rows.length === 0 ? <p className="muted meta">Nothing here yet.</p> : null}
      <ul ref={list} className="kv-rows">
        {rows.map((row, index) => (
          <li key={row.id}>
            <label>
              Key
              <input value={row.key} onChange={(event) => set(row.id, { key: event.currentTarget.value })} />
            </label>
            <label>
              {row.json ? 'Value (JSON)' : 'Value'}
              <input className={row.json ? 'mono' : undefined} value={row.value} onChange={(event) => set(row.id, { value: event.currentTarget.value })} />
            </label>
            <button type="button" aria-label={`Remove ${legend.toLowerCase()} row ${index + 1}${row.key ? ` (${row.key})` : ''}`} onClick={() => onChange(rows.filter((other) => other.id !== row.id))}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <button type="button" onClick={add}>
        Add a row
      </button>
    </fieldset>
  );
}

/**
 * The JSON Merge Patch (RFC 7396) that turns `before` into `after`: keys gone become null,
 * objects are compared key by key, anything else that changed is sent whole. Keys the form
 * never showed are not in the patch, so the server keeps them as they are.
 */
export function mergePatch(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) patch[key] = null;
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (isObject(old) && isObject(value)) {
      const inner = mergePatch(old, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (JSON.stringify(old) !== JSON.stringify(value)) patch[key] = value;
  }
  return patch;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
