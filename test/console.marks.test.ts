// @engine-independent: no app and no database: what it checks cannot differ between engines
/**
 * The console marks the words a search found from the API's `marks`; a mark it cannot place is
 * dropped, never trusted (web/src/components/marks.ts). What the page shows of them is checked
 * in Chromium (test/browser/search.test.ts); these are the cases no server answers on purpose.
 */
import { describe, expect, it } from 'vitest';
import { markSpans } from '../web/src/components/marks.js';

describe("the console's marks", () => {
  it('keeps spans in order, as given', () => {
    expect(markSpans([[12, 19], [3, 7]], 30)).toEqual([[3, 7], [12, 19]]);
  });

  it('joins spans that overlap or touch', () => {
    expect(markSpans([[0, 5], [3, 8], [8, 10], [12, 14]], 20)).toEqual([[0, 10], [12, 14]]);
  });

  it('keeps spans to the text and drops those that mark nothing', () => {
    expect(markSpans([[-4, 2], [5, 99], [40, 50], [6, 6], [7, 3]], 10)).toEqual([[0, 2], [5, 10]]);
  });

  it('drops what is not a pair of whole numbers', () => {
    expect(markSpans([[1.5, 4], [2], [], [Number.NaN, 3], [6, 8, 9]], 10)).toEqual([[6, 8]]);
  });
});
