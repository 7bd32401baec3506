import { describe, expect, it } from 'vitest';
import { excerpt, markWords, queryStems } from './marks.js';

const marked = (text: string, q: string) => markWords(text, queryStems(q)).marks.map(([s, e]) => text.slice(s, e));

describe('marks: the words of a query in a text, by the ranker\'s rule', () => {
  it('marks stems and prefixes, not stop words', () => {
    expect(queryStems('Where is my deploying of the garden?')).toEqual(['deploi', 'garden']);
    expect(marked('Deployed the gardens; deploying again. Gardening later.', 'deploying garden')).toEqual(['Deployed', 'gardens', 'deploying', 'Gardening']);
    // A prefix of a stem matches, as "garden"* does in the index; the other way round does not.
    expect(marked('garden gardener', 'gard')).toEqual(['garden', 'gardener']);
    expect(marked('gard', 'garden')).toEqual([]);
  });

  it('keeps the text\'s own offsets through case, diacritics and surrogate pairs', () => {
    const text = '😀 RÉSUMÉ de Zoë, e\u0301cole';
    expect(marked(text, 'resume zoe ecole')).toEqual(['RÉSUMÉ', 'Zoë', 'e\u0301cole']);
  });

  it('says which of the query\'s words the text holds', () => {
    expect(markWords('only the garden', queryStems('garden notebook')).matched).toEqual([true, false]);
    expect(markWords('anything', []).marks).toEqual([]);
  });

  it('keeps a short text whole, and cuts a long one around the most words, with the marks inside it', () => {
    expect(excerpt('a short garden note', queryStems('garden'), 100)).toEqual({ text: 'a short garden note', marks: [[8, 14]] });
    const text = `${'lorem ipsum dolor '.repeat(100)}garden here ${'sit amet '.repeat(30)}garden notebook${' consectetur'.repeat(100)}`;
    const cut = excerpt(text, queryStems('garden notebook'), 200);
    expect(cut.text.length).toBeLessThanOrEqual(202);
    expect(cut.text.startsWith('\u2026') && cut.text.endsWith('\u2026')).toBe(true);
    expect(cut.marks.map(([s, e]) => cut.text.slice(s, e))).toContain('notebook');
    for (const [s, e] of cut.marks) expect(cut.text.slice(s, e)).toMatch(/^(garden|notebook)$/);
    // Without any mark the window is the text's beginning.
    expect(excerpt(text, queryStems('zzz'), 50).text.startsWith('lorem')).toBe(true);
  });
});
