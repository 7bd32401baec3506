/**
 * The parts of the one search's words-only row (`GET /api/v1/search?q=<a sentence>&types=memory,knowledge`)
 * without HTTP: on a store seeded by bench/seed-store.ts (SQLite), the owner's 10,000 notes and
 * the passages of its documents indexed in this process as the server indexes them, and N of
 * the bench's questions, each
 * - ranked over the notes (top 20, as memory asks with the embedder off) and over the passages (top 10);
 * - marked in ten of the passages and ten of the notes (what the answer's hits show).
 * Timed by this process's CPU, each part alone, median of the rounds.
 *
 * Run: DATA_DIR=<seeded folder> npx tsx bench/search-parts.micro.ts [questions = 5000]
 *
 * `COMPARE=<another checkout of Hearth>` runs the same parts with that checkout's index, ranker
 * and marks too, in interleaved rounds (this one, that one, that one, this one, …), and checks
 * that both answer the same hits with the same scores and the same marks.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { ownerQuestion } from './lib/notes.js';
import { PASSAGE_INDEX } from '../src/modules/knowledge/knowledge.repo.js';
import { memoryFullText } from '../src/modules/memory/memory.repo.js';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR must name a folder seeded by bench/seed-store.ts (SQLite)');
const questions = Number(process.argv[2] ?? 5_000);
const rounds = Number(process.env.ROUNDS ?? 5);

const db = new Database(path.join(dataDir, 'hearth.db'), { readonly: true });
const passageRows = db.prepare('SELECT id, title, heading_path, content FROM kb_passages ORDER BY id').all() as Array<Record<string, unknown>>;
const noteRows = db.prepare('SELECT id, content FROM memory_entries WHERE superseded_at IS NULL ORDER BY id').all() as Array<Record<string, unknown>>;
db.close();
// As the server indexes them.
const passageIndex = PASSAGE_INDEX;
const noteIndex = memoryFullText('sqlite');
const passageTexts = passageRows.map((row) => String(row.content));
const noteTexts = noteRows.map((row) => String(row.content));
const asked = Array.from({ length: questions }, (_, k) => ownerQuestion(k));

interface Version {
  name: string;
  parts: Record<string, (k: number) => unknown>;
}

async function load(root: string, name: string): Promise<Version> {
  const from = (file: string) => import(pathToFileURL(path.join(root, 'src/storage/search', file)).href);
  const { buildOwnerIndex } = await from('owner-index.ts');
  const { rankInIndex } = await from('ranker.ts');
  const { searchTerms } = await from('tokenizer.ts');
  const { markWords, queryStems } = await from('marks.ts');
  const passages = buildOwnerIndex(passageRows, passageIndex, [], 1);
  const notes = buildOwnerIndex(noteRows, noteIndex, [], 1);
  const all = () => true;
  const terms = asked.map((q) => searchTerms(q));
  // Copied: a checkout may answer one shared array for the last query asked.
  const stems = asked.map((q) => [...queryStems(q)]);
  const marked = (texts: string[], k: number) => Array.from({ length: 10 }, (_, i) => markWords(texts[(k * 10 + i) * 7_919 % texts.length]!, stems[k]!));
  return {
    name,
    parts: {
      'rank notes (top 20)': (k) => rankInIndex(notes, terms[k], 'any', 20, all)!.map((hit: { id: string; rank: number }) => [hit.id, hit.rank]),
      'rank passages (top 10)': (k) => rankInIndex(passages, terms[k], 'any', 10, all)!.map((hit: { id: string; rank: number }) => [hit.id, hit.rank]),
      'mark 10 passages': (k) => marked(passageTexts, k),
      'mark 10 notes': (k) => marked(noteTexts, k),
    },
  };
}

const versions = [await load(path.resolve(import.meta.dirname, '..'), 'this checkout')];
if (process.env.COMPARE) versions.push(await load(path.resolve(process.env.COMPARE), process.env.COMPARE));

for (const part of Object.keys(versions[0]!.parts)) {
  if (versions.length > 1) {
    for (let k = 0; k < questions; k++) {
      const [a, b] = versions.map((v) => JSON.stringify(v.parts[part]!(k)));
      if (a !== b) throw new Error(`${part}: the two checkouts answer "${asked[k]}" differently`);
    }
  }
  const times = versions.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? versions.map((_, i) => i) : versions.map((_, i) => versions.length - 1 - i);
    for (const i of order) {
      const run = versions[i]!.parts[part]!;
      const cpu = process.cpuUsage();
      for (let k = 0; k < questions; k++) run(k);
      const used = process.cpuUsage(cpu);
      times[i]!.push((used.user + used.system) / questions);
    }
  }
  for (const [i, version] of versions.entries()) {
    const sorted = [...times[i]!].sort((x, y) => x - y);
    console.log(`${part}, ${version.name}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} µs a question (rounds ${times[i]!.map((t) => t.toFixed(1)).join(', ')})`);
  }
}
