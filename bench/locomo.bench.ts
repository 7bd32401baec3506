/**
 * `npm run bench:locomo -- <path> [--mode words|meaning|fused] [--env KEY=VALUE] [--no-date] [--no-caption] [--conversations n]`:
 * recall of Hearth's memory search on the LoCoMo long-conversation benchmark (Maharana et al.,
 * 2024: ten conversations between two people over many sessions, with questions whose answering
 * turns are labelled). The data has its own licence and is not part of this repository: <path>
 * is the benchmark's `locomo10.json` (an array of samples, each with `conversation` and `qa`),
 * or a folder of its per-conversation JSON files (each with the sessions and `qa` at the top).
 *
 * Each conversation gets an owner of its own. Every turn becomes one memory entry through
 * `POST /api/v1/memory`, written as
 *
 *     [<session date and time>] <speaker>: <text> [shares a photo: <caption>]
 *
 * The date, because a memory of a conversation carries when it was said and a third of the
 * questions ask "when"; the photo's caption, because a turn that shares a photo is about what
 * it shows and some answers are only there. `--no-date` and `--no-caption` leave them out. The
 * format is the same in every mode.
 *
 * The questions are those with a category other than 5 (the adversarial ones, whose answer is
 * not in the conversation) and with at least one evidence turn: 1,536 of them over 5,882 turns.
 * Each is asked as it is through `GET /api/v1/memory?q=<question>&limit=10`. A question is
 * found when one of its evidence turns is in the answer; printed: empty answers, hit@1/3/5/10,
 * and MRR over the ten, for all questions and per category (1 multi-hop, 2 temporal,
 * 3 open-domain, 4 single-hop, as the benchmark numbers them).
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
} from './lib/recall.js';
import { CATEGORY_NAMES, loadLocomo } from './lib/locomo.js';

const WRITE_CONCURRENCY = 32;
const SEARCH_CONCURRENCY = 8;

const args = process.argv.slice(2);
const noDate = args.includes('--no-date');
const noCaption = args.includes('--no-caption');
// `--conversations n`: the first n conversations only (a fused run embeds every turn first, long on a small machine).
const limitAt = args.indexOf('--conversations');
const conversationLimit = limitAt >= 0 ? Number(args[limitAt + 1]) : Infinity;
if (!(conversationLimit >= 1)) {
  console.error('--conversations takes a number of conversations, 1 or more');
  process.exit(2);
}
const options = parseArguments(args.filter((a, i) => a !== '--no-date' && a !== '--no-caption' && i !== limitAt && (limitAt < 0 || i !== limitAt + 1)));
const source = options.rest[0];
if (!source) {
  console.error('usage: npm run bench:locomo -- <locomo10.json or its folder of conversations> [--mode words|meaning|fused] [--no-date] [--no-caption]');
  process.exit(2);
}

const conversations = loadLocomo(source, { noDate, noCaption }).slice(0, conversationLimit);
const turnCount = conversations.reduce((n, c) => n + c.turns.length, 0);
const questionCount = conversations.reduce((n, c) => n + c.questions.length, 0);
console.log(`LoCoMo: ${conversations.length} conversations, ${turnCount} turns, ${questionCount} questions (category 5 and those without evidence left out)`);
console.log(`mode ${options.mode}; content: ${noDate ? 'no date' : 'session date'}, ${noCaption ? 'no caption' : 'photo captions'}`);

const running = await startRecallServer(options);
const { baseUrl } = running.server;
console.log(`server settings: ${Object.entries(running.settings).filter(([k]) => !k.includes('KEY')).map(([k, v]) => `${k}=${v}`).join(' ')}`);
const outcomes: Outcome[] = [];
let writeSeconds = 0;
let searchSeconds = 0;
let lastStatus: Awaited<ReturnType<typeof searchStatus>>;
try {
  for (const conv of conversations) {
    const token = await newOwner(baseUrl, `locomo-${conv.name}`);
    let t = performance.now();
    const created = await inParallel(conv.turns.length, WRITE_CONCURRENCY, (i) =>
      api<{ data: { id: string } }>(baseUrl, 'POST', '/api/v1/memory', { content: conv.turns[i]!.content }, token),
    );
    writeSeconds += (performance.now() - t) / 1000;
    const entryOfTurn = new Map(conv.turns.map((turn, i) => [turn.diaId, String(created[i]!.data.id)]));
    lastStatus = await waitForIndexing(baseUrl, token);
    t = performance.now();
    const found = await inParallel(conv.questions.length, SEARCH_CONCURRENCY, async (i) => {
      const q = conv.questions[i]!;
      const ids = await searchIds(baseUrl, token, `/api/v1/memory?q=${encodeURIComponent(q.question.slice(0, 500))}&limit=10`, options);
      const right = new Set(q.evidence.map((d) => entryOfTurn.get(d)).filter((id): id is string => id !== undefined));
      return { answered: ids.length, rank: rankOf(ids, right), category: q.category };
    });
    searchSeconds += (performance.now() - t) / 1000;
    for (const f of found) {
      outcomes.push({ group: 'LoCoMo', kind: 'all', answered: f.answered, rank: f.rank });
      outcomes.push({ group: 'LoCoMo by category', kind: `${f.category} ${CATEGORY_NAMES[f.category] ?? ''}`.trim(), answered: f.answered, rank: f.rank });
    }
    process.stdout.write(`  ${conv.name}: ${conv.turns.length} turns, ${conv.questions.length} questions\n`);
  }
  console.log(describeStatus(lastStatus, options.mode));
  console.log(`writes: ${turnCount} in ${writeSeconds.toFixed(1)} s; searches: ${questionCount} in ${searchSeconds.toFixed(1)} s`);
  console.log('');
  console.log(renderScores(scoreAll(outcomes)));
} finally {
  await running.dispose();
}
