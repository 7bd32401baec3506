import { queryTerms } from '../../storage/search/tokenizer.js';

/**
 * How a chat prompt is put together, as pure functions (no storage, no network).
 *
 * The context budget (CHAT_CONTEXT_TOKENS, 6,000 by default) covers everything Hearth adds
 * around the owner's message; the message itself is always sent whole. It is spent in this
 * order, each part up to its share, and whatever a part leaves unused passes on to the next:
 *   1. the active persona's soul_content   up to 30 %
 *   2. the documents attached to it         up to 20 % (in attachment order)
 *   3. knowledge-base passages              up to 20 % (best first, at most 8)
 *   4. memory entries                       up to 10 % (a few of the pinned profile, at most
 *                                           half of it, then those relevant to the message)
 *   5. the conversation's history           the rest  (newest first, whole messages)
 * A part that does not fit is cut at a word boundary and marked "[…]"; history keeps the most
 * recent contiguous messages and drops older ones.
 * Every document and memory entry the prompt quotes is a source, numbered [1], [2]… in the order
 * of `sources`, so that the model can cite what it used and the reader can follow the number.
 * The short note asking the model to cite them is paid for from history's part.
 * Tokens are estimated, not counted: a quarter token per ASCII character, one per other
 * character (close to what BPE tokenizers do for English and for CJK text, and on the safe side
 * for most others).
 */

export const DEFAULT_CONTEXT_TOKENS = 6_000;
export const SHARES = { persona: 0.3, documents: 0.2, passages: 0.2, memory: 0.1 } as const;
/** At most this many passages enter a prompt; a retrieval answer quotes at most RETRIEVAL_PASSAGES. */
export const MAX_PASSAGES = 8;
export const RETRIEVAL_PASSAGES = 3;
/** Memory entries a retrieval answer quotes at most (the best matches of the message). */
export const RETRIEVAL_MEMORY = 3;
/** Pinned profile entries a prompt carries at most: they describe the owner whatever the message. */
export const PROFILE_ENTRIES = 5;
/** Memory entries relevant to the message a prompt is offered (the budget decides how many fit). */
export const MEMORY_MATCHES = 10;

const TRUNCATED = ' […]';

export const DEFAULT_SYSTEM_PROMPT =
  "You are the personal assistant of this Hearth account's owner. No persona is active, so answer plainly and helpfully.";

export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) ascii++;
    // A surrogate pair is one character.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/** The longest start of `text` that fits `tokens`, cut at a word boundary, marked when cut. */
export function truncateToTokens(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  const room = tokens - estimateTokens(TRUNCATED);
  if (room <= 0) return '';
  // Binary search on the length, since the estimate is not linear in characters.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(text.slice(0, mid)) <= room) low = mid;
    else high = mid - 1;
  }
  let end = low;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const space = text.slice(0, end).search(/\s\S*$/);
  if (space > end * 0.6) end = space;
  const head = text.slice(0, end).trimEnd();
  return head === '' ? '' : head + TRUNCATED;
}

// Words too common to say what a message is about (English). Only used to choose what to search
// for and how to score passages; a message of nothing but these is searched as it is.
const STOPWORDS = new Set(
  (
    'a about above after again all am an and any are as at be because been before being below between both but by can could did do does ' +
    'doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its ' +
    'itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so ' +
    'some such than that the their theirs them themselves then there these they this those through to too under until up very was we ' +
    "were what when where which while who whom why will with would you your yours yourself yourselves tell please know want need " +
    'let lets get give show find hi hello thanks thank'
  ).split(' '),
);

/** The words of a message worth searching for: its query terms without stop words (or all of them, if nothing else is left). */
export function contentTerms(message: string): string[] {
  const terms = queryTerms(message).filter((t) => t.length > 1 || /\p{N}/u.test(t));
  const content = terms.filter((t) => !STOPWORDS.has(t));
  return content.length > 0 ? content : terms;
}

export interface RankableDocument {
  id: string;
  title: string;
  content: string;
}

/** A knowledge-base passage found for the message (the knowledge base's passage search). */
export interface Passage {
  documentId: string;
  title: string;
  text: string;
  score: number;
}

/** A memory entry offered to the prompt or the retrieval answer. */
export interface PromptMemory {
  id: string;
  content: string;
  created_at: string;
  /** Part of the owner's pinned profile. */
  pinned: boolean;
}

/** What a reply drew on, numbered by its place in the list (`[1]` is the first). */
export type PromptSource = { id: string; title: string; type: 'knowledge' } | { id: string; title: string; type: 'memory'; text: string };

/** How many characters of a memory entry its source carries (the schema's SOURCE_TEXT_MAX). */
const SOURCE_TEXT_CHARS = 280;

/** A memory entry as a source: its first words as the title, its text on one line, bounded. */
export function memorySource(entry: Pick<PromptMemory, 'id' | 'content'>): PromptSource {
  const flat = entry.content.replace(/\s+/g, ' ').trim();
  let text = flat;
  if (flat.length > SOURCE_TEXT_CHARS) {
    let end = SOURCE_TEXT_CHARS - 1;
    const code = flat.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    text = `${flat.slice(0, end).trimEnd()}…`;
  }
  return { id: entry.id, title: titleOf(entry.content), type: 'memory', text };
}

/**
 * The sources of one reply, numbered in the order they are first quoted; a document quoted twice
 * (its attachment, a passage) keeps its first number.
 */
class Sources {
  private readonly list: PromptSource[] = [];
  private readonly numbers = new Map<string, number>();

  /** The number `source` has, or would get if it were quoted next. */
  numberOf(source: Pick<PromptSource, 'type' | 'id'>): number {
    return this.numbers.get(`${source.type}:${source.id}`) ?? this.list.length + 1;
  }

  /** Quotes `source`: its number, given now unless it has one. */
  cite(source: PromptSource): number {
    const key = `${source.type}:${source.id}`;
    const known = this.numbers.get(key);
    if (known !== undefined) return known;
    this.list.push(source);
    this.numbers.set(key, this.list.length);
    return this.list.length;
  }

  has(type: PromptSource['type'], id: string): boolean {
    return this.numbers.has(`${type}:${id}`);
  }

  get all(): PromptSource[] {
    return [...this.list];
  }
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface PromptInput {
  message: string;
  persona: { soul_content: string } | null;
  /** In attachment order. */
  personaDocuments: RankableDocument[];
  /** Best first. */
  passages: Passage[];
  /** The pinned profile's entries first (in the owner's order), then those relevant to the message, best first. */
  memory: PromptMemory[];
  /** Newest first. */
  history: Array<{ role: 'user' | 'assistant'; content: string }>;
  budgetTokens: number;
}

export interface BuiltPrompt {
  messages: ChatMessage[];
  /** The documents and memory entries the prompt quotes, in the order it numbers them ([1] first). */
  sources: PromptSource[];
  /** Estimated tokens spent on each part (`citing`: the note asking the model to cite the sources). */
  spent: { persona: number; documents: number; passages: number; memory: number; citing: number; history: number };
}

/** What the model is asked, after the numbered sources, so that its reply says what it relied on. */
export const CITING_NOTE =
  'The documents, passages and memory entries above are numbered. When your answer relies on one, cite its number in square brackets, as in [1]; do not cite anything else.';

/** Builds the messages for the model within the budget; see the top of this file for the order. */
export function buildPrompt(input: PromptInput): BuiltPrompt {
  const budget = Math.max(0, input.budgetTokens);
  const spent = { persona: 0, documents: 0, passages: 0, memory: 0, citing: 0, history: 0 };
  const sources = new Sources();
  const sections: string[] = [];
  let carry = 0;
  /** Spends a part's share of the budget (and what the parts before it left) on it. */
  const take = (part: keyof typeof SHARES, fill: (room: number) => PromptPart) => {
    const room = Math.floor(budget * SHARES[part]) + carry;
    const { section, used } = fill(room);
    if (section !== undefined) sections.push(section);
    spent[part] = used;
    carry = room - used;
  };

  // 1. The persona.
  const soul = input.persona?.soul_content.trim() ? input.persona.soul_content : DEFAULT_SYSTEM_PROMPT;
  take('persona', (room) => {
    const personaText = truncateToTokens(soul, room);
    return { section: personaText, used: estimateTokens(personaText) };
  });
  // 2. The persona's documents; 3. knowledge-base passages, but for the documents quoted whole; 4. memory.
  const wholeDocuments = new Set<string>();
  take('documents', (room) => documentsPart(input.personaDocuments, room, sources, wholeDocuments));
  take('passages', (room) => passagesPart(input.passages, room, sources, wholeDocuments));
  take('memory', (room) => memoryPart(input.memory, room, sources));
  // The note on citing, when there is something to cite and room for it; paid from history's part.
  const cited = sources.all;
  const before = spent.persona + spent.documents + spent.passages + spent.memory;
  const noteCost = estimateTokens(CITING_NOTE) + 1;
  if (cited.length > 0 && budget - before >= noteCost) {
    sections.push(CITING_NOTE);
    spent.citing = noteCost;
  }
  // 5. History: the rest of the budget.
  const history = historyPart(input.history, budget - before - spent.citing);
  spent.history = history.used;

  return {
    messages: [{ role: 'system', content: sections.join('\n\n') }, ...history.messages, { role: 'user', content: input.message }],
    sources: cited,
    spent,
  };
}

/** One part of the system message: its text (none when nothing fits) and the tokens it spends. */
interface PromptPart {
  section: string | undefined;
  used: number;
}

/** The persona's documents, whole while they fit, the first that does not cut to fit. */
function documentsPart(documents: RankableDocument[], room: number, sources: Sources, wholeDocuments: Set<string>): PromptPart {
  const documentBlocks: string[] = [];
  let used = 0;
  const docHeading = '\n\n# Documents attached to this persona';
  for (const doc of documents) {
    const source = { id: doc.id, title: doc.title, type: 'knowledge' } as const;
    const heading = `## [${sources.numberOf(source)}] ${doc.title}`;
    const overhead = estimateTokens(`${documentBlocks.length === 0 ? docHeading : ''}\n\n${heading}\n`);
    const left = room - used - overhead;
    if (left < 20) break;
    const body = truncateToTokens(doc.content, left);
    if (!body) break;
    documentBlocks.push(`${heading}\n${body}`);
    used += overhead + estimateTokens(body);
    sources.cite(source);
    if (body === doc.content) wholeDocuments.add(doc.id);
    if (body !== doc.content) break;
  }
  const section = documentBlocks.length > 0 ? `# Documents attached to this persona\n\n${documentBlocks.join('\n\n')}` : undefined;
  return { section, used };
}

/** Knowledge-base passages, best first; one that does not fit is skipped for a shorter one. */
function passagesPart(passages: Passage[], room: number, sources: Sources, wholeDocuments: Set<string>): PromptPart {
  let used = 0;
  const passageBlocks: string[] = [];
  const passageHeading = "# Passages from the owner's knowledge base that may be relevant to the latest message\nUse them when they help.";
  for (const passage of passages) {
    if (wholeDocuments.has(passage.documentId)) continue; // already in the prompt whole
    // Passages of one document share its number: the number names the document.
    const source = { id: passage.documentId, title: passage.title, type: 'knowledge' } as const;
    const block = `[${sources.numberOf(source)}] ${passage.title}\n${passage.text}`;
    const cost = estimateTokens(block) + (passageBlocks.length === 0 ? estimateTokens(passageHeading) : 0) + 1;
    if (used + cost > room) continue;
    passageBlocks.push(block);
    used += cost;
    sources.cite(source);
  }
  const section = passageBlocks.length > 0 ? `${passageHeading}\n\n${passageBlocks.join('\n\n')}` : undefined;
  return { section, used };
}

/**
 * Memory: the pinned profile's entries first, within half of the room (they describe the owner,
 * but must not crowd out what the message is about), then the entries relevant to the message.
 * An entry that does not fit whole is cut; one that would leave too little is skipped for the next.
 */
function memoryPart(memory: PromptMemory[], room: number, sources: Sources): PromptPart {
  let used = 0;
  const memoryLines: string[] = [];
  const memoryHeading =
    "# From the owner's memory: their pinned profile (marked pinned), then notes relevant to the latest message\nTrust them about the owner; the newer of two that disagree holds.";
  for (const entry of memory) {
    if (sources.has('memory', entry.id)) continue;
    const source = memorySource(entry);
    const prefix = `[${sources.numberOf(source)}] (${entry.created_at.slice(0, 10)}${entry.pinned ? ', pinned' : ''}) `;
    const overhead = estimateTokens(prefix) + 1 + (memoryLines.length === 0 ? estimateTokens(memoryHeading) : 0);
    const limit = entry.pinned ? Math.floor(room / 2) : room;
    const left = limit - used - overhead;
    if (left < 10) continue;
    const text = truncateToTokens(entry.content.trim(), left);
    if (!text) continue;
    memoryLines.push(prefix + text);
    used += overhead + estimateTokens(text);
    sources.cite(source);
  }
  return { section: memoryLines.length > 0 ? `${memoryHeading}\n${memoryLines.join('\n')}` : undefined, used };
}

/** The history within `room`, the most recent messages first, without gaps; answered oldest first. */
function historyPart(messages: PromptInput['history'], room: number): { messages: ChatMessage[]; used: number } {
  let used = 0;
  const history: ChatMessage[] = [];
  for (const [i, message] of messages.entries()) {
    const cost = estimateTokens(message.content) + 4; // role and framing
    if (used + cost > room) {
      // The newest message alone is cut rather than dropped, so the model knows what it answers.
      if (i === 0 && room - used > 50) {
        const text = truncateToTokens(message.content, room - used - 4);
        history.push({ role: message.role, content: text });
        used += estimateTokens(text) + 4;
      }
      break;
    }
    history.push({ role: message.role, content: message.content });
    used += cost;
  }
  return { messages: history.reverse(), used };
}

/** What a retrieval answer quotes: passages and memory entries, each with its source's number. */
export interface RetrievalQuotes {
  passages: Array<Passage & { number: number }>;
  memory: Array<PromptMemory & { number: number }>;
}

/** How much of one memory entry a retrieval answer quotes. */
const RETRIEVAL_MEMORY_TOKENS = 300;

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line.trim() ? `> ${line}` : '>'))
    .join('\n');
}

/**
 * The answer without a language model: the best passages, quoted under their titles, and the
 * memory entries that best match the message, each with the number of its source, and a plain
 * statement that no model wrote it.
 */
export function retrievalReply(found: RetrievalQuotes): string {
  const notice =
    'No language model is configured on this server (its operator can set LLM_BASE_URL to an OpenAI-compatible endpoint), so no model wrote this answer: it quotes your knowledge base and memory instead.';
  const { passages, memory } = found;
  if (passages.length === 0 && memory.length === 0) {
    return `${notice}\n\nNothing in your knowledge base or memory matches your message. Add documents with POST /api/v1/brain/knowledge-base or notes with POST /api/v1/memory, or rephrase with the words they use.`;
  }
  const parts = [notice];
  if (passages.length > 0) {
    parts.push(passages.length === 1 ? 'The passage of your knowledge base that best matches your message:' : `The ${passages.length} passages of your knowledge base that best match your message:`);
    for (const p of passages) parts.push(`[${p.number}] **${p.title}**\n\n${quote(p.text)}`);
  } else {
    parts.push('Nothing in your knowledge base matches your message.');
  }
  if (memory.length > 0) {
    parts.push(memory.length === 1 ? 'From your memory:' : `From your memory, the ${memory.length} notes that best match:`);
    for (const m of memory) {
      parts.push(`[${m.number}] Noted ${m.created_at.slice(0, 10)}${m.pinned ? ' (pinned)' : ''}\n\n${quote(truncateToTokens(m.content.trim(), RETRIEVAL_MEMORY_TOKENS))}`);
    }
  }
  return parts.join('\n\n');
}

/** The quotes of a retrieval answer and their sources, numbered: the passages' documents first, then the memory entries. */
export function retrievalQuotes(passages: Passage[], memory: PromptMemory[]): { quotes: RetrievalQuotes; sources: PromptSource[] } {
  const sources = new Sources();
  const quotedPassages = passages.map((p) => ({ ...p, number: sources.cite({ id: p.documentId, title: p.title, type: 'knowledge' }) }));
  const quotedMemory = memory.map((m) => ({ ...m, number: sources.cite(memorySource(m)) }));
  return { quotes: { passages: quotedPassages, memory: quotedMemory }, sources: sources.all };
}

/** A conversation's title: its first message on one line, at most 80 characters. */
export function titleOf(message: string): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  if (flat.length <= 80) return flat;
  let end = 79;
  const space = flat.lastIndexOf(' ', end);
  if (space > 40) end = space;
  const code = flat.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${flat.slice(0, end).trimEnd()}…`;
}
