// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.js';
import { ACCOUNT_FREE_FAILURES, createPasswordAttemptLimiter, FREE_FAILURES, lockDurationMs, MAX_LOCK_MS } from './accounts.attempts.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** The 429 a reservation throws, or undefined when it was allowed. */
async function refusal(fn: () => Promise<unknown>): Promise<AppError | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

const A = '203.0.113.5';
const B = '198.51.100.7';

describe('lockDurationMs', () => {
  it('is free up to the fifth failure, then doubles from 1 s up to 15 minutes', async () => {
    expect([1, 4].map((n) => lockDurationMs(n))).toEqual([0, 0]);
    expect([5, 6, 7, 10].map((n) => lockDurationMs(n))).toEqual([1000, 2000, 4000, 32_000]);
    expect(lockDurationMs(20)).toBe(MAX_LOCK_MS);
    expect(lockDurationMs(10_000)).toBe(MAX_LOCK_MS);
  });
});

describe('createPasswordAttemptLimiter', () => {
  it('counts an attempt when it is reserved, before any password is checked: the sixth reservation in a row waits', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    // Five reservations, none settled yet (their password checks still running).
    for (let i = 1; i <= FREE_FAILURES; i++) expect((await limiter.reserve('a@example.test', A)).failures).toBe(i);
    const refused = await refusal(() => limiter.reserve('a@example.test', A));
    expect(refused?.code).toBe('RATE_LIMITED');
    expect(refused?.headers).toEqual({ 'Retry-After': '1' });
    expect(refused?.message).toMatch(/try again in 1 s/);

    // After the wait exactly one more is let through, and the next wait doubles.
    c.advance(1000);
    expect((await limiter.reserve('a@example.test', A)).failures).toBe(6);
    expect((await refusal(() => limiter.reserve('a@example.test', A)))?.headers).toEqual({ 'Retry-After': '2' });
  });

  it('reservations sent at once are counted one after another: five pass, the rest wait', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => limiter.reserve('a@example.test', A)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(FREE_FAILURES);
  });

  it('a right password clears only its own address: the attacker elsewhere stays slowed', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    for (let i = 0; i < 8; i++) {
      c.advance(MAX_LOCK_MS);
      await limiter.reserve('a@example.test', A);
    }
    expect((await refusal(() => limiter.reserve('a@example.test', A)))?.code).toBe('RATE_LIMITED');
    // The owner, on another address, is not slowed by the attacker at all.
    const owner = await limiter.reserve('a@example.test', B);
    expect(owner.failures).toBe(1);
    await owner.succeeded();
    expect((await refusal(() => limiter.reserve('a@example.test', A)))?.code).toBe('RATE_LIMITED');
    // The owner's own failures started again from nothing.
    for (let i = 1; i <= 4; i++) expect((await limiter.reserve('a@example.test', B)).failures).toBe(i);
  });

  it('a success clears the consecutive failures of its address', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    for (let i = 0; i < 4; i++) await limiter.reserve('a@example.test', A);
    await (await limiter.reserve('a@example.test', A)).succeeded();
    for (let i = 1; i <= FREE_FAILURES; i++) expect((await limiter.reserve('a@example.test', A)).failures).toBe(i);
  });

  it('one address can never reach the account ceiling alone, however long it keeps guessing', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1_000_000, now: c.now });
    for (let i = 0; i < 200; i++) {
      c.advance(MAX_LOCK_MS);
      await limiter.reserve('a@example.test', A);
    }
    // An address that never logged in to the account is still let in.
    expect(await refusal(() => limiter.reserve('a@example.test', '192.0.2.99'))).toBeUndefined();
  });

  it('past the account ceiling (several addresses guessing), new addresses share one slowdown; addresses the owner succeeded from are exempt', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    await (await limiter.reserve('a@example.test', B)).succeeded();
    const attackers = Array.from({ length: ACCOUNT_FREE_FAILURES / FREE_FAILURES }, (_, i) => `192.0.2.${i + 1}`);
    for (const address of attackers) for (let i = 0; i < FREE_FAILURES; i++) await limiter.reserve('a@example.test', address);

    const fresh = await refusal(() => limiter.reserve('a@example.test', '192.0.2.200'));
    expect(fresh?.code).toBe('RATE_LIMITED');
    expect(Number(fresh?.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    // The address the owner logged in from is not affected.
    expect(await refusal(() => limiter.reserve('a@example.test', B))).toBeUndefined();
    // Another account is not affected either.
    expect(await refusal(() => limiter.reserve('b@example.test', '192.0.2.200'))).toBeUndefined();
    // Once the shared wait has passed, one untrusted attempt goes through and re-arms it.
    c.advance(MAX_LOCK_MS);
    expect(await refusal(() => limiter.reserve('a@example.test', '192.0.2.201'))).toBeUndefined();
    expect((await refusal(() => limiter.reserve('a@example.test', '192.0.2.202')))?.code).toBe('RATE_LIMITED');
  });

  it('limits password checks per address over every account', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 3, now: c.now });
    await limiter.reserve('a@example.test', A);
    await limiter.reserve('b@example.test', A);
    await limiter.reserve('c@example.test', A);
    const refused = await refusal(() => limiter.reserve('d@example.test', A));
    expect(refused?.code).toBe('RATE_LIMITED');
    expect(refused?.message).toMatch(/from this address/);
    expect(await refusal(() => limiter.reserve('d@example.test', B))).toBeUndefined();
    c.advance(60_000);
    expect(await refusal(() => limiter.reserve('d@example.test', A))).toBeUndefined();
  });

  it('a refused attempt changes no counter', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    for (let i = 0; i < FREE_FAILURES; i++) await limiter.reserve('a@example.test', A);
    for (let i = 0; i < 50; i++) await refusal(() => limiter.reserve('a@example.test', A));
    c.advance(1000);
    expect((await limiter.reserve('a@example.test', A)).failures).toBe(FREE_FAILURES + 1);
  });

  it('forgets counters left alone for a day', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1000, now: c.now });
    for (let i = 0; i < 7; i++) {
      c.advance(MAX_LOCK_MS);
      await limiter.reserve('a@example.test', A);
    }
    c.advance(24 * 3_600_000 + 1);
    expect((await limiter.reserve('a@example.test', A)).failures).toBe(1);
  });

  it('security: keeps a bounded number of counters whatever the emails and addresses', async () => {
    const c = clock();
    const limiter = createPasswordAttemptLimiter({ perAddressPerMinute: 1_000_000, now: c.now, maxKeys: 500 });
    for (let i = 0; i < 5_000; i++) await (await limiter.reserve(`u${i}@example.test`, `10.0.${i >> 8}.${i & 255}`)).succeeded();
    expect(limiter.size).toBeLessThanOrEqual(4 * 500);
  });
});
