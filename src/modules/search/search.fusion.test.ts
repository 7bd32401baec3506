/**
 * Search by words and meaning together, through the app on the engine the run selects, with the
 * embedder an OpenAI-compatible endpoint (the local fake, whose vectors are hashed bags of words:
 * deterministic, but meaningless for paraphrases). Paraphrases are checked with the built-in
 * encoder in test/search-meaning.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai.js';
import { createTestApp, ENGINE, type Node, type Owner, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';
import { DEFAULT_FUSION_SETTINGS, fuseRankings } from './search.fusion.js';
import { createSearchRepo } from './search.repo.js';

let fake: FakeOpenAI;
let t: TestApp;

const settingsFor = (baseUrl: string, model = 'nomic-embed-text') =>
  loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: baseUrl, EMBEDDINGS_MODEL: model, EMBEDDINGS_API_KEY: fake.apiKey }).embeddings;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({ config: { embeddings: settingsFor(`${fake.url}/v1`) } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
afterEach(() => {
  fake.reset();
  fake.embeddingDimensions = 64;
});

/** A new memory entry, through this app or another node's. */
async function remember(owner: Owner, content: string, app: FastifyInstance = t.app): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/memory', headers: { authorization: `Bearer ${owner.token}` }, payload: { content } });
  expect(res.statusCode).toBe(201);
  return res.json().data.id;
}

async function search(owner: Owner, q: string): Promise<string[]> {
  const res = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q, limit: 10 } });
  expect(res.status).toBe(200);
  return res.body.data.map((entry: { id: string }) => entry.id);
}

/** The texts the fake was asked to embed, each with how many times. */
function embeddedTexts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of fake.requests) {
    if (request.path !== '/v1/embeddings') continue;
    for (const text of request.body.input as string[]) counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return counts;
}

/** Waits until the owner has nothing pending (the indexer started as the server starts it). */
async function indexed(owner: Owner, indexer = t.container.searchIndexer): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await indexer.status(owner.id)).pending > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect((await indexer.status(owner.id)).pending).toBe(0);
}

describe('search by words and meaning', () => {
  it('answers an exact term first, and ranks entries found both ways as both', async () => {
    fake.embeddingDimensions = 64;
    const owner = await t.createOwner();
    const chip = await remember(owner, "Biscuit's microchip number is 981020000123456, registered with Petlog.");
    await remember(owner, 'Biscuit goes to the vet at Clifton every March for his booster.');
    await remember(owner, 'The microwave in the kitchen needs a new turntable.');
    for (let i = 0; i < 20; i++) await remember(owner, `Shopping list ${i}: bread, milk, eggs and number ${i} batteries`);
    await t.container.searchIndexer.runNow();
    expect(await t.container.searchIndexer.status(owner.id)).toEqual({ pending: 0, indexed: 23, lastError: null });

    expect((await search(owner, 'microchip number 981020000123456'))[0]).toBe(chip);
    expect((await search(owner, "What is Biscuit's microchip number?"))[0]).toBe(chip);
    const ranked = await t.container.searchFusion.rank(owner.id, 'memory', "Biscuit's microchip", [{ id: chip, score: 5 }], 5);
    expect(ranked[0]).toMatchObject({ id: chip, matched: 'both' });
    // Meaning adds the nearest entries the words did not find.
    expect(ranked.length).toBeGreaterThan(1);
    expect(ranked.slice(1).every((item) => item.matched === 'meaning')).toBe(true);
  });

  it('with the embedder failing: writes and searches succeed by words, and the status says why', async () => {
    const owner = await t.createOwner();
    await t.container.searchIndexer.runNow();
    fake.failure = 'server-error';
    try {
      await failingEmbedder(owner);
    } finally {
      // A failed embedder refuses calls for a while; the next tests want a fresh one.
      fake.failure = undefined;
      await t.restart();
    }
  });

  async function failingEmbedder(owner: Owner): Promise<void> {
    const note = await remember(owner, 'The boiler service is booked with Bristol Heating for 14 March.');
    await remember(owner, 'The car insurance renews in June.');
    await t.container.searchIndexer.runNow();
    const status = await t.container.searchIndexer.status(owner.id);
    expect(status.pending).toBe(2);
    expect(status.lastError).toMatch(/500|server/i);
    expect(t.container.embeddings.describe().state).toBe('failed');
    const started = Date.now();
    expect(await search(owner, 'when is the boiler service')).toEqual([note]);
    expect(Date.now() - started).toBeLessThan(5_000);
    const ranked = await t.container.searchFusion.rank(owner.id, 'memory', 'boiler', [{ id: note, score: 3 }], 10);
    expect(ranked).toEqual([{ id: note, score: 3, matched: 'words' }]);
  }
});

describe('search by meaning: the floor for items found by meaning alone', () => {
  let floored: TestApp;
  beforeAll(async () => {
    // A floor no hashed bag of words of a text sharing no word with the query reaches.
    floored = await createTestApp({ config: { embeddings: settingsFor(`${fake.url}/v1`), searchMeaningMin: 0.5 } });
  });
  afterAll(async () => {
    await floored?.close();
  });

  async function hits(owner: Owner, q: string) {
    const res = await floored.request('GET', '/api/v1/search', { token: owner.token, query: { q, types: 'memory', limit: 10 } });
    expect(res.status).toBe(200);
    return res.body.data as Array<{ id: string; matched: string }>;
  }

  it('answers nothing by meaning below the floor, and never drops what the words found', async () => {
    fake.embeddingDimensions = 64;
    const owner = await floored.createOwner();
    const ids: string[] = [];
    for (const content of ['The boiler was serviced in March by Gas Safe engineers', 'Leo plays football on Saturday mornings', 'Our broadband contract ends in October']) {
      ids.push(await remember(owner, content, floored.app));
    }
    await floored.container.searchIndexer.runNow();
    expect((await floored.container.searchIndexer.status(owner.id)).pending).toBe(0);

    // No word of any note: nothing, where without a floor the three nearest vectors came back.
    expect(await hits(owner, 'quantum chromodynamics lattice')).toEqual([]);
    // One shared word out of many: a weak cosine, but the words found it, so it stays.
    const weak = await hits(owner, 'which month did the quarterly tax return and dividends and pensions arrive, March maybe');
    expect(weak.map((hit) => hit.id)).toEqual([ids[0]]);
    expect(weak[0]!.matched).not.toBe('meaning');
    // A words hit whose cosine is far under the floor (no word in common with the query's vector) stays.
    const ranked = await floored.container.searchFusion.rank(owner.id, 'memory', 'quantum chromodynamics lattice', [{ id: ids[1]!, score: 3 }], 10);
    expect(ranked.map((item) => item.id)).toEqual([ids[1]]);
    // Its fused score is 0.5 × 3/10 from words plus its cosine: the cosine is under the floor.
    expect(ranked[0]!.score - 0.15).toBeLessThan(0.5);
    // Without the floor the same app setup answers the other notes by meaning: the floor did the dropping.
    const open = await t.createOwner();
    for (const content of ['The boiler was serviced in March by Gas Safe engineers', 'Leo plays football on Saturday mornings']) await remember(open, content);
    await t.container.searchIndexer.runNow();
    const res = await t.request('GET', '/api/v1/search', { token: open.token, query: { q: 'quantum chromodynamics lattice', types: 'memory', limit: 10 } });
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((hit: { matched: string }) => hit.matched === 'meaning')).toBe(true);
  });
});

describe('fuseRankings: the floor for meaning', () => {
  const cosine = new Map([
    ['near', 0.6],
    ['close', 0.45],
    ['far', 0.3],
    ['unrelated', 0.1],
    ['worded', 0.05],
  ]);
  const dense = { nearest: ['near', 'close', 'far', 'unrelated', 'worded'], cosine };
  const ids = (min: number, margin: number) =>
    fuseRankings([{ id: 'worded', score: 12 }], dense, { ...DEFAULT_FUSION_SETTINGS, meaningMin: min, meaningMargin: margin }, 10).map((item) => item.id).sort();

  it('drops meaning-only items under the floor or too far below the best cosine, never a words hit', () => {
    expect(ids(-1, 2)).toEqual(['close', 'far', 'near', 'unrelated', 'worded']);
    expect(ids(0.25, 2)).toEqual(['close', 'far', 'near', 'worded']);
    expect(ids(-1, 0.2)).toEqual(['close', 'near', 'worded']);
    expect(ids(0.5, 0.2)).toEqual(['near', 'worded']);
    expect(ids(1, 2)).toEqual(['worded']);
  });
});

describe('search by meaning: edits and deletions', () => {
  it('never ranks an edited entry by its old vector, nor a deleted one', async () => {
    const owner = await t.createOwner();
    const kept = await remember(owner, 'The piano tuner comes every April.');
    const edited = await remember(owner, 'Leo collects fossils from Charmouth beach.');
    await t.container.searchIndexer.runNow();
    const rank = () => t.container.searchFusion.rank(owner.id, 'memory', 'Leo collects fossils from Charmouth beach.', [], 10);
    expect((await rank()).map((item) => item.id)).toEqual([edited, kept]);

    const patch = await t.request('PATCH', `/api/v1/memory/${edited}`, { token: owner.token, body: { content: 'Emma sings in the school choir.' } });
    expect(patch.status).toBe(200);
    // Until it is embedded again, the edited entry has no vector that ranks.
    expect((await rank()).map((item) => item.id)).toEqual([kept]);
    await t.container.searchIndexer.runNow();
    expect((await rank()).map((item) => item.id).sort()).toEqual([edited, kept].sort());

    expect((await t.request('DELETE', `/api/v1/memory/${edited}`, { token: owner.token })).status).toBe(200);
    expect((await rank()).map((item) => item.id)).toEqual([kept]);
  });
});

describe('search by meaning: an embedder that cannot be reached', () => {
  let down: TestApp;
  beforeAll(async () => {
    // A port nothing listens on: the connection is refused.
    const closed = await startFakeOpenAI();
    const url = `${closed.url}/v1`;
    await closed.close();
    down = await createTestApp({ config: { embeddings: settingsFor(url) } });
  });
  afterAll(async () => {
    await down?.close();
  });

  it('stores and searches by words, and the indexer reports the failure', async () => {
    const owner = await down.createOwner();
    const res = await down.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Leo has swimming lessons on Tuesdays at Horfield.' } });
    expect(res.status).toBe(201);
    const found = await down.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'swimming lessons' } });
    expect(found.status).toBe(200);
    expect(found.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.data.id]);
    await down.container.searchIndexer.runNow();
    const status = await down.container.searchIndexer.status(owner.id);
    expect(status.pending).toBe(1);
    expect(status.lastError).not.toBeNull();
  });
});

describe('search by meaning: model changes, restarts and two nodes', () => {
  it('a model change re-embeds in the background and never ranks the old model with the new', async () => {
    const owner = await t.createOwner();
    const ids = [await remember(owner, 'Tomás prefers the window seat on trains.'), await remember(owner, 'Emma starts piano lessons in September.')];
    await t.container.searchIndexer.runNow();
    // The storage of the app as it is now (a restart opens a new one).
    const repo = () => createSearchRepo(t.storage.db);
    expect(await repo().loadOwner(owner.id, 'nomic-embed-text')).toHaveLength(2);

    t.config.embeddings = settingsFor(`${fake.url}/v1`, 'mxbai-embed-large');
    try {
      await t.restart();
      expect(await t.container.searchIndexer.status(owner.id)).toEqual({ pending: 2, indexed: 0, lastError: null });
      // Only the old model's vectors exist: meaning adds nothing, the words answer alone.
      const before = await t.container.searchFusion.rank(owner.id, 'memory', 'piano lessons', [{ id: ids[1]!, score: 2 }], 10);
      expect(before).toEqual([{ id: ids[1]!, score: 2, matched: 'words' }]);
      expect(await search(owner, 'piano lessons')).toEqual([ids[1]]);

      await t.container.searchIndexer.runNow();
      expect(await t.container.searchIndexer.status(owner.id)).toEqual({ pending: 0, indexed: 2, lastError: null });
      expect(embeddedTexts().get('Emma starts piano lessons in September.')).toBe(2);
      const after = await t.container.searchFusion.rank(owner.id, 'memory', 'piano lessons', [{ id: ids[1]!, score: 2 }], 10);
      expect(after[0]).toMatchObject({ id: ids[1], matched: 'both' });
      expect(new Set(after.map((item) => item.id))).toEqual(new Set(ids));
      const rows = await repo().loadOwner(owner.id, 'nomic-embed-text');
      expect(rows).toHaveLength(0);
    } finally {
      t.config.embeddings = settingsFor(`${fake.url}/v1`);
      await t.restart();
    }
  });

  it('after a restart, the server resumes the pending work, and search then ranks by meaning', async () => {
    const owner = await t.createOwner();
    const id = await remember(owner, 'The spare key is with Mrs Okafor at number 12.');
    await t.restart();
    // As main.ts starts it once the server listens.
    t.container.searchIndexer.start();
    try {
      await indexed(owner);
      const ranked = await t.container.searchFusion.rank(owner.id, 'memory', 'spare key', [], 10);
      expect(ranked).toEqual([expect.objectContaining({ id, matched: 'meaning' })]);
    } finally {
      await t.container.searchIndexer.stop();
    }
  });

  it('two nodes on one database embed each entry once, and each ranks the vectors the other stored', async () => {
    const owner = await t.createOwner();
    const second: Node = await t.openNode();
    try {
      t.container.searchIndexer.start();
      second.container.searchIndexer.start();
      const texts = Array.from({ length: 30 }, (_, i) => `Two nodes entry ${i}: the allotment plot ${i} needs watering`);
      const ids = await Promise.all(texts.map((text, i) => remember(owner, text, i % 2 === 0 ? t.app : second.app)));
      await indexed(owner);
      await indexed(owner, second.container.searchIndexer);
      const counts = embeddedTexts();
      for (const text of texts) expect(counts.get(text)).toBe(1);
      // Each node ranks every entry by meaning, whichever node embedded it.
      for (const node of [t.container, second.container]) {
        const ranked = await node.searchFusion.rank(owner.id, 'memory', texts[7]!, [], 30);
        expect(ranked[0]).toMatchObject({ id: ids[7], matched: 'meaning' });
        expect(ranked).toHaveLength(30);
      }
      if (ENGINE === 'postgres') {
        // The second node has loaded the owner's vectors; a vector stored later through the first
        // reaches its ranking once the change feed tells it of the write (one process per data
        // directory on SQLite: no second node there).
        const late = await remember(owner, 'A late entry: the allotment shed key hangs by the back door');
        await indexed(owner);
        const deadline = Date.now() + 10_000;
        let first: string | undefined;
        while (Date.now() < deadline) {
          first = (await second.container.searchFusion.rank(owner.id, 'memory', 'A late entry: the allotment shed key hangs by the back door', [], 1))[0]?.id;
          if (first === late) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(first).toBe(late);
      }
    } finally {
      await second.container.searchIndexer.stop();
      await t.container.searchIndexer.stop();
      await second.app.close();
    }
  });
});

describe('search by meaning before anything is indexed', () => {
  let plain: TestApp;
  beforeAll(async () => {
    // The default embedder: the built-in encoder, whose worker starts only when needed.
    plain = await createTestApp();
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('ranks by words without embedding the query, so the built-in worker does not start', async () => {
    const owner = await plain.createOwner();
    const res = await plain.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'The allotment is plot 14 at Golden Hill.' } });
    const found = await plain.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'where is the allotment' } });
    expect(found.status).toBe(200);
    expect(found.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.data.id]);
    expect(plain.container.embeddings.describe()).toMatchObject({ kind: 'builtin', state: 'idle' });
    expect(plain.container.embeddings.workerPid()).toBeUndefined();
  });
});
