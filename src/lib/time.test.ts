import { describe, expect, it } from 'vitest';
import { isoNowOrdered } from './time.js';

describe('isoNowOrdered', () => {
  it('answers times that always increase, even many within one millisecond, and stay near the clock', () => {
    const before = Date.now();
    const times = Array.from({ length: 50 }, () => isoNowOrdered());
    for (let i = 1; i < times.length; i++) expect(times[i]! > times[i - 1]!).toBe(true);
    // Fixed-width ISO strings: their order is the time order.
    expect(times.every((t) => t.length === 24)).toBe(true);
    expect(Date.parse(times[0]!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(times.at(-1)!)).toBeLessThanOrEqual(Date.now() + times.length);
  });
});
