/**
 * The LoCoMo long-conversation benchmark (Maharana et al., 2024) read into what the retrieval
 * benches store and ask: one memory entry per turn, written as
 * `[<session date and time>] <speaker>: <text> [shares a photo: <caption>]`, and the questions of
 * categories 1 to 4 with at least one evidence turn. The data is not part of this repository.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface LocomoOptions {
  /** Leave the session's date out of each turn. */
  noDate?: boolean;
  /** Leave a shared photo's caption out of each turn. */
  noCaption?: boolean;
}

export const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Question {
  question: string;
  evidence?: string[];
  category: number;
}
export interface Conversation {
  name: string;
  turns: { diaId: string; content: string }[];
  questions: { question: string; evidence: string[]; category: number }[];
}

/** "D:11:26", "D30:05", "D8:6; D9:17": the benchmark's few misspelt evidence ids, read as the turn ids they mean. */
function evidenceIds(evidence: string[] | undefined): string[] {
  const ids = new Set<string>();
  for (const m of (evidence ?? []).join(' ').matchAll(/D:?(\d+):0*(\d+)/g)) ids.add(`D${m[1]}:${m[2]}`);
  return [...ids];
}

function readConversation(name: string, conversation: Record<string, unknown>, qa: Question[], { noDate, noCaption }: LocomoOptions): Conversation {
  const turns: Conversation['turns'] = [];
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conversation[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  for (const s of sessions) {
    const date = conversation[`session_${s}_date_time`] as string | undefined;
    for (const turn of conversation[`session_${s}`] as Turn[]) {
      let content = `${turn.speaker}: ${turn.text}`;
      if (!noDate && date) content = `[${date}] ${content}`;
      if (!noCaption && turn.blip_caption) content += ` [shares a photo: ${turn.blip_caption}]`;
      turns.push({ diaId: turn.dia_id, content });
    }
  }
  const questions = qa
    .filter((q) => q.category !== 5)
    .map((q) => ({ question: String(q.question), evidence: evidenceIds(q.evidence), category: q.category }))
    .filter((q) => q.evidence.length > 0);
  return { name, turns, questions };
}

/** `file`: the benchmark's `locomo10.json`, or a folder of its per-conversation JSON files. */
export function loadLocomo(file: string, options: LocomoOptions = {}): Conversation[] {
  if (statSync(file).isDirectory()) {
    return readdirSync(file)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => {
        const raw = JSON.parse(readFileSync(path.join(file, f), 'utf8')) as Record<string, unknown>;
        return readConversation(path.basename(f, '.json'), raw, raw.qa as Question[], options);
      });
  }
  const samples = JSON.parse(readFileSync(file, 'utf8')) as { sample_id?: string; conversation: Record<string, unknown>; qa: Question[] }[];
  return samples.map((s, i) => readConversation(s.sample_id ?? `conversation-${i + 1}`, s.conversation, s.qa, options));
}

