import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientKey, createApproximateRateLimiter, createRateLimiter, RATE_LIMIT_MAX_KEYS } from './rate-limit.js';

describe('clientKey', () => {
  it('keys IPv6 addresses by their /64, IPv4 (and IPv4-mapped) addresses as they are', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:DB8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::ffff:1')).toBe(clientKey('2001:db8:1:2:0:0:0:1'));
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey(undefined)).toBe('unknown');
  });
});

describe('createRateLimiter', () => {
  afterEach(() => void vi.useRealTimers());

  it('security: the table of windows is capped; past the cap the oldest window goes', async () => {
    const limiter = createRateLimiter({ max: 1, windowMs: 60_000, what: 'tries', maxKeys: 1_000 });
    for (let i = 0; i < 5_000; i++) await limiter.hit(`k${i}`);
    expect(limiter.size).toBe(1_000);
    // The newest keys still count; the oldest were dropped.
    await expect(limiter.hit('k4999')).rejects.toThrow(/Too many tries/);
    await expect(limiter.hit('k0')).resolves.toBeUndefined();
    expect(RATE_LIMIT_MAX_KEYS).toBe(100_000);
  });

  it('security: many distinct keys cost no full scans (was one per new key past 50,000)', () => {
    const limiter = createApproximateRateLimiter({ max: 5, windowMs: 60_000, what: 'tries' });
    const started = performance.now();
    for (let i = 0; i < 60_000; i++) limiter.hit(`key-${i}`);
    expect(performance.now() - started).toBeLessThan(500);
    expect(limiter.size).toBe(60_000);
  });

  it('drops expired windows as new ones open', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const limiter = createApproximateRateLimiter({ max: 1, windowMs: 1_000, what: 'tries' });
    for (let i = 0; i < 100; i++) limiter.hit(`k${i}`);
    expect(() => limiter.hit('k5')).toThrow();
    vi.setSystemTime(1_001_500);
    limiter.hit('fresh');
    expect(limiter.size).toBe(1);
    expect(() => limiter.hit('k5')).not.toThrow();
  });
});
