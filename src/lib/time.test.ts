// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow, isoNowOrdered } from './time.js';

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

describe('isoNow', () => {
  afterEach(() => vi.useRealTimers());

  it('answers the clock of the moment, also when it moves back or forth by a millisecond', () => {
    vi.useFakeTimers();
    for (const at of ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.001Z', '2026-03-01T10:00:00.001Z', '2026-03-01T10:00:00.000Z', '2031-12-31T23:59:59.999Z']) {
      vi.setSystemTime(new Date(at));
      expect(isoNow()).toBe(at);
    }
  });
});
