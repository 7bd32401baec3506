/**
 * A light reading of a SKILL.md's frontmatter, enough to fill the skill's name and description
 * and to say early what is missing. The server parses the YAML properly and has the last word;
 * this only spares a round trip for the common mistakes.
 */
export interface FrontmatterCheck {
  name?: string;
  description?: string;
  problems: string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function checkFrontmatter(text: string): FrontmatterCheck {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  if (lines[0]?.trim() !== '---') {
    return { problems: ['Start the SKILL.md with a frontmatter block: a line "---", then name: and description:, then another "---" line.'] };
  }
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (end < 0) return { problems: ['The frontmatter block has no closing "---" line.'] };
  const block = lines.slice(1, end);
  const name = field(block, 'name');
  const description = field(block, 'description');
  const problems: string[] = [];
  if (!name) problems.push('The frontmatter needs a name: line (the skill name, which is also its slug).');
  else if (!NAME.test(name)) problems.push(`The name "${name}" must be 1 to 100 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit.`);
  if (!description) problems.push('The frontmatter needs a description: line saying what the skill does and when to use it.');
  return { ...(name ? { name } : {}), ...(description ? { description } : {}), problems };
}

/** A top-level key's value: on one line (quoted or not), or a folded/literal block under it. */
function field(block: string[], key: string): string | undefined {
  const at = block.findIndex((line) => line.startsWith(`${key}:`));
  if (at < 0) return undefined;
  const raw = block[at]!.slice(key.length + 1).trim();
  if (/^[|>][+-]?$/.test(raw)) {
    const folded: string[] = [];
    for (const line of block.slice(at + 1)) {
      if (line.trim() && !/^\s/.test(line)) break;
      folded.push(line.trim());
    }
    return folded.join(raw.startsWith('>') ? ' ' : '\n').trim() || undefined;
  }
  return unquote(raw) || undefined;
}

function unquote(value: string): string {
  if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
    const inner = value.slice(1, -1);
    return value.startsWith('"') ? inner.replace(/\\"/g, '"').replace(/\\\\/g, '\\') : inner.replace(/''/g, "'");
  }
  // A comment after a plain value is not part of it.
  return value.replace(/\s+#.*$/, '');
}

export const SKILL_TEMPLATE = `---
name: my-skill
description: What this skill does, and when an agent should use it.
---

# My skill

Steps, examples and rules the agent follows.
`;
