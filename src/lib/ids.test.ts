// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { idMaker, newId, ulid } from './ids.js';

describe('ulid', () => {
  it('draws fresh randomness for every new millisecond, across many refills of its pool', () => {
    const start = Date.now() + 1_000_000;
    const ids = Array.from({ length: 5_000 }, (_, i) => ulid(start + i));
    const randomParts = new Set(ids.map((id) => id.slice(10)));
    expect(randomParts.size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('still increases within one millisecond, and after it', () => {
    const now = Date.now() + 2_000_000;
    const ids = [ulid(now), ulid(now), ulid(now), ulid(now + 1)];
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
  });

  it('encodes the 80 random bits exactly: within a millisecond each id is the previous one plus one', () => {
    const now = Date.now() + 3_000_000;
    const value = (id: string) => [...id.slice(10)].reduce((n, c) => n * 32n + BigInt('0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c)), 0n);
    let previous = value(ulid(now));
    // Enough steps to carry out of the lowest byte several times.
    for (let i = 0; i < 1_000; i++) {
      const next = value(ulid(now));
      expect(next - previous).toBe(1n);
      previous = next;
    }
    expect(previous).toBeLessThan(2n ** 80n);
  });

  it('makes prefixed ids', () => {
    expect(newId('req')).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('makes ids with a fixed prefix as newId does, each new and in order', () => {
    const next = idMaker('req');
    const ids = Array.from({ length: 2_000 }, () => next());
    expect(ids.every((id) => /^req_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // Ids of either kind, made one after the other, share one sequence.
    const mixed = [next().slice(4), ulid(), newId('req').slice(4), next().slice(4)];
    expect([...mixed].sort()).toEqual(mixed);
  });

  it('refuses a prefix that is not lower-case letters', () => {
    expect(() => idMaker('Req')).toThrow(/lower-case letters/);
    expect(() => idMaker('')).toThrow(/lower-case letters/);
  });
});
