// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import {
  buildPrompt,
  CITING_NOTE,
  contentTerms,
  DEFAULT_SYSTEM_PROMPT,
  estimateTokens,
  retrievalQuotes,
  retrievalReply,
  titleOf,
  truncateToTokens,
  type PromptInput,
} from './chat.prompt.js';

const words = (n: number, word = 'lorem') => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');

function input(overrides: Partial<PromptInput> = {}): PromptInput {
  return {
    message: 'What is new?',
    persona: { soul_content: 'You are Ada, terse and precise.' },
    personaDocuments: [],
    passages: [],
    memory: [],
    history: [],
    budgetTokens: 6000,
    ...overrides,
  };
}

describe('token estimate and truncation', () => {
  it('counts a quarter token per ASCII character and one per other character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('日本語')).toBe(3);
    expect(estimateTokens('😀')).toBe(1); // one character, two UTF-16 units
  });

  it('cuts at a word boundary, marks the cut, and leaves short text alone', () => {
    expect(truncateToTokens('short text', 100)).toBe('short text');
    const cut = truncateToTokens(words(200), 50);
    expect(estimateTokens(cut)).toBeLessThanOrEqual(50);
    expect(cut.endsWith(' […]')).toBe(true);
    expect(cut).toMatch(/lorem\d+ \[…\]$/); // whole words only
    expect(truncateToTokens(words(200), 0)).toBe('');
  });

  it('never splits a surrogate pair', () => {
    const cut = truncateToTokens('😀'.repeat(100), 20);
    expect(cut.replace(' […]', '')).toMatch(/^(?:😀)+$/u);
  });
});

describe('the words searched', () => {
  it('drops stop words from what is searched, unless nothing else is left', () => {
    expect(contentTerms('What is the capital of France?')).toEqual(['capital', 'france']);
    expect(contentTerms('what is it')).toEqual(['what', 'is', 'it']);
  });

});

describe('buildPrompt: order and budget', () => {
  it('puts the persona first in the system message, then documents, passages and memory; the message last', () => {
    const prompt = buildPrompt(
      input({
        personaDocuments: [{ id: 'doc_p', title: 'Style guide', content: 'Use British spelling.' }],
        passages: [{ documentId: 'doc_k', title: 'Projects', text: 'Project Falcon ships in May.', score: 1 }],
        memory: [{ id: 'mem_1', content: 'Prefers short answers.', created_at: '2024-05-01T10:00:00.000Z', pinned: false }],
        history: [
          { role: 'assistant', content: 'Second.' },
          { role: 'user', content: 'First.' },
        ],
      }),
    );
    const [system, ...rest] = prompt.messages;
    expect(system!.role).toBe('system');
    const text = system!.content;
    expect(text.startsWith('You are Ada, terse and precise.')).toBe(true);
    const order = ['## [1] Style guide\nUse British spelling.', '[2] Projects\nProject Falcon ships in May.', '[3] (2024-05-01) Prefers short answers.', CITING_NOTE].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(rest).toEqual([
      { role: 'user', content: 'First.' },
      { role: 'assistant', content: 'Second.' },
      { role: 'user', content: 'What is new?' },
    ]);
    expect(prompt.sources).toEqual([
      { id: 'doc_p', title: 'Style guide', type: 'knowledge' },
      { id: 'doc_k', title: 'Projects', type: 'knowledge' },
      { id: 'mem_1', title: 'Prefers short answers.', type: 'memory', text: 'Prefers short answers.' },
    ]);
  });

  it('uses a neutral system message when no persona is active', () => {
    // Nothing to cite: no note about citing either.
    expect(buildPrompt(input({ persona: null })).messages[0]!.content).toBe(DEFAULT_SYSTEM_PROMPT);
  });

  it('caps each part at its share and passes what it leaves unused on', () => {
    const budget = 1000;
    const big = words(2000);
    const prompt = buildPrompt(
      input({
        budgetTokens: budget,
        persona: { soul_content: big },
        personaDocuments: [{ id: 'd1', title: 'Big', content: big }],
        passages: Array.from({ length: 8 }, (_, i) => ({ documentId: `k${i}`, title: `K${i}`, text: words(60, `p${i}x`), score: 8 - i })),
        memory: Array.from({ length: 30 }, (_, i) => ({ id: `mem_${i}`, content: words(20, `m${i}x`), created_at: '2024-01-01T00:00:00.000Z', pinned: false })),
        history: Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'user' : 'assistant', content: words(30, `h${i}x`) }) as const),
      }),
    );
    expect(prompt.spent.persona).toBeLessThanOrEqual(300);
    expect(prompt.spent.persona).toBeGreaterThan(250);
    // Each part within its share plus what the parts before it left.
    const { persona, documents, passages, memory } = prompt.spent;
    expect(persona + documents).toBeLessThanOrEqual(500);
    expect(persona + documents + passages).toBeLessThanOrEqual(700);
    expect(persona + documents + passages + memory).toBeLessThanOrEqual(800);
    expect(documents).toBeGreaterThan(150);
    expect(passages).toBeGreaterThan(100);
    expect(memory).toBeGreaterThan(50);
    const total = Object.values(prompt.spent).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(budget);
    // History keeps the newest messages, contiguous, in chronological order.
    const history = prompt.messages.slice(1, -1);
    expect(history.length).toBeGreaterThan(0);
    expect(history.at(-1)!.content).toContain('h0x0');
    expect(history[0]!.content).toContain(`h${history.length - 1}x0`);
    // A truncated persona document is still a source.
    expect(prompt.sources[0]).toEqual({ id: 'd1', title: 'Big', type: 'knowledge' });
  });

  it('gives the whole budget to history when there is nothing else', () => {
    const history = Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: words(50, `h${i}x`) }));
    const prompt = buildPrompt(input({ budgetTokens: 6000, persona: { soul_content: 'Hi.' }, history }));
    expect(prompt.messages).toHaveLength(12);
  });

  it('skips passages of documents already included whole', () => {
    const prompt = buildPrompt(
      input({
        personaDocuments: [{ id: 'doc_p', title: 'Style guide', content: 'Use British spelling.' }],
        passages: [{ documentId: 'doc_p', title: 'Style guide', text: 'Use British spelling.', score: 1 }],
      }),
    );
    expect(prompt.messages[0]!.content.split('Use British spelling.')).toHaveLength(2);
    expect(prompt.sources).toEqual([{ id: 'doc_p', title: 'Style guide', type: 'knowledge' }]);
  });
});

describe('buildPrompt: memory and numbered sources', () => {
  const entry = (id: string, content: string, pinned = false) => ({ id, content, created_at: '2024-03-02T08:00:00.000Z', pinned });

  it('numbers every source once, passages of one document sharing its number, memory after the documents', () => {
    const prompt = buildPrompt(
      input({
        passages: [
          { documentId: 'doc_a', title: 'Alpha', text: 'First passage of alpha.', score: 3 },
          { documentId: 'doc_b', title: 'Beta', text: 'Only passage of beta.', score: 2 },
          { documentId: 'doc_a', title: 'Alpha', text: 'Second passage of alpha.', score: 1 },
        ],
        memory: [entry('mem_p', 'Name: Ada Lovelace', true), entry('mem_r', 'Ada takes her tea without milk.')],
      }),
    );
    const system = prompt.messages[0]!.content;
    expect(system).toContain('[1] Alpha\nFirst passage of alpha.');
    expect(system).toContain('[2] Beta\nOnly passage of beta.');
    expect(system).toContain('[1] Alpha\nSecond passage of alpha.');
    expect(system).toContain('[3] (2024-03-02, pinned) Name: Ada Lovelace');
    expect(system).toContain('[4] (2024-03-02) Ada takes her tea without milk.');
    expect(system.endsWith(CITING_NOTE)).toBe(true);
    expect(prompt.sources.map((source) => [source.type, source.id])).toEqual([
      ['knowledge', 'doc_a'],
      ['knowledge', 'doc_b'],
      ['memory', 'mem_p'],
      ['memory', 'mem_r'],
    ]);
    expect(prompt.spent.citing).toBeGreaterThan(0);
  });

  it('gives the pinned profile at most half of the memory part, so that entries about the message still fit', () => {
    // 1,000 tokens and nothing else to spend them on: memory's room is its 100 and the 699 the
    // persona ("Hi.", 1), documents and passages leave, 799 in all; ten long pinned entries would fill it.
    const pinned = Array.from({ length: 10 }, (_, i) => entry(`mem_p${i}`, words(60, `pin${i}x`), true));
    const prompt = buildPrompt(input({ budgetTokens: 1000, persona: { soul_content: 'Hi.' }, memory: [...pinned, entry('mem_r', 'The relevant note about the message.')] }));
    expect(prompt.messages[0]!.content).toContain('The relevant note about the message.');
    expect(prompt.sources.at(-1)).toMatchObject({ id: 'mem_r', type: 'memory' });
    const pinnedShown = prompt.sources.filter((source) => source.id.startsWith('mem_p'));
    expect(pinnedShown.length).toBeGreaterThan(1);
    expect(pinnedShown.length).toBeLessThan(10);
    expect(prompt.spent.memory).toBeLessThanOrEqual(799 / 2 + 30);
  });

  it("a memory source carries the entry's text on one line, cut to 280 characters", () => {
    const long = `Line one\n\n${words(100)}`;
    const [source] = buildPrompt(input({ memory: [entry('mem_long', long)] })).sources;
    expect(source).toMatchObject({ id: 'mem_long', type: 'memory', title: expect.stringMatching(/^Line one lorem0/) });
    const text = (source as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(280);
    expect(text.startsWith('Line one lorem0 lorem1')).toBe(true);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('retrieval reply and titles', () => {
  it('says that no model is configured and quotes the passages with their titles and the memory entries, numbered as the sources', () => {
    const { quotes, sources } = retrievalQuotes(
      [{ documentId: 'd', title: 'Projects', text: 'Falcon ships in May.\nOn time.', score: 1 }],
      [{ id: 'mem_1', content: 'Falcon is the code name of the new boat.', created_at: '2024-02-03T00:00:00.000Z', pinned: false }],
    );
    const reply = retrievalReply(quotes);
    expect(reply).toContain('No language model is configured');
    expect(reply).toContain('no model wrote this answer');
    expect(reply).toContain('[1] **Projects**');
    expect(reply).toContain('> Falcon ships in May.\n> On time.');
    expect(reply).toContain('From your memory:');
    expect(reply).toContain('[2] Noted 2024-02-03\n\n> Falcon is the code name of the new boat.');
    expect(sources).toEqual([
      { id: 'd', title: 'Projects', type: 'knowledge' },
      { id: 'mem_1', title: 'Falcon is the code name of the new boat.', type: 'memory', text: 'Falcon is the code name of the new boat.' },
    ]);
    expect(retrievalReply({ passages: [], memory: [] })).toContain('Nothing in your knowledge base or memory matches');
    const memoryOnly = retrievalReply(retrievalQuotes([], [{ id: 'mem_1', content: 'A note.', created_at: '2024-02-03T00:00:00.000Z', pinned: true }]).quotes);
    expect(memoryOnly).toContain('Nothing in your knowledge base matches your message.');
    expect(memoryOnly).toContain('[1] Noted 2024-02-03 (pinned)');
  });

  it('titles a conversation with its first message on one line', () => {
    expect(titleOf('  Hello\n there  ')).toBe('Hello there');
    const long = titleOf(words(40));
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long.endsWith('…')).toBe(true);
  });
});
