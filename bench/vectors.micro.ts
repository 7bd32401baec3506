/**
 * Exact top-k by meaning over one owner's vectors, without HTTP or a database: N random unit
 * vectors of D dimensions (clustered, as sentence vectors are) in one in-memory index, and Q
 * queries ranked one after another. Prints wall-clock and CPU time per query (the machine may
 * be shared: CPU time is the steadier figure), and checks each answer against a brute-force
 * float ranking of the same stored vectors.
 *
 * Run: npx tsx bench/vectors.micro.ts [vectors = 100000] [queries = 50] [k = 10] [dimensions = 512]
 */
import { dequantize, OwnerVectors, quantize } from '../src/storage/search/vectors.js';

const n = Number(process.argv[2] ?? 100_000);
const queries = Number(process.argv[3] ?? 50);
const k = Number(process.argv[4] ?? 10);
const d = Number(process.argv[5] ?? 512);

// A seeded generator, so two runs rank the same vectors.
let seed = 42;
const random = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const gaussian = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
const unit = (v: Float32Array) => {
  let s = 0;
  for (const x of v) s += x * x;
  const r = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i]! *= r;
  return v;
};
// 200 topics: each vector is a topic plus noise, so many scores are close (a hard case for int8).
const topics = Array.from({ length: 200 }, () => unit(Float32Array.from({ length: d }, gaussian)));
const near = (spread: number) => {
  const topic = topics[Math.floor(random() * topics.length)]!;
  return unit(Float32Array.from(topic, (x) => x + spread * gaussian() / Math.sqrt(d)));
};

let started = performance.now();
const index = new OwnerVectors('bench-model', d);
const stored: Float32Array[] = [];
for (let i = 0; i < n; i++) {
  const { codes, scale } = quantize(near(0.8));
  index.put(`v${i}`, codes, scale);
  stored.push(dequantize(codes, scale));
}
console.log(`${n} vectors of ${d} dimensions stored in ${(performance.now() - started).toFixed(0)} ms, ${(index.bytes / 1e6).toFixed(1)} MB`);

const qs = Array.from({ length: queries }, () => near(1));
// Warm-up, so the JIT has compiled the scan before timing.
for (let i = 0; i < 3; i++) index.search(qs[i % qs.length]!, k);

const walls: number[] = [];
const cpus: number[] = [];
let mismatches = 0;
for (const q of qs) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const hits = index.search(q, k);
  walls.push(performance.now() - t0);
  const cpu = process.cpuUsage(cpu0);
  cpus.push((cpu.user + cpu.system) / 1000);
  // Brute force over the stored (dequantized) vectors: the answer must be the same set.
  const scores = stored.map((v, i) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += q[j]! * v[j]!;
    return { id: `v${i}`, s };
  });
  scores.sort((a, b) => b.s - a.s);
  const want = scores.slice(0, k);
  const kth = want[k - 1]!.s;
  const got = new Set(hits.map((h) => h.id));
  // Ties at the k-th score may be answered either way.
  if (!want.every((w) => got.has(w.id) || Math.abs(w.s - kth) < 1e-6)) mismatches++;
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;
};
console.log(`top ${k} of ${n}: wall ${stat(walls)}`);
console.log(`top ${k} of ${n}: cpu  ${stat(cpus)}`);
console.log(`answers differing from brute force: ${mismatches} of ${queries}`);
started = performance.now();
const ids = Array.from({ length: 50 }, (_, i) => `v${i * 7}`);
for (const q of qs) index.search(q, k, ids);
console.log(`re-ranking 50 candidates: ${((performance.now() - started) / qs.length).toFixed(3)} ms per query`);
