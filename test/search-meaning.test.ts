/**
 * Search by meaning with the built-in encoder (the default embedder), through the app: an app
 * ranking by words only (EMBEDDINGS=off) and one fusing words and meaning hold the same notes.
 * The encoder runs in its worker process, started by the first batch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecallSet } from '../bench/lib/recall-data.js';
import { createTestApp, ENGINE, type Owner, type TestApp } from './harness.js';
import { loadConfig } from '../src/config.js';

let words: TestApp;
let fused: TestApp;

beforeAll(async () => {
  words = await createTestApp({ config: { embeddings: loadConfig({ EMBEDDINGS: 'off' }).embeddings } });
  fused = await createTestApp({ config: { embeddings: loadConfig({ EMBEDDINGS: 'builtin' }).embeddings } });
});
afterAll(async () => {
  await words?.close();
  await fused?.close();
});

/** The same notes for a new owner in both apps; answers each app's owner and each note's entry id there. */
async function storeBoth(notes: readonly string[]) {
  const out = [];
  for (const app of [words, fused]) {
    const owner = await app.createOwner();
    const ids: string[] = [];
    for (const content of notes) {
      const res = await app.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    out.push({ app, owner, ids });
  }
  await fused.container.searchIndexer.runNow();
  return { words: out[0]!, fused: out[1]! };
}

async function ask(app: TestApp, owner: Owner, q: string): Promise<string[]> {
  const res = await app.request('GET', '/api/v1/memory', { token: owner.token, query: { q, limit: 10 } });
  expect(res.status).toBe(200);
  return res.body.data.map((entry: { id: string }) => entry.id);
}

describe('search by meaning with the built-in encoder', () => {
  it('finds a note by a paraphrase that shares no word with it, which words alone cannot', async () => {
    const notes = [
      'My daughter Emma is allergic to peanuts',
      'I prefer aisle seats on flights',
      'My dentist is Dr. Patel',
      'The recycling goes out on Thursday mornings',
      'Our broadband contract ends in October',
      'Leo plays football on Saturday mornings',
      'The boiler was serviced in March',
      'We are saving for a new kitchen',
    ];
    const both = await storeBoth(notes);
    for (const [q, note] of [
      ['teeth doctor', 2],
      ['where do I like to sit on a plane', 1],
    ] as const) {
      expect(await ask(both.words.app, both.words.owner, q)).not.toContain(both.words.ids[note]);
      expect((await ask(both.fused.app, both.fused.owner, q))[0]).toBe(both.fused.ids[note]);
    }
  }, 120_000);

  it('answers no entry by meaning for a question about nothing stored, and keeps the words\' hits', async () => {
    const notes = [
      'My daughter Emma is allergic to peanuts',
      'I prefer aisle seats on flights',
      'My dentist is Dr. Patel',
      'Our wifi password is hunter2',
    ];
    const both = await storeBoth(notes);
    const { app, owner, ids } = both.fused;
    const hits = async (q: string) => {
      const res = await app.request('GET', '/api/v1/search', { token: owner.token, query: { q, types: 'memory', limit: 10 } });
      expect(res.status).toBe(200);
      return res.body.data as Array<{ id: string; matched: string }>;
    };
    // Nothing stored is about these: without the floor every note came back, "matched by meaning".
    for (const q of ['how does a jet engine work', 'recipe for beef wellington', 'history of rome', 'weather tomorrow']) {
      expect(await hits(q), q).toEqual([]);
      expect(await ask(app, owner, q), q).toEqual([]);
    }
    // One word matches one note: that note, not the rest of the store.
    expect(await ask(app, owner, 'peanuts')).toEqual([ids[0]]);
    // A paraphrase still finds its note by meaning, first.
    const teeth = await hits('teeth doctor');
    expect(teeth[0]).toMatchObject({ id: ids[2], matched: 'meaning' });
    expect(teeth.map((hit) => hit.id)).not.toContain(ids[1]);
    expect(teeth.map((hit) => hit.id)).not.toContain(ids[3]);
  }, 120_000);

  // SQLite only: the ranking is the same code on both engines (the index and the database's
  // fallback agree, search.test.ts), and a run is most of a minute of the encoder's time. Every
  // question: on a quarter of them fused ranking lost one exact question's hit@5 (a long journal
  // entry the words ranked third), so a subset would not show what the whole set does.
  it.skipIf(ENGINE !== 'sqlite')(
    'never ranks below words alone on the evaluation set (bench/recall, every note question)',
    async () => {
      const data = loadRecallSet();
      const both = await storeBoth(data.notes.map((n) => n.content));
      const position = new Map(data.notes.map((n, i) => [n.id, i]));
      const questions = data.questions;
      const scores: Record<string, { words: number[]; fused: number[] }> = {};
      for (const q of questions) {
        const row = (scores[q.kind] ??= { words: [], fused: [] });
        for (const side of ['words', 'fused'] as const) {
          const { app, owner, ids } = both[side];
          const right = new Set(q.answers.map((a) => ids[position.get(a)!]!));
          const answer = await ask(app, owner, q.question);
          row[side].push(answer.findIndex((id) => right.has(id)) + 1);
        }
      }
      const hit = (ranks: number[], k: number) => ranks.filter((r) => r > 0 && r <= k).length;
      const mrr = (ranks: number[]) => ranks.reduce((sum, r) => sum + (r > 0 ? 1 / r : 0), 0);
      expect(Object.keys(scores).sort()).toEqual(['exact', 'paraphrase']);
      for (const [kind, { words: w, fused: f }] of Object.entries(scores)) {
        const summary = `${kind}: hit@1 ${hit(w, 1)} -> ${hit(f, 1)}, hit@5 ${hit(w, 5)} -> ${hit(f, 5)}, MRR ${mrr(w).toFixed(2)} -> ${mrr(f).toFixed(2)} of ${w.length}`;
        expect(hit(f, 1), summary).toBeGreaterThanOrEqual(hit(w, 1));
        expect(hit(f, 5), summary).toBeGreaterThanOrEqual(hit(w, 5));
        expect(mrr(f), summary).toBeGreaterThanOrEqual(mrr(w));
      }
    },
    180_000,
  );
});
