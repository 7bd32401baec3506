/**
 * The common-word search of issues 11 and 33 without HTTP or a database: the 10,000 skills of
 * the data set in one owner's in-memory index, and N different queries of three common words
 * ranked through it, one after another in this process, timed by this process's CPU.
 * Deterministic enough to compare two versions of the ranking on a busy machine, where the HTTP
 * rows of `npm run bench` drift.
 *
 * Run: npx tsx bench/search.micro.ts [queries = 20000] [any | all = any]
 *
 * `COMPARE=<another checkout of Hearth>` ranks the same queries with that checkout's index and
 * ranker too, in interleaved rounds (this one, that one, that one, this one, …), so that both
 * are measured under the same conditions, and checks that both answer the same ids with the
 * same scores.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { skillCatalogue, commonQuery } from './lib/dataset.js';
import { queryTerms } from '../src/storage/search/tokenizer.js';
import * as here from '../src/storage/search/ranker.js';
import * as hereIndex from '../src/storage/search/owner-index.js';
import { SKILLS_FULL_TEXT } from '../src/modules/skills/skills.repo.js';

const queries = Number(process.argv[2] ?? 20_000);
const mode = (process.argv[3] ?? 'any') as 'any' | 'all';
if (mode !== 'any' && mode !== 'all') throw new Error(`mode must be any or all, not ${String(mode)}`);
const rounds = Number(process.env.ROUNDS ?? 5);
const rows = skillCatalogue().map((skill, i) => ({
  id: i + 1,
  name: skill.name,
  description: skill.description,
  category: skill.category,
  slug_key: skill.name.toLowerCase(),
  category_key: skill.category.toLowerCase(),
}));

type Ranker = typeof here;
type Indexer = typeof hereIndex;
interface Version {
  name: string;
  rank: (k: number) => Array<{ id: number; rank: number }>;
  times: number[];
}

function version(name: string, ranker: Ranker, indexer: Indexer): Version {
  const started = performance.now();
  const owner = indexer.buildOwnerIndex<number>(rows, SKILLS_FULL_TEXT, ['slug_key', 'category_key'], 1)!;
  console.log(`${name}: index of ${rows.length} skills built in ${(performance.now() - started).toFixed(0)} ms`);
  // One heap storage for the runs, as an index keeps one (index-cache.ts).
  const scratch = ranker.createRankScratch();
  const accept = () => true;
  return { name, rank: (k) => ranker.rankInIndex(owner, queryTerms(commonQuery(k)), mode, 20, accept, scratch)!, times: [] };
}

const versions = [version('this checkout', here, hereIndex)];
const compare = process.env.COMPARE;
if (compare) {
  const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.resolve(compare, file)).href)) as T;
  versions.push(version(compare, await load<Ranker>('src/storage/search/ranker.ts'), await load<Indexer>('src/storage/search/owner-index.ts')));
  // Both answer the same ids with the same scores (the doubles themselves).
  for (let k = 0; k < 2_000; k++) {
    const [a, b] = versions.map((v) => JSON.stringify(v.rank(k).map((hit) => [hit.id, hit.rank])));
    if (a !== b) throw new Error(`the versions answer "${commonQuery(k)}" differently:\n${a}\n${b}`);
  }
}

const run = (v: Version, from: number, n: number): number => {
  let found = 0;
  for (let k = from; k < from + n; k++) found += v.rank(k).length;
  return found;
};
// Warm-up on other queries, so that the timed ones are compiled code and new to every cache.
for (const v of versions) run(v, 1_000_000, 4_000);
for (let round = 0; round < rounds; round++) {
  // ABBA: neither version always goes first.
  const order = round % 2 === 0 ? versions : [...versions].reverse();
  for (const v of order) {
    const cpu = process.cpuUsage();
    const found = run(v, round * queries, queries);
    const used = process.cpuUsage(cpu);
    v.times.push((used.user + used.system) / queries);
    if (found !== queries * 20) throw new Error(`expected 20 hits per query, got ${found / queries} on average`);
  }
}
for (const v of versions) {
  const times = [...v.times].sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${v.name}: ${queries} queries of three common words (${mode}), ${rounds} rounds: median ${median.toFixed(1)} µs of CPU a query (best ${times[0]!.toFixed(1)}, worst ${times[times.length - 1]!.toFixed(1)}; by round ${v.times.map((t) => t.toFixed(1)).join(', ')})`,
  );
}
