// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { htmlToText } from './html-to-text.js';

const timed = (html: string) => {
  const started = performance.now();
  const text = htmlToText(html);
  return { text, ms: performance.now() - started };
};

describe('htmlToText tokenizer', () => {
  it('keeps the tag rules: quoted values may hold ">" and "<", a "<" that opens no tag is text', () => {
    expect(htmlToText('<p title="a > b" data-x=\'<i>\'>Hi</p><p>there</p>')).toBe('Hi\n\nthere');
    expect(htmlToText('1 < 2 and <b>bold</b> x<y')).toBe('1 < 2 and bold x<y');
    expect(htmlToText('before <a href="unclosed>after')).toBe('before <a href="unclosed>after');
    expect(htmlToText('<a "<b>text</b>')).toBe('<a "text');
    expect(htmlToText('x<!-- <p>hidden</p> -->y<![CDATA[z]]><!doctype html><?pi?>w')).toBe('xyw');
    expect(htmlToText('<table><tr><td>a</td><td>b</td></tr></table>')).toBe('a\tb');
  });

  it('security: tags that never close are tokenized in linear time (was quadratic: 1.9 s at 64 KB)', () => {
    // Each of these took seconds with the former regex tokenizer, which walked from every "<" to the end.
    const hostile = {
      unclosed: '<a'.repeat(32_000),
      longName: `<${'a'.repeat(64_000)}`,
      quotes: `${'<a "'.repeat(8_000)}${"<a '".repeat(8_000)}`,
      quoteFirst: '"<a'.repeat(20_000),
      // Output blanks not followed by a newline (cells, <pre>) were quadratic in the final clean-up.
      cells: '</td>'.repeat(40_000),
      pre: `<pre>${' '.repeat(40_000)}x`,
    };
    for (const [what, html] of Object.entries(hostile)) {
      const { ms } = timed(html);
      expect(ms, what).toBeLessThan(300);
    }
    // And it scales linearly: four times the input takes nowhere near sixteen times as long.
    const small = timed('<a'.repeat(16_000)).ms;
    const large = timed('<a'.repeat(64_000)).ms;
    expect(large).toBeLessThan(Math.max(small, 5) * 8);
  });
});
