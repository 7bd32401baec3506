// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { estimateJsonTokens, estimateTokens } from './token-estimate.js';

describe('estimateTokens', () => {
  it('counts words, numbers, punctuation and other scripts as byte-pair tokenizers cut them', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('I prefer aisle seats on long flights.')).toBe(12);
    expect(estimateTokens('{"id":"x","a":1}')).toBe(11);
    expect(estimateTokens('2026-11-29T08:39:23.141Z')).toBe(15);
    expect(estimateTokens('1234567')).toBe(3);
    expect(estimateTokens('a          b')).toBe(5);
    expect(estimateTokens('東京都')).toBe(3);
    expect(estimateTokens('🙂')).toBe(1);
  });

  it('never counts a text as more than its parts, so JSON can be counted item by item', () => {
    const items = [{ id: 'mem_01M8K7AYR52C6N2ZRANYF4NFAE', content: 'Emma is allergic to peanuts.\n\nAlways ask.' }, { id: 'x', content: '東京 2026' }];
    const whole = estimateJsonTokens(items);
    const parts = estimateTokens('[') + estimateTokens(`${JSON.stringify(items[0])},`) + estimateTokens(`${JSON.stringify(items[1])}]`);
    expect(parts).toBeGreaterThanOrEqual(whole);
    for (let cut = 0; cut <= 40; cut++) {
      const text = JSON.stringify(items);
      expect(estimateTokens(text.slice(0, cut)) + estimateTokens(text.slice(cut))).toBeGreaterThanOrEqual(whole);
    }
  });
});
