/**
 * The labelled retrieval set of bench/recall/ (described in its README): read, checked, and
 * measured for word overlap. The checks run before every `bench:recall`, so a label that
 * points at nothing, a passage that is not in its document, or a low-overlap question that
 * shares more than one content word with its note fails the run instead of skewing the table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { porterStem } from '../../src/storage/search/stemmer.js';
import { PROJECT_ROOT } from './processes.js';

export const RECALL_DIR = path.join(PROJECT_ROOT, 'bench/recall');

export interface Note {
  id: string;
  topic?: string;
  content: string;
}
export interface NoteQuestion {
  id: string;
  kind: 'exact' | 'paraphrase';
  question: string;
  answers: string[];
}
export interface KnowledgeDocument {
  id: string;
  title: string;
  content: string;
}
export interface DocumentQuestion {
  id: string;
  kind: 'exact' | 'paraphrase';
  question: string;
  /** The document, and a substring of it that lies inside the passage that answers. */
  answers: { document: string; passage: string }[];
}

export interface RecallSet {
  notes: Note[];
  questions: NoteQuestion[];
  documents: KnowledgeDocument[];
  documentQuestions: DocumentQuestion[];
  lowOverlapNotes: Note[];
  lowOverlapQuestions: NoteQuestion[];
}

function jsonl<T>(file: string): T[] {
  return readFileSync(path.join(RECALL_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as T;
      } catch (err) {
        throw new Error(`${file}:${i + 1}: ${String(err)}`);
      }
    });
}

export function loadRecallSet(): RecallSet {
  return {
    notes: jsonl('notes.jsonl'),
    questions: jsonl('questions.jsonl'),
    documents: jsonl('documents.jsonl'),
    documentQuestions: jsonl('document-questions.jsonl'),
    lowOverlapNotes: jsonl('low-overlap-notes.jsonl'),
    lowOverlapQuestions: jsonl('low-overlap-questions.jsonl'),
  };
}

/**
 * English function words, question words included: what is left of a question after them is
 * what it asks about. Deliberately broad, so that "shares at most one content word" is a
 * claim about words that carry meaning.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing done down during each few for from further had has have having he her here hers herself him himself his how i ' +
    'if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own ' +
    'same she should so some such than that the their theirs them themselves then there these they this those through to too under until ' +
    'up very was we were what when where which while who whom whose why will with would you your yours yourself yourselves ' +
    'get got go goes going let lets like may might must shall us also ever anyone anything someone something ' +
    "s t d ll m re ve don didn doesn isn aren wasn weren can't cannot i'm i've i'd we're we've it's"
  ).split(/\s+/),
);

/** The stemmed content words of a text: lower-cased, split on anything but letters and digits, stop words dropped. */
export function contentStems(text: string): Set<string> {
  const stems = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    stems.add(porterStem(word));
  }
  return stems;
}

export function sharedStems(a: string, b: string): string[] {
  const bs = contentStems(b);
  return [...contentStems(a)].filter((s) => bs.has(s));
}

/** The most content words a low-overlap question may share with its note. */
export const LOW_OVERLAP_MAX_SHARED = 1;

export interface OverlapSummary {
  set: string;
  kind: string;
  questions: number;
  /** How many questions share 0, 1, 2, 3+ content words with the best-overlapping labelled note. */
  histogram: [number, number, number, number];
  mean: number;
}

function overlapOf(questions: NoteQuestion[], notes: Map<string, Note>): number[] {
  return questions.map((q) => Math.max(...q.answers.map((id) => sharedStems(q.question, notes.get(id)!.content).length)));
}

export function overlapSummary(set: string, kind: string, questions: NoteQuestion[], notes: Note[]): OverlapSummary {
  const byId = new Map(notes.map((n) => [n.id, n]));
  const counts = overlapOf(questions, byId);
  const histogram: [number, number, number, number] = [0, 0, 0, 0];
  for (const c of counts) histogram[Math.min(c, 3)]!++;
  return { set, kind, questions: counts.length, histogram, mean: counts.reduce((s, c) => s + c, 0) / Math.max(1, counts.length) };
}

/** Every problem with the set's labels; empty when it is sound. */
export function checkRecallSet(data: RecallSet): string[] {
  const problems: string[] = [];
  const unique = (what: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) problems.push(`${what}: id ${id} appears twice`);
      seen.add(id);
    }
  };
  unique('notes', data.notes.map((n) => n.id));
  unique('questions', data.questions.map((q) => q.id));
  unique('documents', data.documents.map((d) => d.id));
  unique('document questions', data.documentQuestions.map((q) => q.id));
  unique('low-overlap notes', data.lowOverlapNotes.map((n) => n.id));
  unique('low-overlap questions', data.lowOverlapQuestions.map((q) => q.id));

  const checkQuestions = (what: string, questions: NoteQuestion[], notes: Note[]) => {
    const ids = new Set(notes.map((n) => n.id));
    for (const q of questions) {
      if (q.kind !== 'exact' && q.kind !== 'paraphrase') problems.push(`${what} ${q.id}: kind "${String(q.kind)}"`);
      if (q.answers.length === 0) problems.push(`${what} ${q.id}: no answer`);
      for (const a of q.answers) if (!ids.has(a)) problems.push(`${what} ${q.id}: answer ${a} is not a note`);
      if (q.question.length > 500) problems.push(`${what} ${q.id}: longer than the 500 characters q takes`);
    }
  };
  checkQuestions('question', data.questions, data.notes);
  checkQuestions('low-overlap question', data.lowOverlapQuestions, data.lowOverlapNotes);

  const docs = new Map(data.documents.map((d) => [d.id, d]));
  for (const q of data.documentQuestions) {
    for (const a of q.answers) {
      const doc = docs.get(a.document);
      if (!doc) problems.push(`document question ${q.id}: ${a.document} is not a document`);
      else if (doc.content.split(a.passage).length !== 2) problems.push(`document question ${q.id}: "${a.passage}" is not once in ${a.document}`);
    }
  }

  const notes = new Map(data.lowOverlapNotes.map((n) => [n.id, n]));
  for (const q of data.lowOverlapQuestions) {
    for (const a of q.answers) {
      const shared = sharedStems(q.question, notes.get(a)?.content ?? '');
      if (shared.length > LOW_OVERLAP_MAX_SHARED) problems.push(`low-overlap question ${q.id} shares ${shared.length} content words with ${a}: ${shared.join(', ')}`);
    }
  }
  return problems;
}

export function renderOverlap(rows: OverlapSummary[]): string {
  return [
    '| set | kind | questions | share 0 | share 1 | share 2 | share 3+ | mean shared |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.set} | ${r.kind} | ${r.questions} | ${r.histogram.join(' | ')} | ${r.mean.toFixed(2)} |`),
  ].join('\n');
}
