/**
 * `npx tsx bench/embeddings.bench.ts`: the built-in embedder as search will use it, through its
 * worker process (src/modules/embeddings): the worker's cold start and memory, indexing
 * throughput per batch size (wall clock, and per CPU-second of the worker, which a busy shared
 * machine changes far less), a query's latency while nothing else waits, and quality on a small
 * set of notes and questions written for it:
 * - 30 paraphrase questions that share almost no word with their note ("who looks after my teeth"
 *   for "My dentist is Dr. Patel"), each searched among the 38 notes;
 * - 8 exact-term questions (a code, a name, a number) among the same notes.
 * hit@k: the question's note is among the k notes of highest cosine similarity.
 * Settings: BENCH_DURATION (seconds per batch size, 5).
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createEmbeddingsService } from '../src/modules/embeddings/embeddings.service.js';
import { positive } from './lib/settings.js';

const SECONDS = positive('BENCH_DURATION', 5);

/** [note, a question that means it in other words] */
const PARAPHRASES: Array<[string, string]> = [
  ['My dentist is Dr. Patel', 'who looks after my teeth'],
  ['My daughter Emma is allergic to peanuts', 'food allergies in my family'],
  ['I prefer aisle seats on flights', 'where do I like to sit on a plane'],
  ['The Wi-Fi password at home is blue-harbor-42', 'how do guests get online at my house'],
  ['I go running every Tuesday and Thursday morning', 'what exercise routine do I follow'],
  ['My car is a 2018 Toyota Corolla', 'which vehicle do I drive'],
  ["Mom's birthday is on March 14", 'when should I call my mother to celebrate'],
  ['I am vegetarian and never eat meat', 'dietary restrictions for dinner reservations'],
  ['My landlord is named Greg and lives upstairs', 'who owns the apartment I rent'],
  ['I take 20 mg of lisinopril every morning for blood pressure', 'what medication am I on for hypertension'],
  ['Our cat Whiskers needs his vaccine in June', 'when is the pet due at the vet'],
  ['I speak fluent Spanish and a little Japanese', 'which languages do I know'],
  ['My favourite band is Radiohead', 'what music do I enjoy listening to'],
  ["I work as a nurse at St. Mary's hospital", 'what is my job'],
  ['The spare house key is under the blue flowerpot', 'where can I find a way in if locked out'],
  ['I am afraid of heights', 'what phobias do I have'],
  ['My sister lives in Toronto', 'where is my sibling based'],
  ['I graduated from the University of Michigan in 2012', 'which college did I attend'],
  ['I drink my coffee black with no sugar', 'how do I take my morning brew'],
  ['My gym membership renews on the first of every month', 'when is the fitness club fee charged'],
  ["I'm saving up for a trip to Iceland next summer", 'what vacation am I planning'],
  ['My son plays the violin in the school orchestra', 'which instrument does my child learn'],
  ['I hate cilantro, it tastes like soap to me', 'herbs I dislike in food'],
  ['Our wedding anniversary is October 3rd', 'when did my spouse and I get married'],
  ['My blood type is O negative', 'details for a transfusion'],
  ['I usually go to bed around 11pm and wake at 6:30', 'what is my sleep schedule'],
  ['The plumber we trust is Mike from QuickFix', 'who should repair a leaking pipe'],
  ["I'm learning to bake sourdough bread", 'what cooking hobby have I picked up'],
  ['My bank account is with Chase', 'which financial institution holds my money'],
  ['I wear glasses for reading', 'do I need help with my eyesight'],
];
/** [note, a question naming one exact term of it] */
const EXACT: Array<[string, string]> = [
  ['Invoice INV-2291 from Acme was paid on 2024-05-02', 'INV-2291'],
  ['The router model is a Netgear R7000', 'R7000'],
  ['Flight BA117 to New York departs at 8:40', 'BA117'],
  ['Dr. Okonkwo is my dermatologist', 'Okonkwo'],
  ['Project Zephyr kicks off in Q3', 'Zephyr'],
  ['My locker combination is 31-07-19', '31-07-19'],
  ['The VIN of the Corolla ends in 4471', '4471'],
  ['Kubernetes cluster prod-eu-2 runs version 1.29', 'prod-eu-2'],
];

/** The worker's CPU time in seconds (Linux: /proc/<pid>/stat, user + system, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
function residentMiB(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

const notes = [...PARAPHRASES.map(([note]) => note), ...EXACT.map(([note]) => note)];
const service = (batchSize: number) =>
  createEmbeddingsService({ settings: { ...loadConfig({}).embeddings, batchSize }, log: { warn: console.warn, info: () => {} } });

const embeddings = service(64);
let started = performance.now();
await embeddings.embed(['warm up']);
const pid = embeddings.workerPid()!;
console.log(`model ${embeddings.describe().model}, ${embeddings.describe().dimensions} dimensions`);
console.log(`cold start to the first vector: ${Math.round(performance.now() - started)} ms; worker RSS ${residentMiB(pid)} MiB`);

const noteVectors = await embeddings.embed(notes);
function hits(questions: string[], vectors: Float32Array[], offset: number): { at1: number; at3: number } {
  let at1 = 0;
  let at3 = 0;
  vectors.forEach((question, i) => {
    const ranked = noteVectors.map((note, j) => [dot(question, note), j] as const).sort((a, b) => b[0] - a[0]).map(([, j]) => j);
    const rank = ranked.indexOf(offset + i);
    if (rank === 0) at1++;
    if (rank >= 0 && rank < 3) at3++;
  });
  return { at1, at3 };
}
const para = hits(PARAPHRASES.map(([, q]) => q), await embeddings.embed(PARAPHRASES.map(([, q]) => q)), 0);
const exact = hits(EXACT.map(([, q]) => q), await embeddings.embed(EXACT.map(([, q]) => q)), PARAPHRASES.length);
console.log(`paraphrase questions: hit@1 ${para.at1}/${PARAPHRASES.length}, hit@3 ${para.at3}/${PARAPHRASES.length}`);
console.log(`exact-term questions: hit@1 ${exact.at1}/${EXACT.length}, hit@3 ${exact.at3}/${EXACT.length}`);

const sentences = Array.from({ length: 2048 }, (_, i) => `${PARAPHRASES[i % PARAPHRASES.length]![0]} (note ${i})`);
for (const batchSize of [1, 16, 64]) {
  const run = service(batchSize);
  await run.embed(['warm up']);
  const worker = run.workerPid()!;
  const cpu = cpuSeconds(worker);
  started = performance.now();
  let done = 0;
  while (performance.now() - started < SECONDS * 1000) {
    await run.embed(sentences.slice(done % 1024, (done % 1024) + batchSize * 4));
    done += batchSize * 4;
  }
  const wall = (performance.now() - started) / 1000;
  const used = cpuSeconds(worker) - cpu;
  console.log(`batch ${batchSize}: ${Math.round(done / wall)} texts/s wall, ${Math.round(done / used)} per CPU-second of the worker; RSS ${residentMiB(worker)} MiB`);
  run.close();
}

const latencies: number[] = [];
for (let i = 0; i < 40; i++) {
  started = performance.now();
  await embeddings.embed([`where do I like to sit on a plane, try ${i}`], { urgent: true });
  latencies.push(performance.now() - started);
}
console.log(`one query: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p95 ${quantile(latencies, 0.95).toFixed(1)} ms`);
embeddings.close();
