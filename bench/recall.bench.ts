/**
 * `npm run bench:recall -- [--mode words|meaning|fused] [--env KEY=VALUE] [--query-param k=v] [--check] [--misses]`:
 * how well Hearth's search finds what its owner wrote, on the labelled set of bench/recall/
 * (its README describes the data and how it was labelled).
 *
 * Hearth is compiled and started as `npm start` starts it, on a fresh SQLite store in a
 * temporary directory, with EMBEDDINGS=off for `words` and the caller's EMBEDDINGS (default
 * `builtin`) for `meaning` and `fused`. Then, through the public API only:
 *  - one owner gets the 401 notes (`POST /api/v1/memory`) and the 20 documents
 *    (`POST /api/v1/brain/knowledge-base`); a second owner gets the 65 low-overlap notes;
 *  - once `GET /api/v1/search/status` reports nothing pending (when the server has that route),
 *    every question is asked: notes through `GET /api/v1/memory?q=<question>&limit=10`,
 *    documents through `GET /api/v1/brain/knowledge-base?q=<question>&limit=10`, passages
 *    through `GET /api/v1/brain/knowledge-base/passages?q=<question>&limit=10` (what MCP's
 *    search_knowledge answers) and, when the server has it, through
 *    `GET /api/v1/search?q=<question>&types=knowledge&limit=10`.
 *
 * Printed per set and kind: empty answers, hit@1/3/5/10 and MRR over the ten. A note question
 * is found when a note it is labelled with is in the answer; a document question when its
 * document is; a passage question when a knowledge hit of its document carries the labelled
 * text. `--check` only checks the data and prints its word overlap; `--misses` lists the
 * questions not found in the top ten.
 */
import { api, inParallel } from './lib/http.js';
import {
  describeStatus,
  newOwner,
  parseArguments,
  rankOf,
  renderScores,
  scoreAll,
  searchIds,
  searchStatus,
  startRecallServer,
  waitForIndexing,
  type Outcome,
  type RunOptions,
} from './lib/recall.js';
import { checkRecallSet, loadRecallSet, overlapSummary, renderOverlap, type DocumentQuestion, type Note, type NoteQuestion } from './lib/recall-data.js';

const WRITE_CONCURRENCY = 16;
const SEARCH_CONCURRENCY = 8;

const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const showMisses = args.includes('--misses');
const options = parseArguments(args.filter((a) => a !== '--check' && a !== '--misses'));

const data = loadRecallSet();
const problems = checkRecallSet(data);
if (problems.length > 0) {
  console.error(`bench/recall has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `Recall set: ${data.notes.length} notes, ${data.questions.length} questions (${count(data.questions, 'exact')} exact, ${count(data.questions, 'paraphrase')} paraphrase); ` +
    `${data.documents.length} documents, ${data.documentQuestions.length} questions; low-overlap: ${data.lowOverlapNotes.length} notes, ${data.lowOverlapQuestions.length} questions`,
);
console.log('\nContent words (stemmed, stop words dropped) each question shares with its note:\n');
console.log(
  renderOverlap([
    overlapSummary('notes', 'exact', data.questions.filter((q) => q.kind === 'exact'), data.notes),
    overlapSummary('notes', 'paraphrase', data.questions.filter((q) => q.kind === 'paraphrase'), data.notes),
    overlapSummary('low-overlap', 'paraphrase', data.lowOverlapQuestions, data.lowOverlapNotes),
  ]),
);
if (checkOnly) process.exit(0);

function count(questions: { kind: string }[], kind: string): number {
  return questions.filter((q) => q.kind === kind).length;
}

interface Miss {
  set: string;
  question: string;
  expected: string;
  top: string;
}
const misses: Miss[] = [];

/** Stores notes for an owner, answering the server's id of each note id. */
async function storeNotes(baseUrl: string, token: string, notes: Note[]): Promise<Map<string, string>> {
  const created = await inParallel(notes.length, WRITE_CONCURRENCY, (i) =>
    api<{ data: { id: string | number } }>(baseUrl, 'POST', '/api/v1/memory', { content: notes[i]!.content }, token),
  );
  return new Map(notes.map((note, i) => [note.id, String(created[i]!.data.id)]));
}

async function askNotes(baseUrl: string, token: string, set: string, questions: NoteQuestion[], notes: Note[], ids: Map<string, string>, opts: RunOptions): Promise<Outcome[]> {
  const contentOf = new Map([...ids].map(([noteId, serverId]) => [serverId, notes.find((n) => n.id === noteId)!.content]));
  return inParallel(questions.length, SEARCH_CONCURRENCY, async (i) => {
    const q = questions[i]!;
    const answer = await searchIds(baseUrl, token, `/api/v1/memory?q=${encodeURIComponent(q.question)}&limit=10`, opts);
    const rank = rankOf(answer, new Set(q.answers.map((a) => ids.get(a)!)));
    if (rank === 0) {
      misses.push({
        set: `${set}/${q.kind}`,
        question: q.question,
        expected: q.answers.map((a) => notes.find((n) => n.id === a)!.content.slice(0, 80)).join(' | '),
        top: answer.length === 0 ? '(empty)' : (contentOf.get(answer[0]!) ?? answer[0]!).slice(0, 80),
      });
    }
    return { group: set, kind: q.kind, answered: answer.length, rank };
  });
}

interface KnowledgeHit {
  id?: string | number;
  type?: string;
  documentId?: string | number;
  document?: { id?: string | number };
  text?: string;
  passage?: string | { text?: string };
  excerpt?: string;
  snippet?: string;
}

/** A knowledge hit's document id and text, whichever of the likely names the server uses for them. */
function readHit(hit: KnowledgeHit): { document: string; text: string } {
  const document = String(hit.documentId ?? hit.document?.id ?? hit.id);
  const passage = typeof hit.passage === 'string' ? hit.passage : hit.passage?.text;
  return { document, text: hit.text ?? passage ?? hit.snippet ?? hit.excerpt ?? '' };
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Whether the server answers this search path (an older one may not have it). */
async function answers(baseUrl: string, token: string, url: string): Promise<boolean> {
  const probe = await fetch(`${baseUrl}${url}`, { headers: { authorization: `Bearer ${token}` } });
  await probe.arrayBuffer();
  if (!probe.ok) console.log(`GET ${url.split('?')[0]} answered ${probe.status}: not scored`);
  return probe.ok;
}

async function askDocuments(baseUrl: string, token: string, questions: DocumentQuestion[], docIds: Map<string, string>, opts: RunOptions): Promise<Outcome[]> {
  const extra = Object.entries(opts.queryParams).map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('');
  // Passages, as the knowledge base answers them (its passages route, MCP's search_knowledge)
  // and, when the server has it, as the one search for agents answers its knowledge hits.
  const passageRoutes = [
    { group: 'passages', url: (q: string) => `/api/v1/brain/knowledge-base/passages?q=${encodeURIComponent(q)}&limit=10${extra}` },
    { group: 'search passages', url: (q: string) => `/api/v1/search?q=${encodeURIComponent(q)}&types=knowledge&limit=10${extra}` },
  ];
  const served: typeof passageRoutes = [];
  for (const route of passageRoutes) if (await answers(baseUrl, token, route.url('probe'))) served.push(route);
  const results = await inParallel(questions.length, SEARCH_CONCURRENCY, async (i) => {
    const q = questions[i]!;
    const right = new Set(q.answers.map((a) => docIds.get(a.document)!));
    const docs = await searchIds(baseUrl, token, `/api/v1/brain/knowledge-base?q=${encodeURIComponent(q.question)}&limit=10`, opts);
    const outcomes: Outcome[] = [{ group: 'documents', kind: q.kind, answered: docs.length, rank: rankOf(docs, right) }];
    for (const route of served) {
      const res = await api<{ data: KnowledgeHit[] }>(baseUrl, 'GET', route.url(q.question), undefined, token);
      const hits = res.data.filter((h) => h.type === undefined || h.type === 'knowledge').map(readHit);
      const at = hits.findIndex((h) => q.answers.some((a) => h.document === docIds.get(a.document) && squash(h.text).includes(squash(a.passage))));
      outcomes.push({ group: route.group, kind: q.kind, answered: hits.length, rank: at + 1 });
    }
    return outcomes;
  });
  return results.flat();
}

/**
 * Whether the server answers by meaning alone with the run's query parameters: a note's own text
 * asked through the one search must come back matched by meaning only (no hit matched by words).
 */
async function ranksByMeaningOnly(baseUrl: string, token: string, text: string, opts: RunOptions): Promise<boolean> {
  const extra = Object.entries(opts.queryParams).map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('');
  const res = await fetch(`${baseUrl}/api/v1/search?q=${encodeURIComponent(text.slice(0, 500))}&types=memory&limit=10${extra}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) return false;
  const body = (await res.json()) as { data: Array<{ matched?: string }> };
  return body.data.length > 0 && body.data.every((hit) => hit.matched === 'meaning');
}

const started = performance.now();
const running = await startRecallServer(options);
const { baseUrl } = running.server;
console.log(`\nmode ${options.mode}; server settings: ${Object.entries(running.settings).filter(([k]) => !k.includes('KEY')).map(([k, v]) => `${k}=${v}`).join(' ')}`);
try {
  const owner = await newOwner(baseUrl, 'recall-owner');
  const other = await newOwner(baseUrl, 'recall-low-overlap');
  const noteIds = await storeNotes(baseUrl, owner, data.notes);
  const docs = await inParallel(data.documents.length, WRITE_CONCURRENCY, (i) =>
    api<{ data: { id: string | number } }>(baseUrl, 'POST', '/api/v1/brain/knowledge-base', { title: data.documents[i]!.title, content: data.documents[i]!.content }, owner),
  );
  const docIds = new Map(data.documents.map((d, i) => [d.id, String(docs[i]!.data.id)]));
  const lowIds = await storeNotes(baseUrl, other, data.lowOverlapNotes);
  await waitForIndexing(baseUrl, owner);
  const status = await waitForIndexing(baseUrl, other);

  if (options.mode === 'meaning' && !(await ranksByMeaningOnly(baseUrl, owner, data.notes[0]!.content, options))) {
    throw new Error(
      'meaning-only: the server ignored the meaning-only parameter (a hit of a note\'s own words came back matched by words), so this run would measure fused ranking. ' +
        'Meaning alone is measured in one process by `npx tsx bench/recall.fusion.ts`; pass --query-param to name the server\'s parameter if it has one',
    );
  }
  const outcomes = [
    ...(await askNotes(baseUrl, owner, 'notes', data.questions, data.notes, noteIds, options)),
    ...(await askNotes(baseUrl, other, 'low-overlap', data.lowOverlapQuestions, data.lowOverlapNotes, lowIds, options)),
    ...(await askDocuments(baseUrl, owner, data.documentQuestions, docIds, options)),
  ];
  console.log(describeStatus(status ?? (await searchStatus(baseUrl, owner)), options.mode));
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(renderScores(scoreAll(outcomes)));
  if (showMisses) {
    console.log(`\nNot in the top ten (${misses.length}):`);
    for (const m of misses.sort((a, b) => a.set.localeCompare(b.set))) console.log(`- [${m.set}] ${m.question}\n    expected: ${m.expected}\n    first:    ${m.top}`);
  }
} finally {
  await running.dispose();
}
