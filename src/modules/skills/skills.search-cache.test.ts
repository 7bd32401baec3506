import { describe, expect, it } from 'vitest';
import { createSearchCache } from './skills.search-cache.js';

describe('createSearchCache', () => {
  it('serves what was stored until the owner writes, and only that owner', () => {
    const cache = createSearchCache<string[]>({ maxEntries: 10, maxWeight: 100 });
    cache.set('a', 'q', cache.generation('a'), ['x'], 1);
    cache.set('b', 'q', cache.generation('b'), ['y'], 1);
    expect(cache.get('a', 'q')).toEqual(['x']);
    cache.invalidate('a');
    expect(cache.get('a', 'q')).toBeUndefined();
    expect(cache.get('b', 'q')).toEqual(['y']);
  });

  it('drops an answer computed while a write finished', () => {
    const cache = createSearchCache<string[]>({ maxEntries: 10, maxWeight: 100 });
    const before = cache.generation('a');
    cache.invalidate('a'); // a write completes while the query runs
    cache.set('a', 'q', before, ['stale'], 1);
    expect(cache.get('a', 'q')).toBeUndefined();
  });

  it('evicts the least recently used entries beyond the entry and weight budgets', () => {
    const cache = createSearchCache<number>({ maxEntries: 3, maxWeight: 10 });
    for (const k of ['1', '2', '3']) cache.set('a', k, 0, Number(k), 1);
    expect(cache.get('a', '1')).toBe(1); // now the most recent
    cache.set('a', '4', 0, 4, 1);
    expect(cache.get('a', '2')).toBeUndefined();
    expect(cache.get('a', '1')).toBe(1);
    cache.set('a', 'big', 0, 99, 9);
    expect(cache.get('a', 'big')).toBe(99);
    expect([cache.get('a', '1'), cache.get('a', '3'), cache.get('a', '4')].filter((v) => v !== undefined).length).toBeLessThanOrEqual(1);
    cache.set('a', 'huge', 0, 100, 11);
    expect(cache.get('a', 'huge')).toBeUndefined();
  });
});
