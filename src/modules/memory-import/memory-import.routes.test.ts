import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { deflatedSpaces, handZip, zipOf } from '../../../test/hostile-files.js';

const IMPORT = '/api/v1/memory/import';
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/memory-import');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** A multipart/form-data body: the file part and text fields. */
function form(file: { name: string; data: Buffer } | undefined, fields: Record<string, string>): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----hearth-import-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(file.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function upload(token: string, format: string, file: { name: string; data: Buffer }, dryRun = false) {
  const { body, headers } = form(file, { format, dryRun: String(dryRun) });
  return t.request('POST', IMPORT, { token, body, headers });
}

interface Entry {
  id: string | null;
  content: string;
  created_at: string;
  kind: string;
  tags: string[];
  pinned: boolean;
  source: { kind: string; ref?: string } | null;
  author: { channel: string; token: { kind: string } | null };
}

async function stored(owner: Owner): Promise<Entry[]> {
  const res = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: '200' } });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The vault fixture as a zip, with what a real vault holds besides notes, and a name climbing out. */
function vaultZip(): Buffer {
  const root = path.join(FIXTURES, 'vault');
  const walk = (dir: string): Array<{ name: string; data: Buffer }> =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [{ name: `vault/${path.relative(root, full).split(path.sep).join('/')}`, data: readFileSync(full) }];
    });
  return zipOf([
    ...walk(root),
    { name: 'vault/attachments/photo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
    { name: '../outside.md', data: Buffer.from('# Outside\n\nNot a note of the folder.') },
  ]);
}

describe('each format, with a fixture of the tool\'s own format', () => {
  it('a creation time after the import, the years past 9999 too, becomes the import\'s own time', async () => {
    const owner = await t.createOwner('Later Importer');
    const before = new Date().toISOString();
    for (const createdAt of [1.7e15, '+020000-01-01T00:00:00Z', '9999-12-31T23:59:59-23:59', '2999-01-01T00:00:00Z']) {
      const content = JSON.stringify({ results: [{ id: 'later', memory: `From later ${String(createdAt)}`, created_at: createdAt }] });
      const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'mem0', content, dryRun: true } });
      expect(res.status).toBe(200);
      const stamped = res.body.data.entries[0].created_at as string;
      expect(stamped >= before && stamped <= new Date().toISOString()).toBe(true);
    }
  });

  it('mem0: its memories with their ids, categories, type and created_at; a dry run first changes nothing', async () => {
    const owner = await t.createOwner('Mem0 Importer');
    const file = { name: 'mem0-export.json', data: fixture('mem0-export.json') };

    const dry = await upload(owner.token, 'mem0', file, true);
    expect(dry.status).toBe(200);
    expect(dry.body.data.dryRun).toBe(true);
    expect(dry.body.data.counts).toEqual({ entries: 3, skipped: 2, duplicates: 1, split: 0 });
    expect(dry.body.data.entries.every((e: Entry) => e.id === null)).toBe(true);
    expect(await stored(owner)).toEqual([]);

    const res = await upload(owner.token, 'mem0', file);
    expect(res.status).toBe(200);
    expect(res.body.data.counts).toEqual(dry.body.data.counts);
    expect(res.body.data.skipped).toEqual([
      { where: 'memory 5', reason: 'no "memory" text' },
      { where: 'memory 4', reason: 'a repeat of memory 2: imported once' },
    ]);
    const entries = await stored(owner);
    // Newest first by the time mem0 recorded.
    expect(entries.map((e) => e.content)).toEqual([
      'Works at TechCorp as a senior engineer',
      'Is a vegetarian and allergic to nuts',
      'Prefers morning meetings and async communication',
    ]);
    const vegetarian = entries[1]!;
    expect(vegetarian).toMatchObject({
      kind: 'preference',
      tags: ['food', 'health', 'preference'],
      created_at: '2024-07-26T06:57:00.108Z',
      source: { kind: 'other', ref: 'mem0:892db2ae-06d9-49e5-8b3e-585ef9b85b8e' },
      author: { channel: 'import', token: { kind: 'master' } },
    });
    expect(entries[0]).toMatchObject({ kind: 'note', tags: ['professional_details'], created_at: '2024-08-02T16:15:31.550Z' });
    expect(res.body.data.entries.map((e: Entry) => e.id).sort()).toEqual(entries.map((e) => e.id).sort());
    // The import channel is a filter like the others.
    const byChannel = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { channel: 'import' } });
    expect(byChannel.body.data).toHaveLength(3);
  });

  it('the MCP memory server: one entry per observation naming its entity, relations as entries, tags from the entity type', async () => {
    const owner = await t.createOwner('MCP Memory Importer');
    const res = await upload(owner.token, 'mcp-memory', { name: 'memory.json', data: fixture('mcp-memory.json') });
    expect(res.status).toBe(200);
    expect(res.body.data.counts).toEqual({ entries: 6, skipped: 1, duplicates: 0, split: 0 });
    expect(res.body.data.skipped).toEqual([{ where: 'line 3', reason: 'entity "Lyon" has no observations' }]);
    const entries = await stored(owner);
    expect(entries.map((e) => e.content).sort()).toEqual(
      [
        'default_user (person): Lives in Lyon',
        'default_user (person): Speaks French and Spanish',
        'default_user (person): Prefers tea to coffee',
        'Hearth (project): A personal API platform the user builds in TypeScript',
        'default_user works on Hearth',
        'default_user lives in Lyon',
      ].sort(),
    );
    expect(entries.find((e) => e.content.endsWith('Prefers tea to coffee'))).toMatchObject({ tags: ['person'], source: { kind: 'other', ref: 'mcp-memory:default_user' } });
    expect(entries.find((e) => e.content === 'default_user works on Hearth')).toMatchObject({ tags: ['relation'], author: { channel: 'import' } });
  });

  it("Letta's agent file: memory blocks as pinned entries (persona an instruction, human a fact); messages left out", async () => {
    const owner = await t.createOwner('Letta Importer');
    const res = await upload(owner.token, 'letta', { name: 'companion.af', data: fixture('letta-agent.af') });
    expect(res.status).toBe(200);
    expect(res.body.data.counts).toMatchObject({ entries: 2, skipped: 1 });
    expect(res.body.data.skipped).toEqual([{ where: 'messages', reason: '2 messages: conversation history is not memory' }]);
    const entries = await stored(owner);
    expect(entries.find((e) => e.tags.includes('human'))).toMatchObject({
      content: "The human's name is Chad. He likes vibe coding and lives in Montreal.",
      kind: 'fact',
      pinned: true,
      source: { kind: 'other', ref: 'letta:companion/human' },
    });
    expect(entries.find((e) => e.tags.includes('persona'))).toMatchObject({ kind: 'instruction', pinned: true });

    // The first agent file format: core_memory, with the blocks' times (written without a zone: UTC).
    const v1 = await upload(owner.token, 'letta', { name: 'tutor.af', data: fixture('letta-agent-v1.af') });
    expect(v1.status).toBe(200);
    expect(v1.body.data.entries.map((e: Entry) => [e.content, e.created_at, e.kind])).toEqual([
      ['Act as Sam, a patient tutor.', '2025-01-10T12:00:00.000Z', 'instruction'],
      ['Name: Ana. Studies chemistry.', '2025-01-11T09:30:00.000Z', 'fact'],
    ]);
  });

  it('Letta archival passages, where a file carries them, as entries of their own (not pinned)', async () => {
    const owner = await t.createOwner('Letta Archival Importer');
    const file = JSON.parse(fixture('letta-agent.af').toString('utf8'));
    file.agents[0].passages = [{ text: 'Chad went to Japan in 2019.', created_at: '2025-03-01T00:00:00Z', tags: ['travel'] }];
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'letta', content: JSON.stringify(file) } });
    expect(res.status).toBe(200);
    expect(res.body.data.entries.find((e: Entry) => e.content.startsWith('Chad went'))).toMatchObject({
      pinned: false,
      tags: ['archival', 'travel'],
      created_at: '2025-03-01T00:00:00.000Z',
      source: { ref: 'letta:companion/archival' },
    });
  });

  it('an Obsidian or basic-memory folder as a zip: one entry per note, frontmatter and #tags kept, [[wikilinks]] in the text', async () => {
    const owner = await t.createOwner('Vault Importer');
    const res = await upload(owner.token, 'markdown', { name: 'vault.zip', data: vaultZip() });
    expect(res.status).toBe(200);
    expect(res.body.data.counts).toMatchObject({ entries: 2, duplicates: 0, split: 0 });
    expect(res.body.data.skipped).toEqual(
      expect.arrayContaining([
        { where: 'vault/Empty.md', reason: 'the note is empty' },
        { where: 'vault/.obsidian/app.json', reason: 'a hidden file or folder (settings, trash)' },
        { where: 'vault/attachments/photo.png', reason: 'not a Markdown note (.md)' },
        { where: '../outside.md', reason: 'its path leaves the folder (../ or absolute): ignored' },
      ]),
    );
    const entries = await stored(owner);
    const tea = entries.find((e) => e.content.startsWith('# Tea'))!;
    expect(tea.content).toContain('Favourite shop: [[Lyon]] market, see also [[People/Marie|Marie]].');
    expect(tea.content).not.toContain('aliases');
    expect(tea).toMatchObject({ tags: ['preferences', 'food-and-drink', 'health'], created_at: '2023-11-05T08:15:00.000Z', source: { kind: 'other', ref: 'markdown:vault/Tea.md' } });
    const marie = entries.find((e) => e.content.startsWith('# Marie'))!;
    expect(marie.content).toContain('- [fact] Marie is my sister #family');
    expect(marie.content).toContain('- lives_in [[Lyon]]');
    expect(marie).toMatchObject({ kind: 'note', tags: ['family', 'sister'], source: { ref: 'basic-memory:people/marie' } });
  });

  it('one Markdown note, and a note longer than an entry holds split at its sections', async () => {
    const owner = await t.createOwner('Note Importer');
    const single = await upload(owner.token, 'markdown', { name: 'Tea.md', data: fixture('vault/Tea.md') });
    expect(single.status).toBe(200);
    expect(single.body.data.entries[0].content.startsWith('# Tea\n\nI drink green tea')).toBe(true);

    const section = (n: number) => `## Section ${n}\n\n${'A line of the long note. '.repeat(1500)}`;
    const long = `# Long\n\n${[1, 2, 3, 4].map(section).join('\n\n')}`;
    const res = await upload(owner.token, 'markdown', { name: 'Long.md', data: Buffer.from(long) }, true);
    expect(res.status).toBe(200);
    expect(res.body.data.counts.split).toBe(1);
    const parts = res.body.data.entries as Entry[];
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[0]!.content.startsWith(`# Long (part 1 of ${parts.length})`)).toBe(true);
    for (const part of parts) expect(Buffer.byteLength(part.content)).toBeLessThanOrEqual(64 * 1024);
  });

  it('a lone surrogate escaped in the file (half of a pair) is stored as U+FFFD, the import whole', async () => {
    const owner = await t.createOwner('Surrogate Importer');
    // Written by hand: the file carries the escapes as text, as a tool that cut a pair would write them.
    const data = Buffer.from('{"results": [{"memory": "Cut emoji \\ud83d here"}, {"memory": "A whole one \\ud83d\\ude00"}]}');
    const res = await upload(owner.token, 'mem0', { name: 'mem0-export.json', data });
    expect(res.status).toBe(200);
    expect(res.body.data.counts).toMatchObject({ entries: 2 });
    expect((await stored(owner)).map((entry) => entry.content).sort()).toEqual(['A whole one 😀', 'Cut emoji \ufffd here']);
  });

  it('text pasted from "what do you remember about me": one entry per bullet, markers gone, headings and the sentences around skipped', async () => {
    const owner = await t.createOwner('Text Importer');
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'text', content: fixture('chatgpt-memory.txt').toString('utf8') } });
    expect(res.status).toBe(200);
    expect(res.body.data.entries.map((e: Entry) => e.content)).toEqual([
      'Your name is Sam and you live in Lyon.',
      'You have a sister, Marie.',
      'You work as a backend engineer, mostly in TypeScript.',
      'You prefer short answers with code examples.',
      'You are learning Spanish.',
    ]);
    expect(res.body.data.counts).toEqual({ entries: 5, skipped: 6, duplicates: 1, split: 0 });
    expect(res.body.data.skipped).toEqual(
      expect.arrayContaining([
        { where: 'line 1', reason: 'a heading' },
        { where: 'line 3', reason: 'a heading' },
        { where: 'line 7', reason: 'a heading' },
        { where: 'line 12', reason: 'a list marker without text' },
        { where: 'line 14', reason: 'a sentence around the list, not an item of it' },
        { where: 'line 11', reason: 'a repeat of line 10: imported once' },
      ]),
    );
    expect(res.body.data.entries[0]).toMatchObject({ kind: 'note', tags: [], source: { kind: 'other', ref: 'text' }, author: { channel: 'import' } });
  });
});

describe('hostile and broken input: a clear 4xx, and nothing imported', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await t.createOwner('Hostile Importer');
  });
  afterAll(async () => {
    expect(await stored(owner)).toEqual([]);
  });

  it('malformed JSON names its line', async () => {
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'mem0', content: '{\n  "results": [\n    {"memory": "a",}\n  ]\n}' } });
    const error = expectError(res, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/not valid JSON at line 3/);
    expect(error.details).toMatchObject({ line: 3 });

    const lines = fixture('mcp-memory.json').toString('utf8').split('\n');
    lines.splice(2, 0, '{"type":"entity","name":"Broken"');
    const jsonl = await upload(owner.token, 'mcp-memory', { name: 'memory.json', data: Buffer.from(lines.join('\n')) });
    expect(expectError(jsonl, 400, 'VALIDATION_ERROR').details).toMatchObject({ file: 'memory.json', line: 3 });
  });

  it('NUL escaped in a JSON string (the file itself holds none) is refused naming the entry, on both engines', async () => {
    const content = '{"results": [{"id": "a", "memory": "Fine"}, {"id": "b", "memory": "Holds a \\u0000 NUL"}]}';
    const error = expectError(await t.request('POST', IMPORT, { token: owner.token, body: { format: 'mem0', content } }), 400, 'VALIDATION_ERROR');
    expect((error.details as Array<{ field: string }>).map((issue) => issue.field)).toEqual(['body.entries.1.content']);
    expect(error.message).toContain('NUL');
  });

  it('invalid UTF-8 names its line, in a file and in a note of a zip', async () => {
    const bad = Buffer.concat([Buffer.from('- Likes tea\n- Lives in '), Buffer.from([0xc3, 0x28]), Buffer.from('Lyon\n')]);
    const res = await upload(owner.token, 'text', { name: 'memory.txt', data: bad });
    const error = expectError(res, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/memory\.txt is not valid UTF-8 text: line 2, column 12/);
    const zipped = await upload(owner.token, 'markdown', { name: 'notes.zip', data: zipOf([{ name: 'notes/bad.md', data: bad }]) });
    expect(expectError(zipped, 400, 'VALIDATION_ERROR').message).toMatch(/notes\.zip: notes\/bad\.md is not valid UTF-8 text: line 2/);
  });

  it('a zip bomb is stopped while inflating, whatever its directory declares', { timeout: 60_000 }, async () => {
    // 64 MiB of spaces in about 64 KiB, declared as 100 bytes: the directory lies.
    const lying = handZip([{ name: 'bomb.md', method: 8, data: deflatedSpaces(64), size: 100 }]);
    expect(expectError(await upload(owner.token, 'markdown', { name: 'bomb.zip', data: lying }), 413, 'PAYLOAD_TOO_LARGE').message).toMatch(/bomb\.md inflates beyond 4 MiB/);
    // 3 MiB in about 3 KiB, declared honestly: refused for its ratio, below every size bound.
    const honest = handZip([{ name: 'bomb.md', method: 8, data: deflatedSpaces(3), size: 3 * 1024 * 1024 }]);
    expect(expectError(await upload(owner.token, 'markdown', { name: 'bomb.zip', data: honest }), 413, 'PAYLOAD_TOO_LARGE').message).toMatch(/bomb\.md inflates to more than 100 times/);
    // Many notes that inflate modestly each, beyond the total together.
    // Words drawn from a few: text that deflates about tenfold, well within the ratio.
    const words = ['tea', 'lyon', 'sister', 'morning', 'code', 'walks', 'spanish', 'notes'];
    let seed = 7;
    const pick = () => words[((seed = (seed * 1103515245 + 12345) % 2147483648) >>> 16) % words.length]!;
    const note = Buffer.from(Array.from({ length: 3 * 1024 * 1024 / 6 }, pick).join(' ').slice(0, 3 * 1024 * 1024));
    // Deflated once, stored twenty times: the zip is cheap to make, its inflating is what is tested.
    const deflated = deflateRawSync(note);
    const many = handZip(Array.from({ length: 20 }, (_, i) => ({ name: `n${i}.md`, method: 8 as const, data: deflated, size: note.length })));
    expect(expectError(await upload(owner.token, 'markdown', { name: 'many.zip', data: many }), 413, 'PAYLOAD_TOO_LARGE').message).toMatch(/together inflate beyond 50 MiB/);
  });

  it('a damaged zip, and a zip given for a format that reads no zip', async () => {
    const zip = zipOf([{ name: 'a.md', data: Buffer.from('# A\n\ntext') }]);
    expectError(await upload(owner.token, 'markdown', { name: 'cut.zip', data: zip.subarray(0, zip.length - 30) }), 400, 'VALIDATION_ERROR');
    expect(expectError(await upload(owner.token, 'mem0', { name: 'mem0.zip', data: zip }), 400, 'VALIDATION_ERROR').message).toMatch(/only the markdown format reads a zip/);
  });

  it('over the limits: the upload size, the number of entries', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    expectError(await upload(owner.token, 'text', { name: 'big.txt', data: big }), 413, 'PAYLOAD_TOO_LARGE');
    const lines = Array.from({ length: 10_001 }, (_, i) => `- Memory number ${i}`).join('\n');
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'text', content: lines } });
    expect(expectError(res, 413, 'PAYLOAD_TOO_LARGE').message).toMatch(/more than 10000 entries; an import writes at most 10000/);
  });

  it('a file of millions of tiny records is refused while it is read, not once they are all held', async () => {
    // 10 MB of one-character lines: five million entries, had they all been read.
    const tiny = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'text', content: 'a\n'.repeat(5_000_000) } });
    expect(expectError(tiny, 413, 'PAYLOAD_TOO_LARGE').message).toMatch(/more than 10000 entries/);
    // Lines that are no memory at all (headings) are bounded too.
    const headings = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'text', content: '# h\n'.repeat(2_000_000) } });
    expect(expectError(headings, 413, 'PAYLOAD_TOO_LARGE').message).toMatch(/more than 100000 lines or records that are no memory/);
  });

  it('a long line, or a note of many short lines, is split in time linear in its size', { timeout: 120_000 }, async () => {
    // One line of 512 KiB (words, no line end): split at characters into parts of at most 64 KiB.
    // (Measuring the growing part for each character took about 40 s for this line, quadratic in it.)
    const words = Array.from({ length: 100_000 }, (_, i) => `w${i}`).join(' ').slice(0, 512 * 1024).trim();
    let started = Date.now();
    const line = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'text', content: words, dryRun: true } });
    expect(line.status).toBe(200);
    expect(line.body.data.counts).toMatchObject({ split: 1, duplicates: 0 });
    expect(line.body.data.counts.entries).toBe(8);
    expect(line.body.data.entries.every((e: Entry) => Buffer.byteLength(e.content) <= 64 * 1024)).toBe(true);
    expect(line.body.data.entries.map((e: Entry) => e.content).join('')).toBe(words);
    expect(Date.now() - started).toBeLessThan(3_000);
    // A note of 100,000 short lines (about 600 KB) and no blank line: split at its line ends.
    started = Date.now();
    const lines = Array.from({ length: 100_000 }, (_, i) => `l${i}`).join('\n');
    const note = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'markdown', content: lines, dryRun: true } });
    expect(note.status).toBe(200);
    expect(note.body.data.counts.split).toBe(1);
    expect(note.body.data.counts.entries).toBeGreaterThan(8);
    expect(note.body.data.entries.every((e: Entry) => Buffer.byteLength(e.content) <= 64 * 1024)).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a body that is not an import: the format, the content, the file part', async () => {
    expect(expectError(await t.request('POST', IMPORT, { token: owner.token, body: { format: 'evernote', content: 'x' } }), 400, 'VALIDATION_ERROR').details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: expect.stringMatching(/^body\.format/) })]),
    );
    expectError(await t.request('POST', IMPORT, { token: owner.token, body: { format: 'text' } }), 400, 'VALIDATION_ERROR');
    const noFile = form(undefined, { format: 'text' });
    expectError(await t.request('POST', IMPORT, { token: owner.token, body: noFile.body, headers: noFile.headers }), 400, 'VALIDATION_ERROR');
    expect(expectError(await upload(owner.token, 'letta', { name: 'x.af', data: Buffer.from('[1,2]') }), 400, 'VALIDATION_ERROR').message).toMatch(/not a letta file/);
  });
});

describe("the file's words repeated in the answer are bounded", () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await t.createOwner('Echo Importer');
  });
  afterAll(async () => {
    // Every import here is a dry run.
    expect(await stored(owner)).toEqual([]);
  });

  /** An agent file: one block with this label and value, named `times` times by the agent's block_ids. */
  const namedOften = (label: string, value: string, times: number) =>
    JSON.stringify({ agents: [{ name: 'companion', block_ids: Array.from({ length: times }, () => 'block-0') }], blocks: [{ id: 'block-0', label, value }] });

  const expectBounded = (skipped: Array<{ where: string; reason: string }>) => {
    for (const { where, reason } of skipped) {
      expect(where.length).toBeLessThanOrEqual(300);
      expect(reason.length).toBeLessThanOrEqual(400);
    }
  };

  it("an empty block with a 2 MB label, named 200 times: a small answer, quickly (it was 400 MB, 2.2 GB held and 11 s)", async () => {
    const started = Date.now();
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'letta', content: namedOften('l'.repeat(2 * 1024 * 1024), '', 200), dryRun: true } });
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(100 * 1024);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(res.body.data.counts).toMatchObject({ entries: 0, skipped: 200 });
    const [first, second] = res.body.data.skipped as Array<{ where: string; reason: string }>;
    // The label cut to 100 characters, an ellipsis saying so; the block read once.
    expect(first).toEqual({ where: `block ${'l'.repeat(99)}\u2026`, reason: `memory block "${'l'.repeat(99)}\u2026" is empty` });
    expect(second).toEqual({ where: first!.where, reason: `the same block as ${first!.where}: imported once` });
    expectBounded(res.body.data.skipped);
  });

  it('a 3 MB label is a 200 too (it was a 500: a string too long to make), cut on a whole character', async () => {
    // Emoji are two UTF-16 units each: a cut at 99 units would leave half of one.
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'letta', content: namedOften('\u{1F375}'.repeat(1536 * 1024), '', 200), dryRun: true } });
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(100 * 1024);
    const where = res.body.data.skipped[0].where as string;
    expect(where).toBe(`block ${'\u{1F375}'.repeat(49)}\u2026`);
    expect(res.text).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
    expectBounded(res.body.data.skipped);
  });

  it('a long text named many times is read once: a Letta block of 700 KB (its label 1 MB) named 10,000 times, an entity of a 1 MB name with 9,000 observations', { timeout: 30_000 }, async () => {
    let started = Date.now();
    const block = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'letta', content: namedOften('h'.repeat(1024 * 1024), Array.from({ length: 70_000 }, (_, i) => `Fact ${i}.`).join(' '), 10_000), dryRun: true } });
    expect(block.status).toBe(200);
    expect(block.body.data.counts).toMatchObject({ split: 1, skipped: 9_999, duplicates: 0 });
    expect(block.body.data.entries.every((e: Entry) => e.source!.ref!.length <= 2048 && e.pinned)).toBe(true);
    expectBounded(block.body.data.skipped);
    expect(Date.now() - started).toBeLessThan(5_000);

    started = Date.now();
    const entity = JSON.stringify({ type: 'entity', name: 'n'.repeat(1024 * 1024), entityType: 'person', observations: Array.from({ length: 9_000 }, (_, i) => `fact ${i}`) });
    const res = await t.request('POST', IMPORT, { token: owner.token, body: { format: 'mcp-memory', content: entity, dryRun: true } });
    expect(res.status).toBe(200);
    expect(res.body.data.counts).toMatchObject({ entries: 9_000, split: 0 });
    // The name heads each observation cut to 1,000 characters, not repeated whole 9,000 times.
    expect(res.body.data.entries[0].content).toBe(`${'n'.repeat(999)}\u2026 (person): fact 0`);
    expect(res.text.length).toBeLessThan(2 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("names in a zip's paths and in a file's name are cut in their middle, keeping the note's name", async () => {
    const deep = `${'folder/'.repeat(40)}Tea.md`;
    const res = await upload(owner.token, 'markdown', { name: `${'x'.repeat(300)}.zip`, data: zipOf([{ name: deep, data: Buffer.from('') }, { name: 'a.md', data: Buffer.from('# A\n\ntext') }]) }, true);
    expect(res.status).toBe(200);
    const where = (res.body.data.skipped as Array<{ where: string }>).find((s) => s.where.endsWith('Tea.md'))!.where;
    expect(where.length).toBeLessThanOrEqual(100);
    expect(where).toMatch(/^folder\/folder\/.*\u2026.*\/Tea\.md$/);
    const bad = await upload(owner.token, 'mem0', { name: `${'y'.repeat(300)}.json`, data: Buffer.from('{') });
    expect((expectError(bad, 400, 'VALIDATION_ERROR').details as { file: string }).file).toMatch(/^y+\u2026y+\.json$/);
  });
});

describe('owners and access', () => {
  it("an import writes to the caller's memory only", async () => {
    const a = await t.createOwner('Import Owner A');
    const b = await t.createOwner('Import Owner B');
    const mine = await t.request('POST', '/api/v1/memory', { token: a.token, body: { content: 'Owner A keeps this' } });
    expect(mine.status).toBe(201);
    const res = await t.request('POST', IMPORT, { token: b.token, body: { format: 'text', content: '- Owner B imported this' } });
    expect(res.status).toBe(200);
    expect((await stored(a)).map((e) => e.content)).toEqual(['Owner A keeps this']);
    expect((await stored(b)).map((e) => e.content)).toEqual(['Owner B imported this']);
  });

  it('a token with the memory scope may import (its author recorded); one without it is 403', async () => {
    const owner = await t.createOwner('Import Scopes');
    const other = await t.tokenWithScopes(owner, ['knowledge']);
    expectError(await t.request('POST', IMPORT, { token: other, body: { format: 'text', content: '- No' } }), 403, 'INSUFFICIENT_SCOPE');
    const memory = await t.tokenWithScopes(owner, ['memory']);
    const res = await t.request('POST', IMPORT, { token: memory, body: { format: 'text', content: '- Yes' } });
    expect(res.status).toBe(200);
    expect(res.body.data.entries[0].author).toMatchObject({ channel: 'import', token: { kind: 'api' } });
    expectError(await t.request('POST', IMPORT, { body: { format: 'text', content: '- Who' } }), 401, 'UNAUTHORIZED');
    expect((await stored(owner)).map((e) => e.content)).toEqual(['Yes']);
  });
});

describe("all or nothing: the plan's limit counts the whole import", () => {
  let limited: TestApp;
  beforeAll(async () => {
    const plans = path.join(tmpdir(), `hearth-import-plans-${randomBytes(6).toString('hex')}.json`);
    const unlimited = { knowledgeBytes: null, vaultTokens: null, devices: null, apiRequestsPerDay: null };
    writeFileSync(plans, JSON.stringify({ plans: [{ id: 'tiny', name: 'Tiny', price: 0, currency: 'usd', interval: 'month', limits: { ...unlimited, memoryEntries: 3 } }] }));
    limited = await createTestApp({ config: { planLimits: true, plansFile: plans } });
    // The first account is the administrator, whom no plan limits.
    await limited.createOwner('Limits Admin');
  });
  afterAll(async () => limited?.close());

  it('an import that would pass the limit writes nothing, and its dry run says so first', async () => {
    const owner = await limited.createOwner('Limited Importer');
    expect((await limited.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Kept before' } })).status).toBe(201);
    const three = { format: 'text', content: '- One\n- Two\n- Three' };
    const dry = await limited.request('POST', IMPORT, { token: owner.token, body: { ...three, dryRun: true } });
    expect(expectError(dry, 402, 'PLAN_LIMIT_REACHED').details).toMatchObject({ limit: 'memoryEntries', max: 3 });
    expectError(await limited.request('POST', IMPORT, { token: owner.token, body: three }), 402, 'PLAN_LIMIT_REACHED');
    const list = await limited.request('GET', '/api/v1/memory', { token: owner.token });
    expect(list.body.data.map((e: Entry) => e.content)).toEqual(['Kept before']);
    // Within the limit, the same import goes through whole.
    const two = await limited.request('POST', IMPORT, { token: owner.token, body: { format: 'text', content: '- One\n- Two' } });
    expect(two.status).toBe(200);
    expect(two.body.data.counts.entries).toBe(2);
  });
});
