// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { splitPassages, type Passage } from './passages.js';

/** mulberry32, so that a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['word', 'Émile', 'naïve', '😀', '𝔘𝔫𝔦', 'a', 'long-hyphenated-thing', '2024', '中文字', 'x'];

function randomDocument(random: () => number): string {
  const newline = random() < 0.5 ? '\r\n' : '\n';
  const parts: string[] = [];
  const blocks = Math.floor(random() * 12);
  for (let b = 0; b < blocks; b++) {
    const kind = random();
    if (kind < 0.2) parts.push(`${'#'.repeat(1 + Math.floor(random() * 4))} Heading ${b} ${PIECES[b % PIECES.length]}`);
    else if (kind < 0.3) parts.push('😀'.repeat(Math.floor(random() * 900))); // a very long run without a break
    else {
      const words = Math.floor(random() * 500);
      parts.push(Array.from({ length: words }, () => PIECES[Math.floor(random() * PIECES.length)]).join(random() < 0.1 ? newline : ' '));
    }
  }
  return parts.join(newline + (random() < 0.7 ? newline : ''));
}

function check(text: string, passages: Passage[], maxWords: number): void {
  let previous = -1;
  for (const p of passages) {
    expect(text.slice(p.start, p.end)).toBe(p.text);
    expect(p.end).toBeGreaterThan(p.start);
    expect(p.start).toBeGreaterThan(previous);
    previous = p.start;
    expect(p.text.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(maxWords);
    // No passage starts or ends inside a surrogate pair.
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(p.text)).toBe(false);
  }
  // Every non-space character is in some passage.
  const covered = new Uint8Array(text.length);
  for (const p of passages) covered.fill(1, p.start, p.end);
  let uncovered = -1;
  for (let i = 0; i < text.length && uncovered < 0; i++) if (covered[i] === 0 && !/\s/.test(text[i]!)) uncovered = i;
  expect(uncovered, 'a non-space character outside every passage').toBe(-1);
}

describe('splitPassages', () => {
  it('answers nothing for an empty or blank document', () => {
    expect(splitPassages('')).toEqual([]);
    expect(splitPassages(' \r\n\t\n ')).toEqual([]);
  });

  it('keeps a short document without headings whole, without its surrounding space', () => {
    expect(splitPassages('\n  Hello there.\n\nSecond paragraph.  \n')).toEqual([
      { text: 'Hello there.\n\nSecond paragraph.', start: 3, end: 34, headings: [] },
    ]);
  });

  it('splits by headings and carries the heading path', () => {
    const text = 'Intro line.\r\n\r\n# Travel\r\nSeats.\r\n## Flights ##\r\nAisle.\r\n### Meals\r\nNo peanuts.\r\n## Trains\r\nQuiet car.\r\n# Health\r\nDentist.';
    const passages = splitPassages(text);
    expect(passages.map((p) => [p.headings, p.text])).toEqual([
      [[], 'Intro line.'],
      [['Travel'], '# Travel\r\nSeats.'],
      [['Travel', 'Flights'], '## Flights ##\r\nAisle.'],
      [['Travel', 'Flights', 'Meals'], '### Meals\r\nNo peanuts.'],
      [['Travel', 'Trains'], '## Trains\r\nQuiet car.'],
      [['Health'], '# Health\r\nDentist.'],
    ]);
    check(text, passages, 390);
  });

  it('cuts long sections into overlapping passages of a few hundred words, at paragraph breaks where near', () => {
    const paragraph = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    const text = [paragraph(200, 'a'), paragraph(200, 'b'), paragraph(200, 'c')].join('\n\n');
    const passages = splitPassages(text, { targetWords: 300, maxWords: 400, overlapWords: 30 });
    check(text, passages, 400);
    // The first ends at the second paragraph's end (a break within 400 words), the next repeats its last 30 words.
    expect(passages[0]!.text.endsWith('b199')).toBe(true);
    expect(passages[1]!.text.startsWith('b170 ')).toBe(true);
    expect(passages[passages.length - 1]!.text.endsWith('c199')).toBe(true);
  });

  it('cuts a very long paragraph without breaks, and a very long word, never inside a surrogate pair', () => {
    const text = `${'😀'.repeat(5_000)} ${'word '.repeat(2_000)}`;
    const passages = splitPassages(text, { maxWordChars: 101 });
    check(text, passages, 390);
    // 100 pieces of the long run and 2,000 words: some 2,100 words, 300 a passage.
    expect(passages.length).toBeGreaterThanOrEqual(7);
  });

  it('slices the document exactly for random documents (CRLF, surrogate pairs, headings or none)', () => {
    const random = seeded(5);
    for (let i = 0; i < 200; i++) {
      const text = randomDocument(random);
      const options = { targetWords: 20 + Math.floor(random() * 300), overlapWords: Math.floor(random() * 50), maxWordChars: 2 + Math.floor(random() * 300) };
      const maxWords = Math.round(options.targetWords * 1.3);
      check(text, splitPassages(text, options), maxWords);
    }
  });
});
