import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';
import { dequantize } from '../../storage/search/vectors.js';
import type { Storage } from '../../storage/storage.js';
import { EmbeddingsUnavailable } from '../embeddings/embeddings.service.js';
import { memorySearchSource } from '../memory/memory.search.js';
import { skillsSearchSource } from '../skills/skills.search.js';
import { createSearchIndexer } from './search.indexer.js';
import { createSearchRepo } from './search.repo.js';

const DIMENSIONS = 64;

/** A deterministic embedder with the service's interface: a unit vector from the text and the model, every call counted. */
function fakeEmbedder(model = 'fake-a') {
  const state = { model, down: false, calls: new Map<string, number>() };
  const vectorOf = (text: string, m: string) => {
    const v = new Float32Array(DIMENSIONS);
    let h = 2166136261;
    for (const ch of `${m}|${text}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    for (let i = 0; i < DIMENSIONS; i++) {
      h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
      v[i] = ((h >>> 0) / 2 ** 32) * 2 - 1;
    }
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  return {
    state,
    vectorOf,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (state.down) throw new EmbeddingsUnavailable('The fake embedder is down');
      for (const text of texts) state.calls.set(text, (state.calls.get(text) ?? 0) + 1);
      return texts.map((text) => vectorOf(text, state.model));
    },
    describe() {
      return { kind: 'openai' as const, model: state.model, dimensions: DIMENSIONS, state: state.down ? ('failed' as const) : ('ready' as const), lastError: null };
    },
  };
}

function indexerOn(storage: Storage, embedder: ReturnType<typeof fakeEmbedder>, nodeId: string) {
  const repo = createSearchRepo(storage.db);
  const indexer = createSearchIndexer({ repo, sources: [memorySearchSource, skillsSearchSource], embeddings: embedder, nodeId, settings: { batchSize: 8 } });
  return { repo, indexer };
}

describe('search vectors: background indexing', () => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner();
  });
  afterAll(async () => {
    await t.close();
  });

  async function remember(content: string): Promise<string> {
    const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  it('stores each entry\'s vector and reads it back within the quantization step', async () => {
    const embedder = fakeEmbedder();
    const { repo, indexer } = indexerOn(t.storage, embedder, 'node-a');
    const ids = [await remember('My dentist is Dr. Patel'), await remember('I prefer aisle seats on flights')];
    expect(await indexer.status(owner.id)).toEqual({ pending: 2, indexed: 0, lastError: null });
    await indexer.runNow();
    expect(await indexer.status(owner.id)).toEqual({ pending: 0, indexed: 2, lastError: null });
    const rows = await repo.loadOwner(owner.id, 'fake-a');
    expect(rows.map((r) => r.itemId).sort()).toEqual([...ids].sort());
    for (const row of rows) {
      const text = row.itemId === ids[0] ? 'My dentist is Dr. Patel' : 'I prefer aisle seats on flights';
      const want = embedder.vectorOf(text, 'fake-a');
      const got = dequantize(row.codes, row.scale);
      expect(row.codes.length).toBe(DIMENSIONS);
      for (let i = 0; i < DIMENSIONS; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThanOrEqual(row.scale / 2 + 1e-6);
    }
    // Nothing left: a second pass embeds nothing again.
    await indexer.runNow();
    expect(embedder.state.calls.get('My dentist is Dr. Patel')).toBe(1);
  });

  it('re-embeds an edited entry, and deleting an entry deletes its vector', async () => {
    const embedder = fakeEmbedder();
    const { repo, indexer } = indexerOn(t.storage, embedder, 'node-a');
    const id = await remember('Emma is allergic to peanuts');
    await indexer.runNow();
    const edit = await t.request('PATCH', `/api/v1/memory/${id}`, { token: owner.token, body: { content: 'Emma is allergic to peanuts and cashews' } });
    expect(edit.status).toBe(200);
    expect((await indexer.status(owner.id)).pending).toBe(1);
    await indexer.runNow();
    expect(embedder.state.calls.get('Emma is allergic to peanuts and cashews')).toBe(1);
    expect((await repo.loadOwner(owner.id, 'fake-a')).some((r) => r.itemId === id)).toBe(true);
    expect((await t.request('DELETE', `/api/v1/memory/${id}`, { token: owner.token })).status).toBe(200);
    expect((await repo.loadOwner(owner.id, 'fake-a')).some((r) => r.itemId === id)).toBe(false);
  });

  it('embeds each entry once with two nodes indexing at once', async () => {
    const other = await t.createOwner();
    for (let i = 0; i < 40; i++) {
      const res = await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: `two nodes note ${i}` } });
      expect(res.status).toBe(201);
    }
    const second = await t.openStorage();
    try {
      await second.ready;
      const embedder = fakeEmbedder();
      const a = indexerOn(t.storage, embedder, 'node-a');
      const b = indexerOn(second, embedder, 'node-b');
      await Promise.all([a.indexer.runNow(), b.indexer.runNow(), a.indexer.runNow(), b.indexer.runNow()]);
      for (let i = 0; i < 40; i++) expect(embedder.state.calls.get(`two nodes note ${i}`)).toBe(1);
      expect(await a.indexer.status(other.id)).toEqual({ pending: 0, indexed: 40, lastError: null });
    } finally {
      await second.close();
    }
  });

  it('on a model change re-embeds, and never answers the old model\'s vectors for the new one', async () => {
    const embedder = fakeEmbedder('model-one');
    const { repo, indexer } = indexerOn(t.storage, embedder, 'node-a');
    const who = await t.createOwner();
    await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'model change note' } });
    await indexer.runNow();
    expect(await repo.loadOwner(who.id, 'model-one')).toHaveLength(1);
    embedder.state.model = 'model-two';
    expect(await repo.loadOwner(who.id, 'model-two')).toHaveLength(0);
    expect(await indexer.status(who.id)).toEqual({ pending: 1, indexed: 0, lastError: null });
    await indexer.runNow();
    const rows = await repo.loadOwner(who.id, 'model-two');
    expect(rows).toHaveLength(1);
    const want = embedder.vectorOf('model change note', 'model-two');
    const got = dequantize(rows[0]!.codes, rows[0]!.scale);
    expect(Math.abs(got[0]! - want[0]!)).toBeLessThanOrEqual(rows[0]!.scale / 2 + 1e-6);
    expect(await repo.loadOwner(who.id, 'model-one')).toHaveLength(0);
  });

  it('waits while the embedder is down and reports it; writes still succeed; then catches up', async () => {
    const embedder = fakeEmbedder();
    embedder.state.down = true;
    const { indexer } = indexerOn(t.storage, embedder, 'node-a');
    const who = await t.createOwner();
    const res = await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'written while the embedder is down' } });
    expect(res.status).toBe(201);
    await indexer.runNow();
    expect(await indexer.status(who.id)).toEqual({ pending: 1, indexed: 0, lastError: 'The fake embedder is down' });
    embedder.state.down = false;
    await indexer.runNow();
    expect(await indexer.status(who.id)).toEqual({ pending: 0, indexed: 1, lastError: null });
  });

  it('after a restart, pending work resumes by itself, including items a dead node had claimed', async () => {
    const who = await t.createOwner();
    const ids: string[] = [];
    for (const content of ['restart note one', 'restart note two']) {
      const res = await t.request('POST', '/api/v1/memory', { token: who.token, body: { content } });
      ids.push(res.body.data.id);
    }
    // A node that died mid-batch left a claim whose lease ran out.
    const { repo } = indexerOn(t.storage, fakeEmbedder(), 'dead-node');
    const stale = await repo.findStale(memorySearchSource, 'fake-a', { now: new Date().toISOString(), limit: 10, ownerId: who.id });
    expect(await repo.claim(stale.filter((s) => s.itemId === ids[0]), 'dead-node', new Date().toISOString(), new Date(Date.now() - 1).toISOString())).toHaveLength(1);
    await t.restart();
    const embedder = fakeEmbedder();
    const { indexer } = indexerOn(t.storage, embedder, 'node-new');
    indexer.start();
    try {
      const deadline = Date.now() + 10_000;
      while ((await indexer.status(who.id)).indexed < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await indexer.status(who.id)).toEqual({ pending: 0, indexed: 2, lastError: null });
    } finally {
      await indexer.stop();
    }
  });
});
