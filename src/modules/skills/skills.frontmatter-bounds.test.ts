/**
 * SKILL.md frontmatter is parsed on the request thread, so its parse must be bounded: the
 * frontmatter is capped in size (FRONTMATTER_MAX_BYTES) and in nesting depth
 * (FRONTMATTER_MAX_DEPTH) before the yaml parser sees it, and within those caps every shape
 * parses in linear time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';
import { FRONTMATTER_MAX_BYTES, FRONTMATTER_MAX_DEPTH, nestingBound, sanitizeSkillMarkdown } from './skills.frontmatter.js';

const record = { name: 'bounded', description: 'A skill' };
const skill = (frontmatter: string) => `---\n${frontmatter}\n---\n# Body\n`;

/** `unit` repeated to fill `bytes` (after `prefix`). */
const fill = (bytes: number, unit: string, prefix = '') => prefix + unit.repeat(Math.floor((bytes - prefix.length) / unit.length));

/** Shapes that cost a YAML parser the most per byte, at a given size. */
const HOSTILE: Record<string, (bytes: number) => string> = {
  flowSequences: (bytes) => fill(bytes, '['),
  flowMappings: (bytes) => fill(bytes, '{'),
  compactSequences: (bytes) => fill(bytes, '- '),
  indentation: (bytes) => {
    const lines: string[] = [];
    for (let size = 0, depth = 0; size < bytes; depth++) {
      lines.push(`${' '.repeat(depth)}k:`);
      size += depth + 3;
    }
    return lines.join('\n').slice(0, bytes);
  },
  // A mapping's duplicate-key check compares each key with those before it.
  manyKeys: (bytes) => Array.from({ length: Math.floor(bytes / 12) }, (_, i) => `k${String(i).padStart(6, '0')}: v`).join('\n'),
  aliases: (bytes) => fill(bytes, '- *a\n', 'a: &a [x, y]\nb:\n'),
  anchorsAndTags: (bytes) => fill(bytes, '- &a !t x\n', 'b:\n'),
  brokenLines: (bytes) => fill(bytes, 'description: "x\n'),
  brokenFlow: (bytes) => fill(bytes, 'description: [\n'),
};

describe('frontmatter nesting', () => {
  it('bounds the nesting depth from above without parsing', () => {
    expect(nestingBound('name: x\ndescription: y')).toBe(0);
    expect(nestingBound('metadata:\n  a: b\nallowed-tools:\n  - Read\n  - Bash')).toBe(3);
    expect(nestingBound('a: [b, {c: [d]}]')).toBe(3);
    expect(nestingBound('- - - x')).toBe(3);
    expect(nestingBound('['.repeat(1_000))).toBe(1_000);
    // Deeper than FRONTMATTER_MAX_DEPTH: not parsed, rebuilt from the record.
    const deep = sanitizeSkillMarkdown(skill(`license: MIT\nx: ${'['.repeat(FRONTMATTER_MAX_DEPTH + 1)}`), record);
    expect(deep.regenerated).toBe('too-deep');
    expect(deep.frontmatter).toEqual(record);
    const fine = sanitizeSkillMarkdown(skill(`license: MIT\nx: ${'['.repeat(FRONTMATTER_MAX_DEPTH - 4)}${']'.repeat(FRONTMATTER_MAX_DEPTH - 4)}`), record);
    expect(fine.frontmatter.license).toBe('MIT');
  });

  it('every hostile shape at the size cap is read in linear time', () => {
    const timed = (input: string) => {
      const started = performance.now();
      sanitizeSkillMarkdown(input, record);
      return performance.now() - started;
    };
    for (const [shape, make] of Object.entries(HOSTILE)) {
      const quarter = timed(skill(make(FRONTMATTER_MAX_BYTES / 4)));
      const full = timed(skill(make(FRONTMATTER_MAX_BYTES - 64)));
      // Four times the input takes nowhere near sixteen times as long (the floor absorbs a loaded machine's noise).
      expect(full, shape).toBeLessThan(Math.max(quarter, 50) * 8);
    }
  });
});

describe('security: deeply nested frontmatter through the API', () => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner();
  });
  afterAll(async () => t.close());

  it('is stored with a rebuilt frontmatter, and the server lives on (2 KB of "{" made V8 abort the process)', async () => {
    let n = 0;
    for (const frontmatter of ['{'.repeat(2_000), '['.repeat(8_000), '- '.repeat(5_000), HOSTILE.indentation!(FRONTMATTER_MAX_BYTES - 64)]) {
      // Twice each: the abort came when the parser's regular expressions were compiled to machine code, on a later call.
      for (let round = 0; round < 2; round++) {
        n += 1;
        const res = await t.request('POST', '/api/v1/skills', {
          token: owner.token,
          body: { name: `deep-${n}`, description: 'Deep', scriptContent: skill(frontmatter) },
        });
        expect(res.status, res.text).toBe(201);
        expect(res.body.data.scriptContent).toBe(`---\nname: deep-${n}\ndescription: Deep\n---\n# Body\n`);
      }
    }
    expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
  });
});
