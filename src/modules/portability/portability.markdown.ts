/**
 * YAML frontmatter for the archive's Markdown pages. Each value is written as JSON, which YAML
 * 1.2 reads as the same value (a double-quoted string, a flow sequence or mapping, a number,
 * true/false, null): every field survives exactly, with no YAML library and no quoting rules.
 */

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
