/**
 * The common-word search of issue 11 without HTTP or a database: the 10,000 skills of the data
 * set in one owner's in-memory index, and N different queries of three common words ranked
 * through it, one after another in this process. Deterministic enough to compare two versions
 * of the ranking on a busy machine, where the HTTP rows of `npm run bench` drift.
 *
 * Run: npx tsx bench/search.micro.ts [queries = 20000]
 */
import { skillCatalogue, commonQuery } from './lib/dataset.js';
import { queryTerms } from '../src/storage/search/tokenizer.js';
import { buildOwnerIndex } from '../src/storage/search/owner-index.js';
import { createRankScratch, rankInIndex } from '../src/storage/search/ranker.js';
import { SKILLS_FULL_TEXT } from '../src/modules/skills/skills.repo.js';

const queries = Number(process.argv[2] ?? 20_000);
const rows = skillCatalogue().map((skill, i) => ({
  id: i + 1,
  name: skill.name,
  description: skill.description,
  category: skill.category,
  slug_key: skill.name.toLowerCase(),
  category_key: skill.category.toLowerCase(),
}));

let started = performance.now();
const owner = buildOwnerIndex<number>(rows, SKILLS_FULL_TEXT, ['slug_key', 'category_key'], 1)!;
console.log(`index of ${rows.length} skills built in ${(performance.now() - started).toFixed(0)} ms`);

const accept = () => true;
// One heap storage for the runs, as an index keeps one (index-cache.ts).
const scratch = createRankScratch();
const run = (from: number, n: number): number => {
  let found = 0;
  for (let k = from; k < from + n; k++) found += rankInIndex(owner, queryTerms(commonQuery(k)), 'all', 20, accept, scratch)!.length;
  return found;
};
// Warm-up on other queries, so that the timed ones are compiled code and new to every cache.
run(1_000_000, 2_000);
const times: number[] = [];
for (let round = 0; round < 5; round++) {
  started = performance.now();
  const found = run(round * queries, queries);
  const us = ((performance.now() - started) * 1000) / queries;
  times.push(us);
  if (found !== queries * 20) throw new Error(`expected 20 hits per query, got ${found / queries} on average`);
}
times.sort((a, b) => a - b);
console.log(`${queries} queries of three common words, 5 rounds: median ${times[2]!.toFixed(1)} µs/query (best ${times[0]!.toFixed(1)}, worst ${times[4]!.toFixed(1)})`);
