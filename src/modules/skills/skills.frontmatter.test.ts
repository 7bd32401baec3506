// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import {
  FRONTMATTER_KEYS,
  FRONTMATTER_MAX_BYTES,
  nestingBound,
  sanitizeSkillMarkdown,
  splitFrontmatter,
  stringifyFrontmatter,
} from './skills.frontmatter.js';

const RECORD = { name: 'pdf-tools', description: 'Reads and fills PDF forms' };

/** Parses stored content the way a strict consumer would: the core schema, aliases refused. */
function reparse(content: string) {
  const split = splitFrontmatter(content);
  expect(split.frontmatter).not.toBeNull();
  const doc = parseDocument(split.frontmatter!, { schema: 'core', strict: true, uniqueKeys: true });
  expect(doc.errors).toEqual([]);
  expect(doc.warnings).toEqual([]);
  const value = doc.toJS({ maxAliasCount: 0 }) as Record<string, unknown>;
  return { value, body: split.body };
}

function expectSane(content: string, record = RECORD) {
  expect(content.startsWith('---\n')).toBe(true);
  expect(content).not.toContain('\r');
  expect(content).not.toContain('\uFEFF');
  const { value, body } = reparse(content);
  expect(value.name).toBe(record.name);
  expect(value.description).toBe(record.description);
  for (const key of Object.keys(value)) expect(FRONTMATTER_KEYS as readonly string[]).toContain(key);
  for (const v of Object.values(value)) {
    if (typeof v === 'object' && v !== null) {
      for (const inner of Object.values(v)) expect(typeof inner).toBe('string');
    } else {
      expect(typeof v).toBe('string');
    }
  }
  // Sanitizing what was stored changes nothing.
  expect(sanitizeSkillMarkdown(content, record).content).toBe(content);
  return { value, body };
}

const BILLION_LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  'h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
  'i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
  'metadata: *i',
  'allowed-tools: *i',
  'license: *a',
].join('\n');

const HOSTILE: Record<string, string> = {
  'billion laughs': `---\n${BILLION_LAUGHS}\n---\n# Body\n`,
  'alias in metadata': '---\nname: x\nbase: &b { k: v }\nmetadata:\n  <<: *b\n  ok: yes\n  ref: *b\n---\nbody\n',
  'js function tag': '---\nname: !!js/function "function () { return process.exit(1) }"\ndescription: !!python/object:os.system "rm -rf /"\nlicense: !custom MIT\n---\nbody',
  'tabs as indentation': '---\nname: x\nmetadata:\n\tauthor: me\nlicense:\tMIT\n---\nbody',
  'unterminated quote': '---\nname: "pdf\ndescription: \'half\nlicense: Apache-2.0\n---\nbody',
  'huge frontmatter': `---\nname: x\nmetadata:\n${'  k: v\n'.repeat(FRONTMATTER_MAX_BYTES / 4)}---\nbody`,
  '--- inside the body': '---\nname: x\n---\nintro\n---\nnot: frontmatter\n---\nend',
  'CRLF line endings': '---\r\nname: x\r\nlicense: MIT\r\n---\r\n# Title\r\ntext\r\n',
  BOM: '\uFEFF---\nname: x\nlicense: MIT\n---\nbody',
  'no frontmatter': '# Just markdown\n\nwith text',
  'empty input': '',
  'unclosed frontmatter': '---\nname: x\nno closing line',
  'a list instead of a mapping': '---\n- name\n- description\n---\nbody',
  'a scalar instead of a mapping': '---\njust words\n---\nbody',
  'empty frontmatter': '---\n---\nbody',
  'duplicate keys': '---\nlicense: MIT\nlicense: GPL\n---\nbody',
  'YAML directive and document markers': '---\n%YAML 1.1\n...\n---\nbody',
  'complex keys': '---\n? [name, description]\n: x\n? { a: b }\n: y\n---\nbody',
  'non-string metadata': '---\nmetadata:\n  version: 1.10\n  enabled: true\n  list: [a, b]\n  nested: { a: b }\n  empty:\n---\nbody',
  'control characters and unicode': '---\nname: x\nlicense: "a\\u0000b\\u2028c"\ncompatibility: "ü 💡"\n---\nbody',
};

describe('nestingBound', () => {
  it('bounds block nesting whatever the line breaks: LF, CR LF or a lone CR', () => {
    const levels = 150;
    const lines = ['metadata:', ...Array.from({ length: levels }, (_, i) => `${' '.repeat(i + 1)}k:`)];
    for (const eol of ['\n', '\r\n', '\r']) {
      const yaml = lines.join(eol);
      // What the parser would build is at least as deep as the bound says.
      expect(nestingBound(yaml)).toBeGreaterThanOrEqual(levels);
    }
  });
});

describe('sanitizeSkillMarkdown on hostile input', () => {
  for (const [label, input] of Object.entries(HOSTILE)) {
    it(`stores parseable frontmatter with only the allowed keys: ${label}`, () => {
      const result = sanitizeSkillMarkdown(input, RECORD);
      expectSane(result.content);
    });
  }

  it('never expands aliases: the bomb is cheap and leaves no trace', () => {
    const started = performance.now();
    const result = sanitizeSkillMarkdown(HOSTILE['billion laughs']!, RECORD);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.content).not.toContain('lol');
    expect(result.content).not.toContain('&');
    expect(result.content).not.toContain('*');
    const { value, body } = expectSane(result.content);
    expect(Object.keys(value).sort()).toEqual(['description', 'name']);
    expect(body).toBe('# Body\n');
  });

  it('drops alias values and merge keys in metadata but keeps plain entries', () => {
    const { value } = expectSane(sanitizeSkillMarkdown(HOSTILE['alias in metadata']!, RECORD).content);
    expect(value.metadata).toEqual({ ok: 'yes' });
  });

  it('runs no tags: tagged values are plain strings, and name/description come from the record', () => {
    const result = sanitizeSkillMarkdown(HOSTILE['js function tag']!, RECORD);
    const { value } = expectSane(result.content);
    expect(value).toEqual({ ...RECORD, license: 'MIT' });
    expect(result.content).not.toContain('!!');
    expect(result.content).not.toContain('process.exit');
  });

  it('regenerates broken YAML and salvages well-formed one-line fields', () => {
    const tabs = sanitizeSkillMarkdown(HOSTILE['tabs as indentation']!, RECORD);
    expect(tabs.regenerated).toBe('invalid-yaml');
    expect(expectSane(tabs.content).value).toEqual({ ...RECORD, license: 'MIT' });

    const quotes = sanitizeSkillMarkdown(HOSTILE['unterminated quote']!, RECORD);
    expect(quotes.regenerated).toBe('invalid-yaml');
    const { value, body } = expectSane(quotes.content);
    expect(value.license).toBe('Apache-2.0');
    expect(body).toBe('body');
  });

  it('does not parse a frontmatter over the size cap', () => {
    const result = sanitizeSkillMarkdown(HOSTILE['huge frontmatter']!, RECORD);
    expect(result.regenerated).toBe('too-large');
    expect(result.content.length).toBeLessThan(200);
    expect(expectSane(result.content).body).toBe('body');
  });

  it('ends the frontmatter at the first --- line and keeps later ones in the body', () => {
    const { value, body } = expectSane(sanitizeSkillMarkdown(HOSTILE['--- inside the body']!, RECORD).content);
    expect(Object.keys(value).sort()).toEqual(['description', 'name']);
    expect(body).toBe('intro\n---\nnot: frontmatter\n---\nend');
  });

  it('normalizes CRLF and strips a BOM, keeping the fields', () => {
    for (const label of ['CRLF line endings', 'BOM']) {
      const { value } = expectSane(sanitizeSkillMarkdown(HOSTILE[label]!, RECORD).content);
      expect(value.license).toBe('MIT');
    }
    expect(sanitizeSkillMarkdown(HOSTILE['CRLF line endings']!, RECORD).content.endsWith('---\n# Title\ntext\n')).toBe(true);
  });

  it('gives a body without frontmatter one, set off by a blank line', () => {
    const result = sanitizeSkillMarkdown('# Just markdown\n\nwith text', RECORD);
    expect(result.regenerated).toBe('missing');
    expect(result.content).toBe('---\nname: pdf-tools\ndescription: Reads and fills PDF forms\n---\n\n# Just markdown\n\nwith text');
    expect(sanitizeSkillMarkdown('', RECORD).content).toBe('---\nname: pdf-tools\ndescription: Reads and fills PDF forms\n---\n');
  });

  it('treats an unclosed opening line as body', () => {
    const { body } = expectSane(sanitizeSkillMarkdown(HOSTILE['unclosed frontmatter']!, RECORD).content);
    expect(body).toBe('\n---\nname: x\nno closing line');
  });

  it('regenerates a frontmatter that is not a mapping', () => {
    expect(sanitizeSkillMarkdown(HOSTILE['a list instead of a mapping']!, RECORD).regenerated).toBe('not-a-mapping');
    expect(sanitizeSkillMarkdown(HOSTILE['a scalar instead of a mapping']!, RECORD).regenerated).toBe('not-a-mapping');
    expect(sanitizeSkillMarkdown(HOSTILE['empty frontmatter']!, RECORD).regenerated).toBe('not-a-mapping');
  });

  it('keeps metadata as a string-to-string map, scalars as written', () => {
    const { value } = expectSane(sanitizeSkillMarkdown(HOSTILE['non-string metadata']!, RECORD).content);
    expect(value.metadata).toEqual({ version: '1.10', enabled: 'true', empty: '' });
  });

  it('keeps control characters and unicode intact through escaping', () => {
    const { value } = expectSane(sanitizeSkillMarkdown(HOSTILE['control characters and unicode']!, RECORD).content);
    expect(value.license).toBe('a\u0000b\u2028c');
    expect(value.compatibility).toBe('ü 💡');
  });
});

describe('sanitizeSkillMarkdown on well-formed input', () => {
  const FULL = [
    '---',
    'name: old-name',
    'description: >',
    '  Extracts text and tables',
    '  from PDF files.',
    'license: Apache-2.0',
    'compatibility: Requires python3 and network access',
    'metadata:',
    '  author: example-org',
    '  version: "1.0"',
    'allowed-tools: Bash(git:*) Read',
    'x-vendor: dropped',
    'hooks: { pre: "rm -rf /" }',
    '---',
    '',
    '# PDF tools',
    '',
    'Use `pdftotext`.',
    '',
  ].join('\n');

  it('keeps the Agent Skills fields in order, drops the rest, and takes name/description from the record', () => {
    const result = sanitizeSkillMarkdown(FULL, RECORD);
    expect(result.regenerated).toBeNull();
    expect(result.frontmatterDescription).toBe('Extracts text and tables from PDF files.');
    const { value, body } = expectSane(result.content);
    expect(Object.keys(value)).toEqual(['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools']);
    expect(value).toEqual({
      ...RECORD,
      license: 'Apache-2.0',
      compatibility: 'Requires python3 and network access',
      metadata: { author: 'example-org', version: '1.0' },
      'allowed-tools': 'Bash(git:*) Read',
    });
    expect(body).toBe('\n# PDF tools\n\nUse `pdftotext`.\n');
  });

  it('reads a YAML list of allowed tools as the space-separated string the format defines', () => {
    const { value } = expectSane(sanitizeSkillMarkdown('---\nallowed-tools:\n  - Read\n  - Bash\n---\n', RECORD).content);
    expect(value['allowed-tools']).toBe('Read Bash');
  });

  it('quotes record values that YAML would read as something else', () => {
    for (const description of ['true', 'yes', 'no', '1.0', '~', 'null', '- item', '# not a comment', 'a: b', '---', 'line\n---\nline', '', ' padded ', '"quoted"', "it's", '*alias', '&anchor', '!tag']) {
      const record = { name: 'n', description };
      expectSane(sanitizeSkillMarkdown('body', record).content, record);
    }
  });

  it('writes a frontmatter in a fixed order and never a document marker inside it', () => {
    const text = stringifyFrontmatter({ metadata: { k: '---' }, description: 'a\n---\nb', name: 'skill' });
    expect(text.split('\n')).not.toContain('---');
    expect(text.startsWith('name: skill\ndescription:')).toBe(true);
    // YAML 1.1 parsers read a bare n, y, yes or off as booleans; those strings are quoted.
    expect(stringifyFrontmatter({ name: 'n', description: 'off' })).toBe('name: "n"\ndescription: "off"\n');
  });
});
