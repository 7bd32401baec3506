/**
 * The data set of issues 11 and 33, generated from a fixed seed so every run searches the same
 * store: 10,000 memory entries written as an owner writes notes (notes.ts), 100 knowledge-base
 * documents of 4 KB made of such notes under headings, and 10,000 skills where one in 100
 * carries a rare word and each of 14 common words appears in about a third of the skills.
 */
import { sameTextForm } from '../../src/lib/same-text.js';
import { noteDocument, ownerNote } from './notes.js';

export const MEMORY_ENTRIES = 10_000;
export const DOCUMENTS = 100;
export const DOCUMENT_BYTES = 4 * 1024;
export const SKILLS = 10_000;

/** In one skill out of RARE_EVERY, nowhere else: the search for it ranks about 100 matches. */
export const RARE_WORD = 'zanzibarite';
const RARE_EVERY = 100;

/**
 * Each is put in a skill's description with probability 1/3, so a query of three of them
 * matches about 1/27 of the skills (some 370) and every one of its words about 3,300. All have
 * eight letters, and every prefix of five or more letters is one both engines' English stemmers
 * (Porter in SQLite's FTS5, Snowball in PostgreSQL) keep a prefix of the word's stem: a query
 * of prefixes matches the same skills on both engines.
 */
export const COMMON_WORDS = [
  'calendar', 'contract', 'notebook', 'password', 'document', 'keyboard', 'database',
  'firewall', 'backpack', 'marathon', 'umbrella', 'triangle', 'mountain', 'computer',
] as const;
const COMMON_SHARE = 1 / 3;
const MIN_PREFIX = 5;

// Ordinary words around the common ones; any sharing a common word's five-letter prefix is
// left out, so that a prefix query matches exactly the skills carrying that common word.
const FILLER = `
  email invoice report summary weather travel budget recipe workout meeting notes review
  translate draft outline research citation chart table spreadsheet python shell script deploy
  backup restore monitor alert incident ticket customer support sales lead pipeline forecast
  payroll expense receipt audit compliance policy privacy security token vault secret rotate
  schedule reminder task project roadmap sprint backlog release changelog version test coverage
  lint format refactor debug profile cache index query search filter sort merge split parse
  extract convert compress image video audio podcast transcript caption subtitle slide deck pitch
  proposal grant essay poem story novel chapter editor proofread grammar style tone voice persona
  prompt agent tool plugin webhook endpoint schema migration cluster container server network
  domain certificate mail newsletter campaign social post thread comment reply moderation spam
  feedback survey poll vote rating score rank recommend playlist music movie book library museum
  garden plant water harvest kitchen grocery shopping order shipping delivery return refund
  warranty repair maintenance bike route hiking camping flight hotel booking visa passport
  currency exchange stock portfolio retirement savings loan mortgage insurance health doctor
  appointment medicine sleep habit journal gratitude meditation focus timer inbox archive label
  folder
`
  .trim()
  .split(/\s+/)
  .filter((word) => !COMMON_WORDS.some((common) => word.startsWith(common.slice(0, MIN_PREFIX))));

/** mulberry32: a small seeded generator, so the catalogue is the same on every run. */
function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SkillBody {
  name: string;
  description: string;
  category: string;
  scriptContent: string;
}

/** The 10,000 skills, in creation order. */
export function skillCatalogue(): SkillBody[] {
  const random = seededRandom(42);
  const filler = () => FILLER[Math.floor(random() * FILLER.length)]!;
  return Array.from({ length: SKILLS }, (_, i) => {
    const words = [...Array.from({ length: 6 }, filler), ...COMMON_WORDS.filter(() => random() < COMMON_SHARE)];
    if (i % RARE_EVERY === RARE_EVERY / 2) words.push(RARE_WORD);
    // Shuffled, so the common words are not always at the end of the text.
    for (let k = words.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [words[k], words[j]] = [words[j]!, words[k]!];
    }
    const description = `Helps with ${words.join(' ')}`;
    return {
      name: `${filler()}-${filler()}-${String(i).padStart(5, '0')}`,
      description,
      category: filler(),
      scriptContent: `---\nlicense: MIT\n---\n# Skill ${i}\n\n${description}.\n\n1. Read the request.\n2. Do the work.\n3. Report back.\n`,
    };
  });
}

/** How many of the skills each common word is in, as a share: printed with the results. */
export function commonWordShares(skills: SkillBody[]): number[] {
  return COMMON_WORDS.map((word) => skills.filter((s) => s.description.split(' ').includes(word)).length / skills.length);
}

let memoryNotes: string[] | undefined;

/**
 * The owner's i-th note. The generator repeats itself now and then (61 of 10,000 notes say what
 * an earlier one said), and a repeat would be answered as a duplicate, not stored
 * (docs/decisions/memory.md): a repeat is told apart by its number, so the store holds exactly
 * MEMORY_ENTRIES entries.
 */
export function memoryContent(i: number): string {
  if (!memoryNotes) {
    const seen = new Set<string>();
    memoryNotes = Array.from({ length: MEMORY_ENTRIES }, (_, k) => {
      const note = ownerNote(k);
      const form = sameTextForm(note);
      if (!seen.has(form)) {
        seen.add(form);
        return note;
      }
      return `${note} (note ${k})`;
    });
  }
  return memoryNotes[i] ?? ownerNote(i);
}

export function documentContent(i: number): string {
  return noteDocument(i, DOCUMENT_BYTES);
}

// Three of the 14 words (364 choices), in one of 6 orders, each cut to one of 4 prefix lengths
// (5 to 8 letters, 64 choices): 139,776 different queries that all mean "these three words".
const TRIPLES = COMMON_WORDS.flatMap((a, i) => COMMON_WORDS.slice(i + 1).flatMap((b, j) => COMMON_WORDS.slice(i + j + 2).map((c) => [a, b, c] as const)));
const ORDERS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] as const;
const PREFIX_CHOICES = 8 - MIN_PREFIX + 1;
export const DISTINCT_COMMON_QUERIES = TRIPLES.length * ORDERS.length * PREFIX_CHOICES ** 3;
// Coprime with DISTINCT_COMMON_QUERIES (2^9 · 3 · 7 · 13): k ↦ k · STRIDE mod N visits every
// query once before any comes back, in an order that jumps between word triples.
const STRIDE = 7_919;

/**
 * The k-th query of three common words: no two of the first 139,776 are the same string, so a
 * cache keyed on the query never answers one of them. The triple, order and prefix lengths
 * are read off the number's digits in mixed radix.
 */
export function commonQuery(k: number): string {
  let n = (k * STRIDE) % DISTINCT_COMMON_QUERIES;
  const cuts = [0, 1, 2].map(() => {
    const cut = MIN_PREFIX + (n % PREFIX_CHOICES);
    n = Math.floor(n / PREFIX_CHOICES);
    return cut;
  });
  const order = ORDERS[n % ORDERS.length]!;
  const triple = TRIPLES[Math.floor(n / ORDERS.length)]!;
  return order.map((from, at) => triple[from]!.slice(0, cuts[at])).join(' ');
}
