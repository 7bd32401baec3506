import { describe, expect, it } from 'vitest';
import { wellFormed } from './well-formed.js';

describe('wellFormed', () => {
  it('replaces each lone surrogate with U+FFFD, as UTF-8 encoding does, and keeps pairs and other text', () => {
    expect(wellFormed('tea \ud800')).toBe('tea \ufffd');
    expect(wellFormed('\udc00a\ud83d')).toBe('\ufffda\ufffd');
    expect(wellFormed('a 😀 é')).toBe('a 😀 é');
    for (const text of ['tea \ud800', '\udc00\ud800x', 'x\ud83d']) {
      expect(Buffer.from(wellFormed(text), 'utf8').toString('utf8')).toBe(Buffer.from(text, 'utf8').toString('utf8'));
    }
  });

  it('answers the same string when there is nothing to replace', () => {
    const text = 'The owner likes tea';
    expect(wellFormed(text)).toBe(text);
  });
});
