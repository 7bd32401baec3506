// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { excerpt, markWords, queryStems, wordsHeld } from './marks.js';
import { porterStem } from './stemmer.js';
import { tokenize } from './tokenizer.js';

/** The rule written plainly (each run of letters, digits and marks tokenized, each token stemmed): what markWords' fast path must equal. */
function markedByRule(text: string, stems: readonly string[]) {
  const marks: Array<[number, number]> = [];
  const matched = stems.map(() => false);
  if (stems.length === 0) return { marks, matched };
  for (const run of text.matchAll(/[\p{L}\p{N}\p{Co}\p{M}]+/gu)) {
    let hit = false;
    for (const token of tokenize(run[0])) {
      const stem = porterStem(token);
      stems.forEach((s, i) => {
        if (stem.startsWith(s)) hit = matched[i] = true;
      });
    }
    if (hit) marks.push([run.index, run.index + run[0].length]);
  }
  return { marks, matched };
}

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

  it('counts the query\'s words two texts hold together as marking them joined by a line would', () => {
    const stems = queryStems('garden notebook résumé deploy');
    const texts = ['Garden notes', 'a notebook', 'Résumé', '', 'deployed notebooks in the garden', 'nothing here', '😀 ecole'];
    for (const a of texts) {
      for (const b of texts) {
        const joined = markWords(`${a}\n${b}`, stems).matched.filter(Boolean).length;
        expect(wordsHeld(markWords(a, stems).matched, markWords(b, stems).matched)).toBe(joined);
      }
    }
    expect(wordsHeld(markWords('garden', stems).matched)).toBe(1);
    expect(wordsHeld()).toBe(0);
  });

  it('keeps a short text whole, and cuts a long one around the most words, with the marks inside it', () => {
    expect(excerpt('a short garden note', queryStems('garden notebook'), 100)).toEqual({ text: 'a short garden note', marks: [[8, 14]], matched: [true, false], whole: true });
    const text = `${'lorem ipsum dolor '.repeat(100)}garden here ${'sit amet '.repeat(30)}garden notebook${' consectetur'.repeat(100)}`;
    const cut = excerpt(text, queryStems('garden notebook'), 200);
    expect(cut.text.length).toBeLessThanOrEqual(202);
    expect(cut.text.startsWith('\u2026') && cut.text.endsWith('\u2026')).toBe(true);
    expect(cut.marks.map(([s, e]) => cut.text.slice(s, e))).toContain('notebook');
    for (const [s, e] of cut.marks) expect(cut.text.slice(s, e)).toMatch(/^(garden|notebook)$/);
    expect(cut.whole).toBe(false);
    // What the cut text holds, word cut at an end or not, is what marking it would say.
    expect(cut.matched).toEqual(markWords(cut.text, queryStems('garden notebook')).matched);
    const ends = excerpt(`gardening ${'x '.repeat(40)}notebook`, queryStems('gardening notebook'), 30);
    expect(ends.matched).toEqual(markWords(ends.text, queryStems('gardening notebook')).matched);
    // Without any mark the window is the text's beginning.
    expect(excerpt(text, queryStems('zzz'), 50).text.startsWith('lorem')).toBe(true);
  });

  it('never starts or ends an excerpt between a letter and its accents', () => {
    const accented = 'e\u0301'.repeat(400);
    for (const width of [50, 51, 52, 99, 100]) {
      const cut = excerpt(`${accented} carrot ${accented}`, queryStems('carrot'), width);
      expect(cut.text.replace(/^\u2026|\u2026$/g, '')).toMatch(/^(?!\p{M})[\s\S]*(?<!e)$/u);
      expect(cut.marks.map(([s, e]) => cut.text.slice(s, e))).toEqual(['carrot']);
    }
  });

  it("keeps a word's first letter as its stem's first letter, which lets marking skip the words no query stem begins like", () => {
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    const endings = ['', 's', 'es', 'ies', 'sses', 'ed', 'eed', 'ing', 'y', 'ational', 'ization', 'iveness', 'ative', 'ical', 'ness', 'ement', 'ion', 'e', 'll', 'ate', 'ous'];
    const changed: string[] = [];
    for (let t = 0; t < 20_000; t++) {
      let word = '';
      for (let i = 0, n = 1 + Math.floor(random() * 6); i < n; i++) word += 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(random() * 36)];
      word += endings[Math.floor(random() * endings.length)];
      if (porterStem(word)[0] !== word[0]) changed.push(word);
    }
    expect(changed).toEqual([]);
  });

  it('marks ASCII text (read code by code) and any other text exactly as the rule says', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    const words = ['Garden', 'gardening', 'deploy', 'DEPLOYED', 'notebook', 'x1', '42', 'running', 'ran', 'Café', 'résumé', 'e\u0301cole', '😀', 'naïve', 'a_b', "don't"];
    const gaps = [' ', ', ', '. ', '\n', '-', '_', '/', '  ', '\t'];
    const queries = ['garden deploy', 'note run 42', 'cafe resume ecole naive', 'x deployed', 'the', 'b'];
    for (let t = 0; t < 300; t++) {
      const ascii = t % 2 === 0;
      const pool = ascii ? words.filter((w) => /^[\x00-\x7f]*$/.test(w)) : words;
      let text = '';
      for (let w = 0, n = Math.floor(random() * 30); w < n; w++) text += pool[Math.floor(random() * pool.length)]! + gaps[Math.floor(random() * gaps.length)]!;
      for (const q of queries) expect(markWords(text, queryStems(q))).toEqual(markedByRule(text, queryStems(q)));
    }
  });

  it('marks a long text from its table of words by stem as the rule does, the first time and again, up to the most marks a text gets', () => {
    let seed = 13;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    const words = ['Garden', 'gardening', 'gardener', 'deploy', 'DEPLOYED', 'notebook', 'notes', 'x1', '42', 'running', 'ran', 'runner', 'meeting', 'Meet'];
    const gaps = [' ', ', ', '. ', '\n', '-', '_', '/'];
    // Query stems that prefix one another (run, runner) or several of the text's stems (gard, note).
    const queries = ['garden deploy', 'note run 42', 'gard runner run', 'meeting meet', 'x', 'zzz', 'the'];
    for (let t = 0; t < 60; t++) {
      let text = '';
      const n = t === 0 ? 4_000 : 100 + Math.floor(random() * 600);
      for (let w = 0; w < n; w++) text += words[Math.floor(random() * words.length)]! + gaps[Math.floor(random() * gaps.length)]!;
      if (t % 10 === 1) text += 'Café';
      for (const q of queries) {
        const expected = markedByRule(text, queryStems(q));
        // The rule has no bound; markWords stops at 1,000 marks (as its scan always did).
        if (expected.marks.length > 1_000) {
          expect(markWords(text, queryStems(q)).marks).toEqual(expected.marks.slice(0, 1_000));
          continue;
        }
        expect(markWords(text, queryStems(q))).toEqual(expected);
        expect(markWords(text, queryStems(q))).toEqual(expected);
      }
    }
  });

  it('marks as the rule does when more long texts are marked than their tables can hold', () => {
    let seed = 17;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    const words = ['garden', 'deploy', 'notebook', 'running', 'meeting', 'x1', 'alpha', 'beta', 'gamma', 'delta'];
    // 3,000 texts of 80 words: more than twice what the tables hold together.
    const texts = Array.from({ length: 3_000 }, (_, t) => `text ${t} ` + Array.from({ length: 80 }, () => words[Math.floor(random() * words.length)]).join(' '));
    const stems = queryStems('garden running x');
    for (let pass = 0; pass < 2; pass++) {
      for (const text of texts) expect(markWords(text, stems)).toEqual(markedByRule(text, stems));
    }
  });
});
