/**
 * `npm run bench:dedup`: measures the threshold above which a new memory entry counts as a
 * duplicate of a stored one by meaning (MEMORY_DUPLICATE_COSINE; docs/decisions/memory.md, "No
 * duplicates"), on the labelled pairs of bench/dedup/pairs.jsonl (`npx tsx bench/dedup/make-pairs.ts`
 * writes them): the same fact reworded, and different facts that look alike.
 *
 * Each pair is scored as the server scores a write against a stored entry: the stored text's
 * vector quantized as stored (int8 codes and a scale), the new text's vector as embedded, their
 * dot product (cosine: the vectors are unit length), by the built-in encoder.
 *
 * Printed per candidate threshold: the false-merge rate (different facts at or above it: the
 * newer fact would be dropped, answered with the older) and the missed-merge rate (the same
 * fact below it: stored twice). And the same two for the text rule (`lib/same-text.ts`), which
 * applies whatever the threshold.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { sameTextForm } from '../src/lib/same-text.js';
import { createEmbeddingsService } from '../src/modules/embeddings/embeddings.service.js';
import { quantize } from '../src/storage/search/vectors.js';

interface Pair {
  a: string;
  b: string;
  same: boolean;
  family: string;
  why: string;
}

const file = path.join(path.dirname(new URL(import.meta.url).pathname), 'dedup', 'pairs.jsonl');
const pairs = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Pair);

const embeddings = createEmbeddingsService({ settings: loadConfig({ EMBEDDINGS: 'builtin' }).embeddings, log: { warn: () => {}, info: () => {} } });
const texts = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
const vectors = new Map<string, Float32Array>();
for (let i = 0; i < texts.length; i += 64) {
  const batch = texts.slice(i, i + 64);
  const out = await embeddings.embed(batch);
  batch.forEach((text, j) => vectors.set(text, out[j]!));
}

/** The stored entry's vector as the index holds it, against the new text's as embedded. */
function cosine(stored: string, written: string): number {
  const { codes, scale } = quantize(vectors.get(stored)!);
  const q = vectors.get(written)!;
  let dot = 0;
  for (let i = 0; i < q.length; i++) dot += q[i]! * codes[i]! * scale;
  return dot;
}

const scored = pairs.map((pair) => ({ ...pair, cosine: cosine(pair.a, pair.b) }));
const same = scored.filter((p) => p.same);
const different = scored.filter((p) => !p.same);
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`.padStart(6);

console.log(`${pairs.length} pairs: ${same.length} the same fact reworded, ${different.length} different facts that look alike (${path.relative(process.cwd(), file)})`);
console.log(`built-in encoder (${embeddings.describe().model}); cosine of the stored entry's quantized vector with the new text's\n`);
const textFalse = different.filter((p) => sameTextForm(p.a) === sameTextForm(p.b)).length;
const textMissed = same.filter((p) => sameTextForm(p.a) !== sameTextForm(p.b)).length;
console.log(`text rule alone: false merges ${pct(textFalse, different.length)} (${textFalse}), missed merges ${pct(textMissed, same.length)} (${textMissed})\n`);
console.log('threshold  false merges       missed merges (after the text rule)');
for (const threshold of [0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99]) {
  const falseMerges = different.filter((p) => p.cosine >= threshold).length;
  const missed = same.filter((p) => p.cosine < threshold && sameTextForm(p.a) !== sameTextForm(p.b)).length;
  console.log(`${threshold.toFixed(2).padStart(9)}  ${pct(falseMerges, different.length)} (${String(falseMerges).padStart(3)})   ${pct(missed, same.length)} (${String(missed).padStart(3)})`);
}
const top = [...different].sort((x, y) => y.cosine - x.cosine).slice(0, 8);
console.log('\nthe different facts nearest in meaning:');
for (const p of top) console.log(`  ${p.cosine.toFixed(3)}  ${p.why.padEnd(22)} "${p.a}" / "${p.b}"`);
const low = [...same].sort((x, y) => x.cosine - y.cosine).slice(0, 5);
console.log('the same facts farthest apart:');
for (const p of low) console.log(`  ${p.cosine.toFixed(3)}  "${p.a}" / "${p.b}"`);
const maxSame = Math.max(...same.map((p) => p.cosine));
console.log(`\nhighest cosine of a pair of different facts: ${Math.max(...different.map((p) => p.cosine)).toFixed(3)}; of the same fact: ${maxSame.toFixed(3)}`);
await embeddings.close?.();
process.exit(0);
