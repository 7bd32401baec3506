import { describe, expect, it } from 'vitest';
import { sameTextForm, sameTextKey, scopedTextKey } from './same-text.js';

/** The rule as docs/decisions/memory.md states it, written plainly: every step on every text. */
function plainForm(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[.!?\u2026;:,\u3002\uFF01\uFF1F\uFF1B\uFF1A\uFF0C]+(?=["'\u201D\u2019)\]]*$)/u, '')
    .trim();
}

describe('sameTextForm', () => {
  it('compares as a reader would: case, spacing, compatibility forms, trailing punctuation', () => {
    expect(sameTextForm('I like tea.')).toBe('i like tea');
    expect(sameTextForm('  I   like\ttea!!  ')).toBe('i like tea');
    expect(sameTextForm('ＩＬｉｋｅ ﬁsh')).toBe('ilike fish');
    expect(sameTextForm('She said "yes."')).toBe('she said "yes"');
    expect(sameTextForm('(see below.)')).toBe('(see below)');
    expect(sameTextForm('It was 2024.')).not.toBe(sameTextForm('It was 2025.'));
    expect(sameTextForm('a. b')).toBe('a. b');
    expect(sameTextForm('e\u0301té')).toBe('été');
  });

  it('gives what every step run on every text gives, on random texts of spaces, punctuation and letters', () => {
    const pieces = ['a', 'B', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\ufeff', '.', '!', '?', '\u2026', ';', ':', ',', '\u3002', '\uFF01', '"', "'", '\u201D', '\u2019', ')', ']', '(', 'É', 'e\u0301', 'ﬁ', 'Ａ', '\u2028', 'x', '1', '-'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 50_000; n++) {
      let text = '';
      for (let length = Math.floor(next() * 9); length > 0; length--) text += pieces[Math.floor(next() * pieces.length)];
      expect(sameTextForm(text), JSON.stringify(text)).toBe(plainForm(text));
    }
  });
});

describe('the text keys', () => {
  it('are equal exactly when the compared forms are, and keep a limited writer’s apart', () => {
    expect(sameTextKey('I like tea.')).toBe(sameTextKey('i like  TEA'));
    expect(sameTextKey('I like tea')).not.toBe(sameTextKey('I like coffee'));
    expect(sameTextKey('I like tea')).toMatch(/^v1:[A-Za-z0-9_-]{43}$/);
    expect(scopedTextKey(['work', 'home'], 'I like tea')).toBe(scopedTextKey(['home', 'work'], 'i like tea.'));
    expect(scopedTextKey(['work'], 'I like tea')).not.toBe(sameTextKey('I like tea'));
  });
});
