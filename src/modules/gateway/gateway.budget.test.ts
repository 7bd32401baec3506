// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { estimateJsonTokens } from '../../lib/token-estimate.js';
import { fitSections, keepWhileFits, sectionTokens, type LoadedSection } from './gateway.budget.js';

/** A section of `n` items of about `size` characters each, cut by keeping its first items. */
function list(name: string, n: number, size: number, tier = 1, share = 1): LoadedSection {
  const items = Array.from({ length: n }, (_, i) => `${i}`.padEnd(size, 'x'));
  return { name, value: items, budget: { tier, share, fit: (value, tokens) => keepWhileFits(value as string[], tokens, (kept) => kept) } };
}
const pinned = (name: string, size: number): LoadedSection => ({ name, value: 'p'.repeat(size) });
const total = (sections: readonly LoadedSection[], values: unknown[]) => sections.reduce((sum, s, i) => sum + sectionTokens(s.name, values[i]), 0);

describe('fitSections', () => {
  it('keeps pinned sections whole and cuts nothing when everything fits', () => {
    const sections = [pinned('user', 400), list('memory', 5, 40)];
    const { values, trimmed } = fitSections(sections, 10_000);
    expect(values).toEqual(sections.map((s) => s.value));
    expect(trimmed).toEqual([]);
  });

  it('shares a tier by its shares and passes what one leaves to the other', () => {
    // Memory has twice knowledge's share; both are far over what is left.
    const big = [pinned('user', 40), list('memory', 100, 40, 1, 2), list('knowledge', 100, 40, 1, 1)];
    const { values, trimmed } = fitSections(big, 600);
    expect(trimmed).toEqual(['memory', 'knowledge']);
    const [m, k] = [values[1] as string[], values[2] as string[]];
    expect(m.length).toBeGreaterThan(k.length * 1.6);
    expect(total(big, values)).toBeLessThanOrEqual(600);
    // A small knowledge section takes only what it needs; memory gets the rest.
    const small = [pinned('user', 40), list('memory', 100, 40, 1, 2), list('knowledge', 1, 40, 1, 1)];
    const fitted = fitSections(small, 600);
    expect(fitted.trimmed).toEqual(['memory']);
    expect((fitted.values[2] as string[]).length).toBe(1);
    expect((fitted.values[1] as string[]).length).toBeGreaterThan(m.length);
    expect(total(small, fitted.values)).toBeLessThanOrEqual(600);
  });

  it('serves a later tier only from what the earlier ones leave, and never overspends on empty forms', () => {
    const sections = [list('endpoints', 50, 30, 2), pinned('user', 40), list('memory', 100, 40, 1)];
    for (const available of [0, 5, 30, 100, 250, 777, 2000]) {
      const { values, trimmed } = fitSections(sections, available);
      const floor = total(sections, [[], sections[1]!.value, []]);
      expect(total(sections, values)).toBeLessThanOrEqual(Math.max(available, floor));
      if (available < 2000) expect(trimmed).toContain('memory');
      // Memory is served before the endpoints: while memory is cut they get at most the few
      // tokens its whole items left unused (each item counted rounded up: a few items' worth).
      if (trimmed.includes('memory')) expect(sectionTokens('endpoints', values[0]) - sectionTokens('endpoints', [])).toBeLessThan(3 * 11);
    }
  });
});

describe('keepWhileFits', () => {
  it('keeps items in order, skips one too long for what is left, and tries the next', () => {
    const items = ['a'.repeat(40), 'b'.repeat(400), 'c'.repeat(40)];
    const kept = keepWhileFits(items, 40, (k) => k);
    expect(kept).toEqual([items[0], items[2]]);
    expect(estimateJsonTokens(kept)).toBeLessThanOrEqual(40);
    expect(keepWhileFits(items, 0, (k) => k)).toEqual([]);
  });
});
