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
 *   4. memory entries                       up to 10 % (newest first)
 *   5. the conversation's history           the rest  (newest first, whole messages)
 * A part that does not fit is cut at a word boundary and marked "[…]"; history keeps the most
 * recent contiguous messages and drops older ones.
 * Tokens are estimated, not counted: a quarter token per ASCII character, one per other
 * character (close to what BPE tokenizers do for English and for CJK text, and on the safe side
 * for most others).
 */

export const DEFAULT_CONTEXT_TOKENS = 6_000;
export const SHARES = { persona: 0.3, documents: 0.2, passages: 0.2, memory: 0.1 } as const;
/** At most this many passages enter a prompt; a retrieval answer quotes at most RETRIEVAL_PASSAGES. */
export const MAX_PASSAGES = 8;
export const RETRIEVAL_PASSAGES = 3;

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
  /** Newest first. */
  memory: Array<{ content: string; created_at: string }>;
  /** Newest first. */
  history: Array<{ role: 'user' | 'assistant'; content: string }>;
  budgetTokens: number;
}

export interface BuiltPrompt {
  messages: ChatMessage[];
  /** The documents the prompt quotes, in the order it quotes them. */
  sources: Array<{ id: string; title: string }>;
  /** Estimated tokens spent on each part. */
  spent: { persona: number; documents: number; passages: number; memory: number; history: number };
}

/** Builds the messages for the model within the budget; see the top of this file for the order. */
export function buildPrompt(input: PromptInput): BuiltPrompt {
  const budget = Math.max(0, input.budgetTokens);
  const spent = { persona: 0, documents: 0, passages: 0, memory: 0, history: 0 };
  const sources = new Map<string, { id: string; title: string }>();
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
  take('memory', (room) => memoryPart(input.memory, room));
  // 5. History: the rest of the budget.
  const history = historyPart(input.history, budget - spent.persona - spent.documents - spent.passages - spent.memory);
  spent.history = history.used;

  return {
    messages: [{ role: 'system', content: sections.join('\n\n') }, ...history.messages, { role: 'user', content: input.message }],
    sources: [...sources.values()],
    spent,
  };
}

/** One part of the system message: its text (none when nothing fits) and the tokens it spends. */
interface PromptPart {
  section: string | undefined;
  used: number;
}

/** The persona's documents, whole while they fit, the first that does not cut to fit. */
function documentsPart(
  documents: RankableDocument[],
  room: number,
  sources: Map<string, { id: string; title: string }>,
  wholeDocuments: Set<string>,
): PromptPart {
  const documentBlocks: string[] = [];
  let used = 0;
  const docHeading = '\n\n# Documents attached to this persona';
  for (const doc of documents) {
    const overhead = estimateTokens(`${documentBlocks.length === 0 ? docHeading : ''}\n\n## ${doc.title}\n`);
    const left = room - used - overhead;
    if (left < 20) break;
    const body = truncateToTokens(doc.content, left);
    if (!body) break;
    documentBlocks.push(`## ${doc.title}\n${body}`);
    used += overhead + estimateTokens(body);
    sources.set(doc.id, { id: doc.id, title: doc.title });
    if (body === doc.content) wholeDocuments.add(doc.id);
    if (body !== doc.content) break;
  }
  const section = documentBlocks.length > 0 ? `# Documents attached to this persona\n\n${documentBlocks.join('\n\n')}` : undefined;
  return { section, used };
}

/** Knowledge-base passages, best first; one that does not fit is skipped for a shorter one. */
function passagesPart(
  passages: Passage[],
  room: number,
  sources: Map<string, { id: string; title: string }>,
  wholeDocuments: Set<string>,
): PromptPart {
  let used = 0;
  const passageBlocks: string[] = [];
  const passageHeading =
    "# Passages from the owner's knowledge base that may be relevant to the latest message\nUse them when they help, and name the document you rely on.";
  for (const passage of passages) {
    if (wholeDocuments.has(passage.documentId)) continue; // already in the prompt whole
    const block = `[${passageBlocks.length + 1}] ${passage.title}\n${passage.text}`;
    const cost = estimateTokens(block) + (passageBlocks.length === 0 ? estimateTokens(passageHeading) : 0) + 1;
    if (used + cost > room) continue;
    passageBlocks.push(block);
    used += cost;
    sources.set(passage.documentId, { id: passage.documentId, title: passage.title });
  }
  const section = passageBlocks.length > 0 ? `${passageHeading}\n\n${passageBlocks.join('\n\n')}` : undefined;
  return { section, used };
}

/** Memory, newest first. */
function memoryPart(memory: PromptInput['memory'], room: number): PromptPart {
  let used = 0;
  const memoryLines: string[] = [];
  const memoryHeading = '# What the owner asked you to remember (newest first)';
  for (const entry of memory) {
    const prefix = `- (${entry.created_at.slice(0, 10)}) `;
    const overhead = estimateTokens(prefix) + 1 + (memoryLines.length === 0 ? estimateTokens(memoryHeading) : 0);
    const left = room - used - overhead;
    if (left < 10) break;
    const text = truncateToTokens(entry.content.trim(), left);
    if (!text) break;
    memoryLines.push(prefix + text);
    used += overhead + estimateTokens(text);
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

/**
 * The answer without a language model: the best passages, quoted with their titles, and a
 * plain statement that no model is configured.
 */
export function retrievalReply(passages: Passage[]): string {
  const notice =
    'No language model is configured on this server (its operator can set LLM_BASE_URL to an OpenAI-compatible endpoint), so this answer quotes your knowledge base instead of writing a reply.';
  if (passages.length === 0) {
    return `${notice}\n\nNothing in your knowledge base matches your message. Add documents with POST /api/v1/brain/knowledge-base, or rephrase with the words they use.`;
  }
  const quotes = passages.map((p, i) => {
    const quoted = p.text
      .split('\n')
      .map((line) => (line.trim() ? `> ${line}` : '>'))
      .join('\n');
    return `${i + 1}. **${p.title}**\n\n${quoted}`;
  });
  const heading = passages.length === 1 ? 'The passage that best matches your message:' : `The ${passages.length} passages that best match your message:`;
  return `${notice}\n\n${heading}\n\n${quotes.join('\n\n')}`;
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
