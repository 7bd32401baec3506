// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { createExpiringMap } from './expiring-map.js';

describe('createExpiringMap', () => {
  it('an entry lives ttlMs from when it was last set', () => {
    const map = createExpiringMap<number>({ ttlMs: 100, maxKeys: 10 });
    map.set('a', 1, 0);
    expect(map.get('a', 99)).toBe(1);
    expect(map.get('a', 100)).toBeUndefined();
    expect(map.size).toBe(0);
    map.set('b', 2, 0);
    map.set('b', 3, 80);
    expect(map.get('b', 150)).toBe(3);
  });

  it('a get drops every expired entry, not only the one asked for', () => {
    const map = createExpiringMap<number>({ ttlMs: 100, maxKeys: 10 });
    map.set('a', 1, 0);
    map.set('b', 2, 10);
    map.set('c', 3, 200);
    expect(map.get('c', 200)).toBe(3);
    expect(map.size).toBe(1);
  });

  it('past maxKeys the least recently set entry is dropped', () => {
    const map = createExpiringMap<number>({ ttlMs: 1000, maxKeys: 2 });
    map.set('a', 1, 0);
    map.set('b', 2, 1);
    map.set('a', 10, 2); // a is now the most recent
    map.set('c', 3, 3);
    expect(map.size).toBe(2);
    expect(map.get('b', 4)).toBeUndefined();
    expect(map.get('a', 4)).toBe(10);
    expect(map.get('c', 4)).toBe(3);
  });

  it('delete removes an entry', () => {
    const map = createExpiringMap<string>({ ttlMs: 1000, maxKeys: 2 });
    map.set('a', 'x', 0);
    expect(map.delete('a')).toBe(true);
    expect(map.get('a', 1)).toBeUndefined();
    expect(map.delete('a')).toBe(false);
  });
});
