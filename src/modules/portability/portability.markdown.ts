/**
 * YAML frontmatter for the archive's Markdown pages. Each value is written as JSON, which YAML
 * 1.2 reads as the same value (a double-quoted string, a flow sequence or mapping, a number,
 * true/false, null): every field survives exactly, with no YAML library and no quoting rules.
 */
import { createHash } from 'node:crypto';

/** A key YAML reads as itself without quotes, or the key quoted. */
function yamlKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
}

export function frontmatter(fields: Record<string, unknown>): string {
  const lines = Object.entries(fields).map(([key, value]) => `${yamlKey(key)}: ${JSON.stringify(value ?? null)}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

/** A file name of letters, digits, dot, dash and underscore (what ids and slugs are made of), never empty. */
export function safeFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 120);
  return safe === '' ? '_' : safe;
}

/**
 * Names the pages of one folder of an archive (`memory/`, `knowledge/`, `personas/`), unique
 * within it: two files of one name make the archive one its own import refuses ("is in it
 * twice"). A record whose id is a safe file name already is named by its id, as it always was.
 * Any other id (one with characters `safeFileName` replaces, or longer than it keeps: `mem_a/b`
 * and `mem_a_b`, or two ids sharing their first 120 characters, once named alike) is named by
 * its safe form, `~` and 16 hex digits of the SHA-256 of the real id: still readable, and never
 * the name of a safe id, which holds no `~`. Two such names alike (64 bits of a hash alike) take
 * `~2`, `~3`…, so the names are unique whatever the ids; only these names are remembered, so an
 * account of ordinary ids holds nothing more while it is exported. The import reads the records
 * from `data/*.jsonl` and their ids from there (these pages are for people and other tools),
 * so how a page is named changes nothing it reads.
 */
export function pageNamer(): (id: string) => string {
  const hashed = new Set<string>();
  return (id) => {
    const safe = safeFileName(id);
    if (safe === id) return id;
    const base = `${safe}~${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 16)}`;
    let name = base;
    for (let n = 2; hashed.has(name); n++) name = `${base}~${n}`;
    hashed.add(name);
    return name;
  };
}
