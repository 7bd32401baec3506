/**
 * `npx tsx bench/recall.floor.ts`: measures the floor for items found by meaning alone
 * (docs/decisions/search.md, "A floor for meaning"), on the labelled set of bench/recall/ and on
 * questions about nothing the owner wrote.
 *
 * One app in this process (a temporary SQLite store, the built-in embedder, no floor) stores the
 * notes, the low-overlap notes and the documents through the API and the indexer embeds them.
 * Then:
 *  - the cosines: for every question, the fused answer without a floor (ten hits); the cosine
 *    of each hit found by meaning alone, split into right ones (a labelled note or passage) and
 *    wrong ones; and for questions about nothing stored, the cosine of every meaning-only hit;
 *  - each floor (an absolute cosine, and a margin below the query's best cosine) as the server's
 *    own `createFusion` over the same words' candidates and vectors (notes), and over the one
 *    search's knowledge answer without a floor, its meaning-only hits below the floor removed
 *    (passages: a meaning-only hit's score is its cosine).
 * Printed per floor: hit@1, hit@5, MRR@10 (notes and passages), low-overlap hit@3, and the
 * meaning-only hits left in the ten: wrong ones on the labelled questions, any on the unrelated.
 */
import { createMemoryRepo } from '../src/modules/memory/memory.repo.js';
import { memorySearchSource } from '../src/modules/memory/memory.search.js';
import { createFusion, DEFAULT_FUSION_SETTINGS, type Fusion, type FusionSettings, type RankedItem } from '../src/modules/search/search.fusion.js';
import { createSearchRepo } from '../src/modules/search/search.repo.js';
import { createVectorCache } from '../src/storage/search/vectors.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { inParallel } from './lib/http.js';
import { loadRecallSet } from './lib/recall-data.js';

/** Questions about nothing in the set: every meaning-only hit they get is junk. */
const UNRELATED = [
  'teeth whitening strips reviews',
  'how does a jet engine work',
  'quantum chromodynamics lattice simulation',
  'best way to fix a leaking carburettor',
  'who won the 1966 world cup',
  'translate hello into japanese',
  'price of bitcoin today',
  'how many moons does jupiter have',
  'recipe for beef wellington',
  'symptoms of scurvy',
  'what is the capital of mongolia',
  'rules of cricket lbw',
  'how to knit a scarf',
  'kubernetes pod eviction policy',
  'history of the roman empire',
  'weather forecast for tomorrow',
  'chess opening theory sicilian defence',
  'how to train a parrot to talk',
  'volcano eruption iceland',
  'latest smartphone release',
  'tax rules for cryptocurrency in germany',
  'how to tune a ukulele',
  'lyrics of bohemian rhapsody',
  'distance from earth to mars',
];

interface Question {
  set: string;
  kind: string;
  ownerId: string;
  token: string;
  question: string;
  /** Labelled right ids (notes); empty for unrelated questions. */
  right: Set<string>;
  /** Passages: whether a hit is right. */
  isRight?: (hit: { id: string; text: string; documentId: string }) => boolean;
}

const t0 = performance.now();
const say = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${s}`);
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

// No floor in the app: the passages' answers are replayed with each floor below.
const app: TestApp = await createTestApp({ config: { searchMeaningMin: -1, searchMeaningMargin: 2 } });
try {
  const data = loadRecallSet();
  const notes: Question[] = [];
  const passages: Question[] = [];

  async function store(token: string, texts: string[]): Promise<string[]> {
    return inParallel(texts.length, 16, async (i) => {
      const res = await app.request('POST', '/api/v1/memory', { token, body: { content: texts[i] } });
      if (res.status !== 201) throw new Error(`POST /api/v1/memory answered ${res.status}: ${res.text}`);
      return String(res.body.data.id);
    });
  }

  const owner = await app.createOwner();
  const ids = await store(owner.token, data.notes.map((n) => n.content));
  const idOf = new Map(data.notes.map((n, i) => [n.id, ids[i]!]));
  for (const q of data.questions) notes.push({ set: 'notes', kind: q.kind, ownerId: owner.id, token: owner.token, question: q.question, right: new Set(q.answers.map((a) => idOf.get(a)!)) });
  for (const u of UNRELATED) notes.push({ set: 'notes', kind: 'unrelated', ownerId: owner.id, token: owner.token, question: u, right: new Set() });

  const low = await app.createOwner();
  const lowIds = await store(low.token, data.lowOverlapNotes.map((n) => n.content));
  const lowOf = new Map(data.lowOverlapNotes.map((n, i) => [n.id, lowIds[i]!]));
  for (const q of data.lowOverlapQuestions) notes.push({ set: 'low-overlap', kind: q.kind, ownerId: low.id, token: low.token, question: q.question, right: new Set(q.answers.map((a) => lowOf.get(a)!)) });
  for (const u of UNRELATED) notes.push({ set: 'low-overlap', kind: 'unrelated', ownerId: low.id, token: low.token, question: u, right: new Set() });

  const docIds = new Map<string, string>();
  for (const d of data.documents) {
    const res = await app.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: d.title, content: d.content } });
    docIds.set(d.id, String(res.body.data.id));
  }
  for (const q of data.documentQuestions) {
    passages.push({
      set: 'passages', kind: q.kind, ownerId: owner.id, token: owner.token, question: q.question, right: new Set(),
      isRight: (hit) => q.answers.some((a) => hit.documentId === docIds.get(a.document) && squash(hit.text).includes(squash(a.passage))),
    });
  }
  for (const u of UNRELATED) passages.push({ set: 'passages', kind: 'unrelated', ownerId: owner.id, token: owner.token, question: u, right: new Set(), isRight: () => false });

  say(`stored; embedding`);
  await app.container.searchIndexer.runNow();
  say('indexed; asking');

  const vectors = new Map<string, Float32Array>();
  const texts = [...new Set(notes.map((q) => q.question))];
  for (let i = 0; i < texts.length; i += 256) {
    const batch = texts.slice(i, i + 256);
    const out = await app.container.embeddings.embed(batch);
    batch.forEach((text, j) => vectors.set(text, out[j]!));
  }
  const embeddings = {
    describe: () => app.container.embeddings.describe(),
    embed: async (batch: readonly string[]) => batch.map((text) => vectors.get(text)!),
  };
  const memoryRepo = createMemoryRepo(app.storage.db as never, app.storage.dialect, app.storage.groupCommit, app.storage.writes);
  const lexical = new Map<Question, Array<{ id: string; score: number }>>();
  for (const q of notes) lexical.set(q, (await memoryRepo.rank(q.ownerId, q.question, DEFAULT_FUSION_SETTINGS.candidates, 'any')).map((hit) => ({ id: hit.id, score: hit.rank })));
  const searchRepo = createSearchRepo(app.storage.db);
  const fusionWith = (settings: Partial<FusionSettings>): Fusion =>
    createFusion({ embeddings, repo: searchRepo, sources: [memorySearchSource], cache: createVectorCache({ capacityBytes: 256 * 1024 * 1024 }), writes: app.storage.writes, settings });

  // Passages: the one search's knowledge answer, no floor (the app's defaults), 50 deep.
  const passageHits = new Map<Question, Array<{ id: string; score: number; matched: string; text: string; documentId: string }>>();
  await inParallel(passages.length, 8, async (i) => {
    const q = passages[i]!;
    const res = await app.request('GET', `/api/v1/search?q=${encodeURIComponent(q.question)}&types=knowledge&limit=50`, { token: q.token });
    passageHits.set(q, res.body.data.map((h: any) => ({ id: String(h.id), score: h.score, matched: h.matched, text: h.text, documentId: String(h.documentId ?? h.document?.id) })));
  });

  // The cosines without a floor (notes: from the fusion; passages: a meaning-only hit's score).
  const noFloor = fusionWith({});
  const quantiles = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const at = (p: number) => (s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]!);
    return `n ${s.length}: min ${at(0).toFixed(3)} p10 ${at(0.1).toFixed(3)} p25 ${at(0.25).toFixed(3)} median ${at(0.5).toFixed(3)} p75 ${at(0.75).toFixed(3)} p90 ${at(0.9).toFixed(3)} max ${at(1).toFixed(3)}`;
  };
  const cosRight: Record<string, number[]> = {};
  const cosWrong: Record<string, number[]> = {};
  const cosUnrelated: Record<string, number[]> = {};
  const push = (to: Record<string, number[]>, key: string, x: number) => (to[key] ??= []).push(x);
  const noteAnswers = new Map<Question, RankedItem[]>();
  for (const q of notes) {
    const ranked = await noFloor.rank(q.ownerId, 'memory', q.question, lexical.get(q)!, 10);
    noteAnswers.set(q, ranked);
    for (const hit of ranked) {
      if (hit.matched !== 'meaning') continue;
      // A meaning-only hit's fused score is its cosine (nothing from words).
      push(q.kind === 'unrelated' ? cosUnrelated : q.right.has(hit.id) ? cosRight : cosWrong, q.set, hit.score);
    }
  }
  for (const q of passages) {
    for (const hit of passageHits.get(q)!.slice(0, 10)) {
      if (hit.matched !== 'meaning') continue;
      push(q.kind === 'unrelated' ? cosUnrelated : q.isRight!(hit) ? cosRight : cosWrong, q.set, hit.score);
    }
  }
  console.log('\nCosines of the hits found by meaning alone, in the ten without a floor:');
  for (const set of ['notes', 'low-overlap', 'passages']) {
    console.log(`- ${set}, right: ${quantiles(cosRight[set] ?? [])}`);
    console.log(`- ${set}, wrong: ${quantiles(cosWrong[set] ?? [])}`);
    console.log(`- ${set}, unrelated questions: ${quantiles(cosUnrelated[set] ?? [])}`);
  }

  const floors: Array<{ name: string; min: number; margin: number }> = [{ name: 'none', min: -1, margin: 2 }];
  for (const min of [0.25, 0.28, 0.3, 0.32, 0.35, 0.4, 0.45]) floors.push({ name: `min ${min}`, min, margin: 2 });
  for (const margin of [0.05, 0.1, 0.15, 0.2]) floors.push({ name: `margin ${margin}`, min: -1, margin });
  for (const margin of [0.1, 0.15, 0.2]) for (const min of [0.25, 0.28, 0.3, 0.35]) floors.push({ name: `min ${min}, margin ${margin}`, min, margin });

  const pct = (n: number, d: number) => (d === 0 ? '-' : ((100 * n) / d).toFixed(1));
  console.log('\n| floor | notes exact h@1 / h@5 / MRR | notes paraphrase h@1 / h@5 / MRR | low-overlap h@3 | passages h@1 / h@5 / MRR | wrong meaning-only hits kept (notes, low-overlap, passages) | unrelated questions\' meaning-only hits (notes, low-overlap, passages) |');
  console.log('|---|---|---|---:|---|---|---|');
  for (const floor of floors) {
    const fusion = fusionWith({ meaningMin: floor.min, meaningMargin: floor.margin });
    const ranks = new Map<Question, number>();
    const wrong: Record<string, number> = {};
    const unrelated: Record<string, number> = {};
    for (const q of notes) {
      const ranked = await fusion.rank(q.ownerId, 'memory', q.question, lexical.get(q)!, 10);
      ranks.set(q, ranked.findIndex((item) => q.right.has(item.id)) + 1);
      for (const hit of ranked) if (hit.matched === 'meaning' && !q.right.has(hit.id)) (q.kind === 'unrelated' ? unrelated : wrong)[q.set] = ((q.kind === 'unrelated' ? unrelated : wrong)[q.set] ?? 0) + 1;
    }
    for (const q of passages) {
      // Only the absolute floor can be replayed on the answer (a margin needs the best cosine).
      const kept = passageHits.get(q)!.filter((hit) => hit.matched !== 'meaning' || hit.score >= floor.min).slice(0, 10);
      ranks.set(q, kept.findIndex((hit) => q.isRight!(hit)) + 1);
      for (const hit of kept) if (hit.matched === 'meaning' && !q.isRight!(hit)) (q.kind === 'unrelated' ? unrelated : wrong).passages = ((q.kind === 'unrelated' ? unrelated : wrong).passages ?? 0) + 1;
    }
    const cell = (qs: Question[]) => {
      const r = qs.map((q) => ranks.get(q)!);
      const hit = (k: number) => r.filter((x) => x > 0 && x <= k).length;
      return { n: qs.length, hit, mrr: r.reduce((s, x) => s + (x > 0 ? 1 / x : 0), 0) / Math.max(1, qs.length) };
    };
    const three = (c: ReturnType<typeof cell>) => `${pct(c.hit(1), c.n)} / ${pct(c.hit(5), c.n)} / ${c.mrr.toFixed(3)}`;
    const of = (list: Question[], set: string, kind?: string) => list.filter((q) => q.set === set && q.kind !== 'unrelated' && (kind === undefined || q.kind === kind));
    const lowCell = cell(of(notes, 'low-overlap'));
    const passageNote = floor.margin < 2 ? ' (min only)' : '';
    console.log(
      `| ${floor.name} | ${three(cell(of(notes, 'notes', 'exact')))} | ${three(cell(of(notes, 'notes', 'paraphrase')))} | ${pct(lowCell.hit(3), lowCell.n)} | ${three(cell(of(passages, 'passages')))}${passageNote} | ` +
        `${wrong.notes ?? 0}, ${wrong['low-overlap'] ?? 0}, ${wrong.passages ?? 0} | ${unrelated.notes ?? 0}, ${unrelated['low-overlap'] ?? 0}, ${unrelated.passages ?? 0} |`,
    );
  }
  say('done');
} finally {
  await app.close();
}
