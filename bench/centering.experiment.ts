/**
 * `npx tsx bench/centering.experiment.ts [<LoCoMo folder> [conversations = 3]]`: would ranking by
 * meaning find more if each vector were centered first (less the mean of the owner's stored
 * vectors, shrunk toward 0 for small owners: `alpha × n / (n + k)`), a common cure for an
 * encoder whose vectors all lean one way? Meaning alone, the built-in encoder, on bench/recall/
 * (notes and the low-overlap set) and optionally LoCoMo; prints hit@1/3/5/10 and MRR per
 * variant. The result and the decision: docs/decisions/search.md ("Centered vectors: tried").
 */
import { createTestApp } from '../test/harness.js';
import { loadLocomo } from './lib/locomo.js';
import { loadRecallSet } from './lib/recall-data.js';

const app = await createTestApp();
const embed = async (texts: string[]): Promise<Float32Array[]> => {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) out.push(...(await app.container.embeddings.embed(texts.slice(i, i + 256))));
  return out;
};
interface Set_ { name: string; kind: string; notes: Float32Array[]; questions: Array<{ v: Float32Array; right: Set<number>; kind: string }> }
const sets: Set_[] = [];
const data = loadRecallSet();
{
  const notes = await embed(data.notes.map((n) => n.content));
  const idx = new Map(data.notes.map((n, i) => [n.id, i]));
  const qv = await embed(data.questions.map((q) => q.question));
  sets.push({ name: 'notes', kind: '', notes, questions: data.questions.map((q, i) => ({ v: qv[i]!, kind: q.kind, right: new Set(q.answers.map((a) => idx.get(a)!)) })) });
}
{
  const notes = await embed(data.lowOverlapNotes.map((n) => n.content));
  const idx = new Map(data.lowOverlapNotes.map((n, i) => [n.id, i]));
  const qv = await embed(data.lowOverlapQuestions.map((q) => q.question));
  sets.push({ name: 'low', kind: '', notes, questions: data.lowOverlapQuestions.map((q, i) => ({ v: qv[i]!, kind: 'paraphrase', right: new Set(q.answers.map((a) => idx.get(a)!)) })) });
}
const locomo = process.argv[2];
if (locomo) {
  for (const conv of loadLocomo(locomo).slice(0, Number(process.argv[3] ?? 3))) {
    const notes = await embed(conv.turns.map((t) => t.content));
    const idx = new Map(conv.turns.map((t, i) => [t.diaId, i]));
    const qs = conv.questions.filter((q) => q.evidence.some((e) => idx.has(e)));
    const qv = await embed(qs.map((q) => q.question.slice(0, 500)));
    sets.push({ name: 'locomo', kind: '', notes, questions: qs.map((q, i) => ({ v: qv[i]!, kind: 'all', right: new Set(q.evidence.map((e) => idx.get(e)).filter((x): x is number => x !== undefined)) })) });
  }
}
console.log('embedded');
const dot = (a: Float32Array, b: Float32Array) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!; return s; };
function centered(v: Float32Array, m: Float32Array): Float32Array {
  const o = new Float32Array(v.length); let n = 0;
  for (let i = 0; i < v.length; i++) { o[i] = v[i]! - m[i]!; n += o[i]! * o[i]!; }
  n = Math.sqrt(n) || 1; for (let i = 0; i < v.length; i++) o[i]! /= n; return o;
}
function variant(alpha: number, k: number) {
  const acc = new Map<string, { n: number; h1: number; h3: number; h5: number; h10: number; mrr: number }>();
  for (const s of sets) {
    const dim = s.notes[0]!.length; const m = new Float32Array(dim);
    for (const v of s.notes) for (let i = 0; i < dim; i++) m[i]! += v[i]! / s.notes.length;
    const shrink = alpha * s.notes.length / (s.notes.length + k);
    for (let i = 0; i < dim; i++) m[i]! *= shrink;
    const notes = shrink > 0 ? s.notes.map((v) => centered(v, m)) : s.notes;
    for (const q of s.questions) {
      const qv = shrink > 0 ? centered(q.v, m) : q.v;
      const scored = notes.map((v, i) => [dot(qv, v), i] as const).sort((a, b) => b[0] - a[0]);
      const rank = scored.findIndex(([, i]) => q.right.has(i)) + 1;
      for (const key of [`${s.name} ${q.kind}`, `${s.name} all`]) {
        const a = acc.get(key) ?? { n: 0, h1: 0, h3: 0, h5: 0, h10: 0, mrr: 0 };
        a.n++; if (rank === 1) a.h1++; if (rank >= 1 && rank <= 3) a.h3++; if (rank >= 1 && rank <= 5) a.h5++; if (rank >= 1 && rank <= 10) { a.h10++; a.mrr += 1 / rank; }
        acc.set(key, a);
      }
    }
  }
  const p = (x: number, n: number) => ((100 * x) / n).toFixed(1);
  console.log(`alpha ${alpha} k ${k}: ` + [...acc].filter(([key]) => !key.startsWith('low paraphrase') && !key.startsWith('locomo all') || key === 'locomo all').map(([key, a]) => `${key} h1 ${p(a.h1, a.n)} h3 ${p(a.h3, a.n)} h5 ${p(a.h5, a.n)} h10 ${p(a.h10, a.n)} mrr ${(a.mrr / a.n).toFixed(3)}`).join(' | '));
}
for (const [alpha, k] of [[0, 0], [1, 0], [0.5, 0], [0.75, 0], [1, 50], [1, 200]] as const) variant(alpha, k);
await app.close();
process.exit(0);
