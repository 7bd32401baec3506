import { describe, expect, it } from 'vitest';
import {
  buildPrompt,
  contentTerms,
  DEFAULT_SYSTEM_PROMPT,
  estimateTokens,
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
        memory: [{ content: 'Prefers short answers.', created_at: '2024-05-01T10:00:00.000Z' }],
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
    const order = ['Use British spelling.', 'Project Falcon ships in May.', '(2024-05-01) Prefers short answers.'].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(rest).toEqual([
      { role: 'user', content: 'First.' },
      { role: 'assistant', content: 'Second.' },
      { role: 'user', content: 'What is new?' },
    ]);
    expect(prompt.sources).toEqual([
      { id: 'doc_p', title: 'Style guide' },
      { id: 'doc_k', title: 'Projects' },
    ]);
  });

  it('uses a neutral system message when no persona is active', () => {
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
        memory: Array.from({ length: 30 }, (_, i) => ({ content: words(20, `m${i}x`), created_at: '2024-01-01T00:00:00.000Z' })),
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
    expect(prompt.sources[0]).toEqual({ id: 'd1', title: 'Big' });
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
    expect(prompt.sources).toEqual([{ id: 'doc_p', title: 'Style guide' }]);
  });
});

describe('retrieval reply and titles', () => {
  it('says that no model is configured and quotes the passages with their titles', () => {
    const reply = retrievalReply([{ documentId: 'd', title: 'Projects', text: 'Falcon ships in May.\nOn time.', score: 1 }]);
    expect(reply).toContain('No language model is configured');
    expect(reply).toContain('**Projects**');
    expect(reply).toContain('> Falcon ships in May.\n> On time.');
    expect(retrievalReply([])).toContain('Nothing in your knowledge base matches');
  });

  it('titles a conversation with its first message on one line', () => {
    expect(titleOf('  Hello\n there  ')).toBe('Hello there');
    const long = titleOf(words(40));
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long.endsWith('…')).toBe(true);
  });
});
