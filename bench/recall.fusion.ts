/**
 * `npx tsx bench/recall.fusion.ts [--locomo <path>] [--conversations n] [--no-recall] [--losses [--losses-of <variant>]]`: measures ways of fusing
 * the words' ranking with the meaning's on the labelled set of bench/recall/ (and on LoCoMo when
 * given its data), to choose the fusion's method and weights (docs/decisions/search.md, "Fusion").
 *
 * One app in this process (a temporary SQLite store, the built-in embedder) stores the notes
 * through the API, the indexer embeds them once, and every question's vector is computed once.
 * Then each variant is the server's own `createFusion` with other settings, over the same
 * words' candidates (memory's repository, as the route asks it) and the same stored vectors:
 * the variants differ only by their settings. Printed per variant: hit@1, hit@5 and MRR@10 on
 * the notes' exact and paraphrase questions, hit@3 on the low-overlap set, hit@10 on LoCoMo.
 * `npm run bench:recall` and `bench:locomo` measure the settings the server ships with.
 */
import { createMemoryRepo } from '../src/modules/memory/memory.repo.js';
import { memorySearchSource } from '../src/modules/memory/memory.search.js';
import { createFusion, DEFAULT_FUSION_SETTINGS, wordsOnlyFusion, type Fusion, type FusionSettings } from '../src/modules/search/search.fusion.js';
import { createSearchRepo } from '../src/modules/search/search.repo.js';
import { createVectorCache } from '../src/storage/search/vectors.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { loadLocomo } from './lib/locomo.js';
import { loadRecallSet } from './lib/recall-data.js';
import { inParallel } from './lib/http.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const locomoPath = flag('--locomo');
const conversationCount = Number(flag('--conversations') ?? 10);

interface Question {
  set: string;
  kind: string;
  ownerId: string;
  question: string;
  right: Set<string>;
}

const t0 = performance.now();
const say = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${s}`);

// The built-in embedder is the default setting.
const app: TestApp = await createTestApp();
try {
  const questions: Question[] = [];

  /** Stores the texts for a new owner; answers the owner's id and each text's entry id. */
  async function store(texts: string[]): Promise<{ ownerId: string; ids: string[] }> {
    const owner = await app.createOwner();
    const created = await inParallel(texts.length, 16, async (i) => {
      const res = await app.request('POST', '/api/v1/memory', { token: owner.token, body: { content: texts[i] } });
      if (res.status !== 201) throw new Error(`POST /api/v1/memory answered ${res.status}: ${res.text}`);
      return String(res.body.data.id);
    });
    return { ownerId: owner.id, ids: created };
  }

  const data = loadRecallSet();
  if (!args.includes('--no-recall')) {
    const { ownerId, ids } = await store(data.notes.map((n) => n.content));
    const idOf = new Map(data.notes.map((n, i) => [n.id, ids[i]!]));
    for (const q of data.questions) questions.push({ set: 'notes', kind: q.kind, ownerId, question: q.question, right: new Set(q.answers.map((a) => idOf.get(a)!)) });
  }
  if (!args.includes('--no-recall')) {
    const { ownerId, ids } = await store(data.lowOverlapNotes.map((n) => n.content));
    const idOf = new Map(data.lowOverlapNotes.map((n, i) => [n.id, ids[i]!]));
    for (const q of data.lowOverlapQuestions) questions.push({ set: 'low-overlap', kind: q.kind, ownerId, question: q.question, right: new Set(q.answers.map((a) => idOf.get(a)!)) });
  }
  if (locomoPath) {
    for (const conv of loadLocomo(locomoPath).slice(0, conversationCount)) {
      const { ownerId, ids } = await store(conv.turns.map((t) => t.content));
      const idOf = new Map(conv.turns.map((t, i) => [t.diaId, ids[i]!]));
      for (const q of conv.questions) {
        questions.push({ set: 'locomo', kind: 'all', ownerId, question: q.question.slice(0, 500), right: new Set(q.evidence.map((e) => idOf.get(e)).filter((id): id is string => id !== undefined)) });
      }
    }
  }
  say(`stored; ${questions.length} questions; embedding the entries`);
  await app.container.searchIndexer.runNow();
  const status = await app.container.searchIndexer.status(questions[0]!.ownerId);
  say(`indexed (${JSON.stringify(status)}); embedding the questions`);

  // Every question's vector once, in batches; each variant's fusion then finds it here.
  const vectors = new Map<string, Float32Array>();
  const texts = [...new Set(questions.map((q) => q.question))];
  for (let i = 0; i < texts.length; i += 256) {
    const batch = texts.slice(i, i + 256);
    const out = await app.container.embeddings.embed(batch);
    batch.forEach((text, j) => vectors.set(text, out[j]!));
  }
  const embeddings = {
    describe: () => app.container.embeddings.describe(),
    embed: async (batch: readonly string[]) =>
      batch.map((text) => {
        const vector = vectors.get(text);
        if (!vector) throw new Error(`not embedded: ${text}`);
        return vector;
      }),
  };
  say('questions embedded; ranking');

  const memoryRepo = createMemoryRepo(app.storage.db as never, app.storage.dialect, app.storage.groupCommit, app.storage.writes);
  const lexical = new Map<Question, Array<{ id: string; score: number }>>();
  for (const q of questions) lexical.set(q, (await memoryRepo.rank(q.ownerId, q.question, DEFAULT_FUSION_SETTINGS.candidates, 'any')).map((hit) => ({ id: hit.id, score: hit.rank })));

  const searchRepo = createSearchRepo(app.storage.db);
  const fusionWith = (settings: Partial<FusionSettings>): Fusion =>
    createFusion({ embeddings, repo: searchRepo, sources: [memorySearchSource], cache: createVectorCache({ capacityBytes: 256 * 1024 * 1024 }), writes: app.storage.writes, settings });

  const variants: Array<[string, Fusion]> = [
    ['words only', wordsOnlyFusion],
    ['meaning only', fusionWith({ method: 'rrf', words: 0, meaning: 1 })],
    ['rrf 1:1 k60', fusionWith({ method: 'rrf', k: 60, words: 1, meaning: 1 })],
    ['rrf 1:0.5 k60', fusionWith({ method: 'rrf', k: 60, words: 1, meaning: 0.5 })],
    ['rrf 1:0.2 k60', fusionWith({ method: 'rrf', k: 60, words: 1, meaning: 0.2 })],
    ['rrf 1:1 k10', fusionWith({ method: 'rrf', k: 10, words: 1, meaning: 1 })],
    ['rerank top50 rrf 1:1', fusionWith({ method: 'rrf', k: 60, words: 1, meaning: 1, meaningOnly: false })],
    ['convex max 0.3', fusionWith({ method: 'convex', saturation: 0, floor: 0, words: 0.3, meaning: 1 })],
    ['convex max 0.5', fusionWith({ method: 'convex', saturation: 0, floor: 0, words: 0.5, meaning: 1 })],
    ['convex max 1.0', fusionWith({ method: 'convex', saturation: 0, floor: 0, words: 1, meaning: 1 })],
    ['convex sat10 0.5', fusionWith({ method: 'convex', saturation: 10, floor: 0, words: 0.5, meaning: 1 })],
    ['convex sat20 1.2', fusionWith({ method: 'convex', saturation: 20, floor: 0, words: 1.2, meaning: 1 })],
    ...[5, 10, 15].flatMap((f) =>
      [0.3, 0.5, 0.8].map((w): [string, Fusion] => [`convex floor${f} ${w}`, fusionWith({ method: 'convex', saturation: 0, floor: f, words: w, meaning: 1 })]),
    ),
    ['shipped', fusionWith({})],
  ];
  const pct = (n: number, d: number) => (d === 0 ? '-' : ((100 * n) / d).toFixed(1));
  const header = '| variant | notes exact h@1 / h@5 / MRR | notes paraphrase h@1 / h@5 / MRR | notes all h@1 / h@5 / MRR | low-overlap h@3 | LoCoMo h@10 / MRR |';
  console.log(`\n${header}\n|---|---|---|---|---:|---|`);
  const rankings = new Map<string, Map<Question, number>>();
  for (const [name, fusion] of variants) {
    const ranks = new Map<Question, number>();
    rankings.set(name, ranks);
    for (const q of questions) {
      const ranked = await fusion.rank(q.ownerId, 'memory', q.question, lexical.get(q)!, 10);
      const at = ranked.findIndex((item) => q.right.has(item.id));
      ranks.set(q, at + 1);
    }
    const cell = (set: string, kind?: string) => {
      const qs = questions.filter((q) => q.set === set && (kind === undefined || q.kind === kind));
      const r = qs.map((q) => ranks.get(q)!);
      const hit = (k: number) => r.filter((x) => x > 0 && x <= k).length;
      return { n: qs.length, hit, mrr: qs.length === 0 ? 0 : r.reduce((s, x) => s + (x > 0 ? 1 / x : 0), 0) / qs.length };
    };
    const three = (c: ReturnType<typeof cell>) => `${pct(c.hit(1), c.n)} / ${pct(c.hit(5), c.n)} / ${c.mrr.toFixed(3)}`;
    const low = cell('low-overlap');
    const loco = cell('locomo');
    console.log(
      `| ${name} | ${three(cell('notes', 'exact'))} | ${three(cell('notes', 'paraphrase'))} | ${three(cell('notes'))} | ${pct(low.hit(3), low.n)} | ${loco.n ? `${pct(loco.hit(10), loco.n)} / ${loco.mrr.toFixed(3)}` : '-'} |`,
    );
  }
  if (args.includes('--losses')) {
    // Where the shipped fusion ranks a question's answer lower than the words did.
    const words = rankings.get('words only')!;
    const shipped = rankings.get(flag('--losses-of') ?? 'shipped')!;
    const rank = (r: number) => (r === 0 ? 11 : r);
    console.log('\nLower than words alone (words rank -> fused rank; 11: not in the ten):');
    for (const q of questions) if (rank(shipped.get(q)!) > rank(words.get(q)!)) console.log(`- [${q.set}/${q.kind}] ${words.get(q)} -> ${shipped.get(q)}: ${q.question}`);
  }
  say('done');
} finally {
  await app.close();
}
