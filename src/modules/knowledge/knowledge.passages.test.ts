import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import { createSearchIndexer } from '../search/search.indexer.js';
import { createSearchRepo } from '../search/search.repo.js';
import { knowledgeSearchSource } from './knowledge.search.js';
import * as knowledgePassagesMigration from '../../storage/migrations/0033-knowledge-passages.js';

const BASE = '/api/v1/brain/knowledge-base';
const PASSAGES = `${BASE}/passages`;

let t: TestApp;
let owner: Owner;
let other: Owner;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Reader');
  other = await t.createOwner('Someone else');
});
afterAll(async () => t.close());

/** `n` sentences of filler, each numbered so that no two passages are alike. */
function filler(n: number, word = 'filler'): string {
  return Array.from({ length: n }, (_, i) => `This ${word} sentence number ${i} says nothing in particular.`).join(' ');
}

/** A long Markdown document: three levels of headings, paragraphs, and one distinctive fact deep inside. */
const MANUAL = [
  '# Boiler manual',
  filler(40, 'opening'),
  '## Installation',
  filler(60, 'install'),
  '',
  filler(30, 'install'),
  '### Wall bracket',
  `${filler(20, 'bracket')}\n\nFix the bracket with four M8 masonry anchors torqued to 12 Nm. ${filler(20, 'bracket')}`,
  '## Servicing',
  filler(80, 'service'),
].join('\n\n');

async function createDoc(who: Owner, title: string, content: string): Promise<string> {
  const res = await t.request('POST', BASE, { token: who.token, body: { title, content } });
  expect(res.status).toBe(200);
  return res.body.data.id as string;
}

/** The document's stored passages slice its text exactly, in order, covering every word. */
async function expectPassagesSlice(who: Owner, id: string): Promise<Array<{ text: string; start: number; end: number; headingPath: string[] }>> {
  const doc = await t.request('GET', `${BASE}/${id}`, { token: who.token });
  const content = doc.body.data.content as string;
  const passages = await t.container.knowledge.passagesOf(who.id, id);
  expect(passages.length).toBeGreaterThan(0);
  passages.forEach((p, i) => {
    expect(p.ordinal).toBe(i);
    expect(content.slice(p.start, p.end)).toBe(p.text);
    // Ends never cut a surrogate pair.
    expect(p.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
  // Every word of the document lies in a passage.
  const covered = new Uint8Array(content.length);
  for (const p of passages) covered.fill(1, p.start, p.end);
  for (const m of content.matchAll(/\S+/g)) expect(covered[m.index], `the word at ${m.index}`).toBe(1);
  return passages;
}

describe('passages are stored with their document', () => {
  it("slice the document's text exactly, for headings, CRLF, emoji and surrogate pairs", async () => {
    const emoji = `# Notes 🌱\r\n\r\n${'Plant 🍅 tomatoes 🌞 in spring. '.repeat(200)}\r\n\r\n## Later 𝒳\r\n\r\n${'🥕'.repeat(300)} ${'word '.repeat(350)}`;
    const id = await createDoc(owner, 'Emoji garden', emoji);
    const passages = await expectPassagesSlice(owner, id);
    expect(passages.length).toBeGreaterThan(2);
    expect(passages[0]!.headingPath).toEqual(['Notes 🌱']);
    expect(passages.at(-1)!.headingPath).toEqual(['Notes 🌱', 'Later 𝒳']);
  });

  it('slice what is stored when the text held lone surrogates (each stored as U+FFFD), created, replaced and upserted', async () => {
    const lone = (n: number) => `abc \ud800 zqlone ${filler(n)} \udfff end`;
    const id = await createDoc(owner, 'Half pairs \ud83e', lone(3));
    const doc = await t.request('GET', `${BASE}/${id}`, { token: owner.token });
    expect(doc.body.data.content).toBe(lone(3).replace(/[\ud800-\udfff]/g, '\ufffd'));
    expect(doc.body.data.title).toBe('Half pairs \ufffd');
    await expectPassagesSlice(owner, id);
    const hit = (await t.request('GET', '/api/v1/search', { token: owner.token, query: { q: 'zqlone', types: 'knowledge' } })).body.data[0];
    expect(doc.body.data.content.slice(hit.document.start, hit.document.end)).toBe(hit.text);

    expect((await t.request('PUT', `${BASE}/${id}`, { token: owner.token, body: { content: lone(30) } })).status).toBe(200);
    await expectPassagesSlice(owner, id);
    const upsert = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: 'Half pairs \ud83e', content: lone(60) } });
    expect(upsert.body).toMatchObject({ action: 'updated', document: { id } });
    const after = await expectPassagesSlice(owner, id);
    expect(after.map((p) => p.text).join('')).not.toMatch(/[\ud800-\udfff]/);
  });

  it('follow an update, an upsert and a title change', async () => {
    const id = await createDoc(owner, 'Changing', MANUAL);
    const before = await expectPassagesSlice(owner, id);
    const shorter = `# Short\n\n${filler(10, 'short')}`;
    expect((await t.request('PUT', `${BASE}/${id}`, { token: owner.token, body: { content: shorter } })).status).toBe(200);
    const after = await expectPassagesSlice(owner, id);
    expect(after.length).toBeLessThan(before.length);
    expect(after[0]!.headingPath).toEqual(['Short']);
    const upsert = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: 'Changing', content: MANUAL.replace('12 Nm', '14 Nm') } });
    expect(upsert.body).toMatchObject({ action: 'updated', document: { id } });
    await expectPassagesSlice(owner, id);
    const found = await t.request('GET', PASSAGES, { token: owner.token, query: { q: 'masonry anchors torque' } });
    expect(found.body.data[0]).toMatchObject({ document: { id, title: 'Changing' } });
    expect(found.body.data[0].text).toContain('14 Nm');
    await t.request('PUT', `${BASE}/${id}`, { token: owner.token, body: { content: MANUAL, title: 'Renamed manual' } });
    const renamed = await t.request('GET', PASSAGES, { token: owner.token, query: { q: 'masonry anchors' } });
    expect(renamed.body.data[0]).toMatchObject({ title: 'Renamed manual', document: { id, title: 'Renamed manual' } });
  });

  it('include one empty passage for a document without a word, so that its title is found', async () => {
    const id = await createDoc(owner, 'Quarterly zeppelin budget', '');
    expect(await t.container.knowledge.passagesOf(owner.id, id)).toEqual([{ id: `${id}:0`, ordinal: 0, headingPath: [], text: '', start: 0, end: 0 }]);
    const listed = await t.request('GET', BASE, { token: owner.token, query: { q: 'zeppelin' } });
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([id]);
    const found = await t.request('GET', PASSAGES, { token: owner.token, query: { q: 'zeppelin budget' } });
    expect(found.body.data[0]).toMatchObject({ title: 'Quarterly zeppelin budget', text: '', document: { id, start: 0, end: 0 } });
  });

  it('are made of the text extracted from an uploaded file', async () => {
    const boundary = `----passages-${randomBytes(6).toString('hex')}`;
    const text = `# Uploaded 📄\n\n${filler(200, 'uploaded')}\n\n## Appendix\n\nThe spare fuse is a 13 amp cartridge kept in the blue tin.`;
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.md"\r\nContent-Type: text/markdown\r\n\r\n`),
      Buffer.from(text, 'utf8'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await t.request('POST', `${BASE}/upload`, { token: owner.token, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect(res.status).toBe(201);
    const passages = await expectPassagesSlice(owner, res.body.data.id);
    expect(passages.at(-1)!.headingPath).toEqual(['Uploaded 📄', 'Appendix']);
    const found = await t.request('GET', PASSAGES, { token: owner.token, query: { q: 'where is the spare fuse' } });
    expect(found.body.data[0]).toMatchObject({ document: { id: res.body.data.id, headingPath: ['Uploaded 📄', 'Appendix'] } });
  });
});

describe('search answers passages', () => {
  let manual: string;
  let searcher: Owner;

  beforeAll(async () => {
    searcher = await t.createOwner('Searcher');
    manual = await createDoc(searcher, 'Boiler manual', MANUAL);
    await createDoc(searcher, 'Shopping', 'Buy anchors for the boat and a torque wrench.');
    await createDoc(other, 'Their boiler', `# Boiler\n\nTheir masonry anchors are torqued to 99 Nm. ${filler(10)}`);
  });

  it('finds the right passage of a long document, with its heading path, offsets and marks', async () => {
    const res = await t.request('GET', PASSAGES, { token: searcher.token, query: { q: 'What torque for the masonry anchors of the bracket?', limit: 5 } });
    expect(res.status).toBe(200);
    const [best] = res.body.data;
    expect(best).toMatchObject({
      id: expect.stringMatching(new RegExp(`^${manual}:\\d+$`)),
      type: 'knowledge',
      title: 'Boiler manual',
      matched: 'words',
      score: expect.any(Number),
      document: { id: manual, title: 'Boiler manual', headingPath: ['Boiler manual', 'Installation', 'Wall bracket'] },
    });
    expect(best.text).toContain('four M8 masonry anchors torqued to 12 Nm');
    const doc = await t.request('GET', `${BASE}/${manual}`, { token: searcher.token });
    expect(doc.body.data.content.slice(best.document.start, best.document.end)).toBe(best.text);
    // A passage, not the document.
    expect(best.text.length).toBeLessThan(doc.body.data.content.length / 2);
    const marked = best.marks.map(([a, b]: [number, number]) => best.text.slice(a, b).toLowerCase());
    expect(marked).toEqual(expect.arrayContaining(['torqued', 'masonry', 'anchors', 'bracket']));
  });

  it("never answers another owner's passages", async () => {
    for (const q of ['masonry anchors torqued', 'boiler 99 Nm']) {
      const res = await t.request('GET', PASSAGES, { token: searcher.token, query: { q, limit: 50 } });
      expect(res.body.data.map((h: { text: string }) => h.text).join(' ')).not.toContain('99 Nm');
      const theirs = await t.request('GET', PASSAGES, { token: other.token, query: { q, limit: 50 } });
      expect(theirs.body.data.every((h: { document: { title: string } }) => h.document.title === 'Their boiler')).toBe(true);
    }
  });

  it("keeps the list's shape, ranking each document by its best passage with an excerpt from it", async () => {
    const res = await t.request('GET', BASE, { token: searcher.token, query: { q: 'masonry anchors for the bracket', limit: 10 } });
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const titles = res.body.data.map((d: { title: string }) => d.title);
    expect(titles[0]).toBe('Boiler manual');
    expect(new Set(titles).size).toBe(titles.length);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['createdAt', 'excerpt', 'fileBytes', 'id', 'mimeType', 'rank', 'sizeBytes', 'source', 'title', 'updatedAt']);
    expect(res.body.data[0].excerpt).toContain('masonry anchors');
    const all = await t.request('GET', BASE, { token: searcher.token, query: { q: 'boat anchors', match: 'all' } });
    expect(all.body.data.map((d: { title: string }) => d.title)).toEqual(['Shopping']);
  });

  it('keeps passages holding every word with match=all, and refuses a token without the knowledge scope', async () => {
    const res = await t.request('GET', PASSAGES, { token: searcher.token, query: { q: 'masonry anchors', match: 'all' } });
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((h: { text: string }) => /masonry/i.test(h.text) && /anchors/i.test(h.text))).toBe(true);
    const refused = await t.request('GET', PASSAGES, { token: await t.tokenWithScopes(searcher, ['memory']), query: { q: 'anchors' } });
    expect(refused.status).toBe(403);
  });
});

describe('deleting', () => {
  /** A vector row for each of the document's passages, as the indexer stores them. */
  async function storeVectors(who: Owner, id: string): Promise<string[]> {
    const passages = await t.container.knowledge.passagesOf(who.id, id);
    const now = new Date().toISOString();
    await t.storage.db
      .insertInto('search_vectors' as never)
      .values(
        passages.map((p) => ({
          owner_id: who.id,
          source: 'knowledge_passage',
          item_id: p.id,
          model: 'test-model',
          dimensions: 2,
          codes: new Uint8Array([1, 2]),
          scale: 0.01,
          text_hash: 'h',
          item_updated_at: now,
          embedded_at: now,
        })) as never,
      )
      .execute();
    return passages.map((p) => p.id);
  }

  async function vectorsOf(ids: string[]): Promise<string[]> {
    const rows = await sql<{ item_id: string }>`SELECT item_id FROM search_vectors WHERE source = 'knowledge_passage'`.execute(t.storage.db);
    return rows.rows.map((r) => r.item_id).filter((id) => ids.includes(id));
  }

  it('a document removes its passages and their vectors; a shorter text removes those past its end, and keeps unchanged ones as they were', async () => {
    const id = await createDoc(owner, 'To delete', MANUAL);
    const ids = await storeVectors(owner, id);
    expect(ids.length).toBeGreaterThan(3);
    const stamps = async () => (await sql<{ id: string; updated_at: string }>`SELECT id, updated_at FROM kb_passages WHERE document_id = ${id} ORDER BY ordinal`.execute(t.storage.db)).rows;
    const first = (await stamps())[0]!;

    // Cut after the second passage's start: the passages after it go, with their vectors.
    const passages = await t.container.knowledge.passagesOf(owner.id, id);
    const doc = await t.request('GET', `${BASE}/${id}`, { token: owner.token });
    const cut = doc.body.data.content.slice(0, passages[1]!.end);
    await t.request('PUT', `${BASE}/${id}`, { token: owner.token, body: { content: cut } });
    const left = await t.container.knowledge.passagesOf(owner.id, id);
    expect(left.length).toBeLessThan(ids.length);
    expect(await vectorsOf(ids)).toEqual(expect.arrayContaining(left.map((p) => p.id)));
    expect((await vectorsOf(ids)).sort()).toEqual(left.map((p) => p.id).sort());
    // The first passage's text did not change: its row kept its time, so its vector stays current.
    expect((await stamps())[0]).toEqual(first);

    expect((await t.request('DELETE', `${BASE}/${id}`, { token: owner.token })).status).toBe(200);
    expect(await t.container.knowledge.passagesOf(owner.id, id)).toEqual([]);
    expect(await vectorsOf(ids)).toEqual([]);
    const found = await t.request('GET', PASSAGES, { token: owner.token, query: { q: 'opening sentence', limit: 50 } });
    expect(found.body.data.filter((h: { document: { id: string } }) => h.document.id === id)).toEqual([]);
  });

  it('a document answered by a search just before is answered by none after (its passages go by the cascade)', async () => {
    const id = await createDoc(owner, 'Launch plan', `${filler(5)} The zqlaunchcodes are kept in the blue folder. ${filler(5)}`);
    const asked = {
      passages: () => t.request('GET', PASSAGES, { token: owner.token, query: { q: 'zqlaunchcodes' } }),
      search: () => t.request('GET', '/api/v1/search', { token: owner.token, query: { q: 'zqlaunchcodes', types: 'knowledge' } }),
      context: () => t.request('GET', '/api/v1/gateway/context', { token: owner.token, query: { task: 'zqlaunchcodes' } }),
    };
    // Each answer found it: the words index of the owner's passages is built and kept.
    expect((await asked.passages()).body.data.map((h: { document: { id: string } }) => h.document.id)).toEqual([id]);
    expect((await asked.search()).body.data.map((h: { document: { id: string } }) => h.document.id)).toEqual([id]);
    expect(JSON.stringify((await asked.context()).body.data)).toContain('zqlaunchcodes');

    expect((await t.request('DELETE', `${BASE}/${id}`, { token: owner.token })).status).toBe(200);
    expect((await asked.passages()).body.data).toEqual([]);
    expect((await asked.search()).body.data).toEqual([]);
    expect(JSON.stringify((await asked.context()).body.data)).not.toContain('zqlaunchcodes');
  });
});

describe('vectors of passages', () => {
  /** An embedder with the service's interface: a unit vector from the text, each text embedded counted. */
  function countingEmbedder() {
    const calls: string[] = [];
    return {
      calls,
      async embed(texts: readonly string[]): Promise<Float32Array[]> {
        calls.push(...texts);
        return texts.map((text) => {
          const v = new Float32Array(8);
          for (let i = 0; i < text.length; i++) v[i % 8]! += text.charCodeAt(i);
          const norm = Math.hypot(...v) || 1;
          return v.map((x) => x / norm);
        });
      },
      describe: () => ({ kind: 'openai' as const, model: 'passages-test', dimensions: 8, state: 'ready' as const, lastError: null }),
    };
  }

  it('are computed for each passage, again only for passages whose text changed, and go with the document', async () => {
    const who = await t.createOwner('Embedded');
    const embedder = countingEmbedder();
    const repo = createSearchRepo(t.storage.db);
    const indexer = createSearchIndexer({ repo, sources: [knowledgeSearchSource], embeddings: embedder, nodeId: 'passages-test', settings: { batchSize: 16 } });
    const id = await createDoc(who, 'Boiler manual', MANUAL);
    const passages = await t.container.knowledge.passagesOf(who.id, id);
    await indexer.runNow();
    const stored = async () => (await repo.loadOwner(who.id, 'passages-test')).filter((r) => r.source === 'knowledge_passage').map((r) => r.itemId).sort();
    expect(await stored()).toEqual(passages.map((p) => p.id).sort());
    expect(await indexer.status(who.id)).toMatchObject({ pending: 0, indexed: passages.length });
    // The headings and the text are embedded; the title too, unless the first heading repeats it.
    expect(embedder.calls).toContainEqual(expect.stringMatching(/^Boiler manual\nInstallation\nWall bracket\n[^]*M8 masonry anchors/));

    // Only the last section changes: only the passages holding it are embedded again.
    embedder.calls.length = 0;
    const edited = MANUAL.replace(filler(80, 'service'), filler(80, 'maintenance'));
    expect((await t.request('PUT', `${BASE}/${id}`, { token: who.token, body: { content: edited } })).status).toBe(200);
    await indexer.runNow();
    expect(embedder.calls.length).toBeGreaterThan(0);
    expect(embedder.calls.every((text) => text.includes('Servicing'))).toBe(true);
    expect(await indexer.status(who.id)).toMatchObject({ pending: 0 });

    expect((await t.request('DELETE', `${BASE}/${id}`, { token: who.token })).status).toBe(200);
    expect(await stored()).toEqual([]);
    await indexer.stop();
  });
});

describe('an existing database', () => {
  it('gets passages of the documents it stored when it is migrated, and they are searchable', async () => {
    const app = await createTestApp();
    try {
      const who = await app.createOwner('Upgrader');
      const res = await app.request('POST', BASE, { token: who.token, body: { title: 'Old manual', content: MANUAL } });
      expect(res.status).toBe(200);
      const id = res.body.data.id as string;
      // The database as the version before passages left it (no table), then the migration run on
      // it. Run directly: later migrations are recorded after it, and Kysely runs only a prefix.
      const db = app.storage.db;
      await sql`DROP TABLE kb_passages`.execute(db);
      if (ENGINE === 'postgres') await sql`DROP FUNCTION kb_passages_forget_vectors()`.execute(db);
      await knowledgePassagesMigration.up(db as never, { dialect: app.storage.dialect });
      await app.restart();

      const passages = await app.container.knowledge.passagesOf(who.id, id);
      expect(passages.length).toBeGreaterThan(3);
      for (const p of passages) expect(MANUAL.slice(p.start, p.end)).toBe(p.text);
      const found = await app.request('GET', PASSAGES, { token: who.token, query: { q: 'masonry anchors torque' } });
      expect(found.body.data[0]).toMatchObject({ document: { id, headingPath: ['Boiler manual', 'Installation', 'Wall bracket'] } });
      const listed = await app.request('GET', BASE, { token: who.token, query: { q: 'masonry anchors torque' } });
      expect(listed.body.data[0]).toMatchObject({ id, title: 'Old manual' });
    } finally {
      await app.close();
    }
  });
});
