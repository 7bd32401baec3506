// @engine-independent: reads the documents in the repository; no database
/**
 * The documents' links lead somewhere: every relative link in README.md, CHANGELOG.md and docs/**\/*.md names
 * a file that exists, and a `#fragment` names a heading of that file (as GitHub makes anchors
 * of headings). Links inside code (fenced or inline) are text, not links, and are left alone.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

const DOCUMENTS = [path.join(ROOT, 'README.md'), path.join(ROOT, 'CHANGELOG.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

/** The text outside code: fenced blocks and inline code spans blanked, line count kept. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`+[^`]*`+/g, '');
  });
}

/** GitHub's anchor of a heading: its text without markup, lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  prose(readFileSync(file, 'utf8')).forEach((text, index) => {
    for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** Why a link leads nowhere, or null when it resolves. */
function brokenBecause({ file, target }: Link): string | null {
  const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  if (!existsSync(resolved)) return `${path.relative(ROOT, resolved)} does not exist`;
  if (fragment === undefined || fragment === '') return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return `#${fragment} on a file that is not Markdown`;
  return anchorsOf(resolved).has(decodeURIComponent(fragment).toLowerCase()) ? null : `${path.relative(ROOT, resolved)} has no heading #${fragment}`;
}

describe('links in README.md and docs/', () => {
  it('finds the documents and their links (the check reads what it should)', () => {
    expect(DOCUMENTS.map((file) => path.relative(ROOT, file))).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md']));
    expect(DOCUMENTS.flatMap(relativeLinks).length).toBeGreaterThan(20);
    expect(slug('Remote PCs (AFP)')).toBe('remote-pcs-afp');
    expect(slug('Google: mail and files')).toBe('google-mail-and-files');
    expect(slug('`npm run bench`, step by step')).toBe('npm-run-bench-step-by-step');
  });

  it('every relative link names an existing file, and every #fragment a heading in it', () => {
    const broken = DOCUMENTS.flatMap(relativeLinks).flatMap((link) => {
      const why = brokenBecause(link);
      return why ? [`${path.relative(ROOT, link.file)}:${link.line} (${link.target}): ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('a broken link is caught: a missing file and a missing heading', () => {
    const readme = path.join(ROOT, 'README.md');
    expect(brokenBecause({ file: readme, line: 1, target: 'docs/no-such-file.md' })).toMatch(/does not exist/);
    expect(brokenBecause({ file: readme, line: 1, target: '#no-such-heading' })).toMatch(/has no heading/);
    expect(brokenBecause({ file: readme, line: 1, target: '#configuration' })).toBeNull();
  });
});
