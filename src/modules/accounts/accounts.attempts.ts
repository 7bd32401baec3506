import { AppError } from '../../http/errors.js';
import { createRateLimiter, RATE_LIMIT_MAX_KEYS } from '../../http/rate-limit.js';
import { createExpiringMap } from '../../lib/expiring-map.js';

/**
 * The limiter in front of every password check (login, replacing the master token from a login
 * session, binding a vault secret off its site from a login session).
 *
 * An attempt is reserved, and counted as a failure, in one synchronous step before the password
 * hash runs: requests sent in parallel cannot all pass the check before any of them is counted.
 * A right password then takes its failure back. Three counters, all in this process (as every
 * rate limit is; several API nodes each count on their own):
 *
 * - per account and address: after `freeFailures` consecutive failures from one address, each
 *   further attempt from it on that account waits 1 s, 2 s, 4 s… up to `maxLockMs`. Keyed by the
 *   address, so an attacker slows only themself, never the owner on another address.
 * - per account, for addresses that have not recently logged in to it: each address counts at
 *   most its first `freeFailures` failures there, so one address can never reach the ceiling
 *   alone; once `accountFreeFailures` are counted (several addresses guessing together), every
 *   address the account has not recently succeeded from shares one slowdown. The addresses that
 *   succeeded within `trustMs` are not affected, so a distributed guess does not lock the owner
 *   out where they usually log in.
 * - per address, over every account: at most `perAddressPerMinute` password checks a minute.
 *
 * Accounts are keyed by their normalised email, whether or not it exists, so an unknown email is
 * counted and answered exactly like a known one (no account enumeration through the slowdown).
 */
export interface PasswordAttemptOptions {
  /** Password checks per client address per minute, over every account (AUTH_RATE_LIMIT). */
  perAddressPerMinute: number;
  freeFailures?: number;
  accountFreeFailures?: number;
  maxLockMs?: number;
  trustMs?: number;
  /** A counter with no attempt for this long is forgotten. */
  forgetAfterMs?: number;
  maxKeys?: number;
  now?: () => number;
}

/** One reserved attempt; it already counts as a failure. */
export interface PasswordAttempt {
  /** Consecutive failures from this address on this account, this attempt included. */
  readonly failures: number;
  /**
   * Which slowdown this attempt starts if it fails: `address` when it is this address's first
   * failure past the free ones on the account, `account` when it brings the account's shared
   * count to its ceiling; null otherwise. Each is started once per streak (until a success, or
   * a day without attempts), so whoever reports it does so at most once per streak.
   */
  readonly startsSlowdown: 'address' | 'account' | null;
  /** The password was right: clears this address's failures on the account and trusts the address for it. */
  succeeded(): void;
}

export interface PasswordAttemptLimiter {
  /**
   * Reserves one password check of `account` (a normalised email) from `address` (a client
   * key); throws 429 RATE_LIMITED with Retry-After when it must wait. Synchronous on purpose.
   */
  reserve(account: string, address: string): PasswordAttempt;
}

export const FREE_FAILURES = 5;
export const ACCOUNT_FREE_FAILURES = 20;
export const MAX_LOCK_MS = 15 * 60_000;
const TRUST_MS = 30 * 24 * 3_600_000;
const FORGET_AFTER_MS = 24 * 3_600_000;

/** How long to wait after the `failures`th consecutive failure: 0 before `free`, then 1 s, 2 s, 4 s… up to `maxMs`. */
export function lockDurationMs(failures: number, free = FREE_FAILURES, maxMs = MAX_LOCK_MS): number {
  if (failures < free) return 0;
  return Math.min(1000 * 2 ** Math.min(failures - free, 30), maxMs);
}

interface Counter {
  failures: number;
  lockedUntil: number;
}

function tooMany(waitMs: number, text: string): AppError {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError('RATE_LIMITED', `${text}; try again in ${retryAfter} s`, {
    headers: { 'Retry-After': String(retryAfter) },
    details: { retryAfterSeconds: retryAfter },
  });
}

export function createPasswordAttemptLimiter(options: PasswordAttemptOptions): PasswordAttemptLimiter & { readonly size: number } {
  const free = options.freeFailures ?? FREE_FAILURES;
  const accountFree = options.accountFreeFailures ?? ACCOUNT_FREE_FAILURES;
  const maxLockMs = options.maxLockMs ?? MAX_LOCK_MS;
  const trustMs = options.trustMs ?? TRUST_MS;
  const maxKeys = options.maxKeys ?? RATE_LIMIT_MAX_KEYS;
  const clock = options.now ?? (() => Date.now());
  // Counters are forgotten after forgetAfterMs without an attempt; trust lasts trustMs from the last success.
  const forgetAfterMs = options.forgetAfterMs ?? FORGET_AFTER_MS;
  const streaks = createExpiringMap<Counter>({ ttlMs: forgetAfterMs, maxKeys });
  const accounts = createExpiringMap<Counter>({ ttlMs: forgetAfterMs, maxKeys });
  const trusted = createExpiringMap<true>({ ttlMs: trustMs, maxKeys });
  const perAddress = createRateLimiter({
    max: options.perAddressPerMinute,
    windowMs: 60_000,
    what: 'password attempts from this address',
    maxKeys,
    now: clock,
  });

  const accountLocked = 'Too many failed password attempts for this account';

  return {
    get size() {
      return streaks.size + accounts.size + trusted.size + perAddress.size;
    },

    reserve(account, address) {
      const now = clock();
      // An address never holds a newline, so the last one splits the pair unambiguously
      // whatever an unknown "email" holds.
      const pairKey = `${account}\n${address}`;

      // First every check, then every count: a refused attempt changes nothing.
      const streak = streaks.get(pairKey, now);
      if (streak && streak.lockedUntil > now) throw tooMany(streak.lockedUntil - now, accountLocked);
      const known = trusted.get(pairKey, now) === true;
      const shared = accounts.get(account, now);
      if (!known && shared && shared.failures >= accountFree && shared.lockedUntil > now) {
        throw tooMany(shared.lockedUntil - now, accountLocked);
      }
      perAddress.hit(address);

      // Counted as a failure now, before any hashing; a right password takes it back.
      const mine = streak ?? { failures: 0, lockedUntil: 0 };
      mine.failures += 1;
      mine.lockedUntil = now + lockDurationMs(mine.failures, free, maxLockMs);
      streaks.set(pairKey, mine, now);
      // The account counter this attempt added a failure to, taken back on success.
      let added: Counter | undefined;
      let startsSlowdown: PasswordAttempt['startsSlowdown'] = mine.failures === free ? 'address' : null;
      if (!known) {
        const all = shared ?? { failures: 0, lockedUntil: 0 };
        // One address adds at most its free failures: alone it can never reach the ceiling.
        if (mine.failures <= free) {
          all.failures += 1;
          added = all;
        }
        if (all.failures >= accountFree) all.lockedUntil = now + lockDurationMs(free + all.failures - accountFree, free, maxLockMs);
        if (added && all.failures === accountFree) startsSlowdown = 'account';
        if (added || shared) accounts.set(account, all, now);
      }

      let settled = false;
      return {
        failures: mine.failures,
        startsSlowdown,
        succeeded() {
          if (settled) return;
          settled = true;
          const at = clock();
          // Only this address's streak, and the one failure this attempt added to the account:
          // whoever guesses from elsewhere stays counted.
          streaks.delete(pairKey);
          if (added && added.failures > 0) added.failures -= 1;
          trusted.set(pairKey, true, at);
        },
      };
    },
  };
}
