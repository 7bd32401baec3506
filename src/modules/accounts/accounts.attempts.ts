import { AppError } from '../../http/errors.js';
import { createRateLimiter, RATE_LIMIT_MAX_KEYS } from '../../http/rate-limit.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { createLocalCounters, type SharedCounters } from '../../lib/shared-counters.js';

/**
 * The limiter in front of every password check (login, replacing the master token from a login
 * session, binding a vault secret off its site from a login session).
 *
 * An attempt is reserved, and counted as a failure, before the password hash runs; a right
 * password then takes its failure back. The counters are the shared ones (lib/shared-counters.ts):
 * with PostgreSQL every node of the database counts the same failures, locks and trusted
 * addresses, so the slowdown and the `login.failed` event it starts are the cluster's, not one
 * node's. Reservations of one account on one node run one after another, so requests sent in
 * parallel to a node cannot all pass the check before any of them is counted; across nodes,
 * requests reaching different nodes within the same few milliseconds can each pass one check
 * (at most one extra attempt per node per lock), and every one of them is still counted.
 * Three counters:
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
  /** Where the counts live (shared by the nodes with PostgreSQL); a counter of its own in this process by default. */
  counters?: SharedCounters;
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
  succeeded(): Promise<void>;
}

export interface PasswordAttemptLimiter {
  /**
   * Reserves one password check of `account` (a normalised email) from `address` (a client
   * key); rejects with 429 RATE_LIMITED and Retry-After when it must wait.
   */
  reserve(account: string, address: string): Promise<PasswordAttempt>;
  /**
   * The owner proved who they are another way from `address` (a password reset link): as after a
   * right password there, the address's failures on `account` are forgotten and it is trusted
   * for it, so the new password signs in at once where the forgotten one was being tried.
   */
  forgive(account: string, address: string): Promise<void>;
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
  // Counters are forgotten after forgetAfterMs without an attempt (sliding windows); locks and
  // trust are windows that end when they do.
  const forgetAfterMs = options.forgetAfterMs ?? FORGET_AFTER_MS;
  const counters = options.counters ?? createLocalCounters({ maxKeys: 4 * maxKeys, now: clock });
  const perAddress = createRateLimiter({
    max: options.perAddressPerMinute,
    windowMs: 60_000,
    what: 'password attempts from this address',
    name: 'pw-address',
    counters,
    now: clock,
  });
  // Reservations of one account on this node, one after another (see above); an entry lives
  // while a reservation of its account is under way.
  const queues = new Map<string, Promise<unknown>>();
  function serialised<T>(account: string, step: () => Promise<T>): Promise<T> {
    const before = queues.get(account) ?? Promise.resolve();
    const mine = before.then(step, step);
    const tail = ignoreFailure(mine, 'the step\'s caller sees its failure; the next step in the queue runs all the same');
    queues.set(account, tail);
    void tail.then(() => {
      if (queues.get(account) === tail) queues.delete(account);
    });
    return mine;
  }

  const accountLocked = 'Too many failed password attempts for this account';

  async function reserveNow(account: string, address: string): Promise<PasswordAttempt> {
    // An address never holds a newline, so the last one splits the pair unambiguously
    // whatever an unknown "email" holds.
    const pair = `${account}\n${address}`;
    const keys = {
      streak: `pw:streak:${pair}`,
      lock: `pw:lock:${pair}`,
      trust: `pw:trust:${pair}`,
      account: `pw:account:${account}`,
      accountLock: `pw:account-lock:${account}`,
    };

    // First every check, then every count: a refused attempt changes nothing.
    const seen = await counters.read([keys.lock, keys.trust, keys.account, keys.accountLock]);
    const now = clock();
    const lock = seen.get(keys.lock);
    if (lock) throw tooMany(lock.resetAt - now, accountLocked);
    const known = seen.has(keys.trust);
    const accountLock = seen.get(keys.accountLock);
    if (!known && accountLock) throw tooMany(accountLock.resetAt - now, accountLocked);
    await perAddress.hit(address);

    // Counted as a failure now, before any hashing; a right password takes it back.
    const failures = (await counters.add(keys.streak, 1, forgetAfterMs, { sliding: true })).count;
    const lockMs = lockDurationMs(failures, free, maxLockMs);
    if (lockMs > 0) await counters.add(keys.lock, 0, lockMs, { sliding: true });
    let startsSlowdown: PasswordAttempt['startsSlowdown'] = failures === free ? 'address' : null;
    // Whether this attempt added a failure to the account, taken back on success.
    let added = false;
    if (!known) {
      // One address adds at most its free failures: alone it can never reach the ceiling.
      let all = seen.get(keys.account)?.count ?? 0;
      if (failures <= free) {
        all = (await counters.add(keys.account, 1, forgetAfterMs, { sliding: true })).count;
        added = true;
      }
      if (all >= accountFree) {
        await counters.add(keys.accountLock, 0, lockDurationMs(free + all - accountFree, free, maxLockMs), { sliding: true });
      }
      // Exactly one attempt, on whichever node, brings the shared count to the ceiling.
      if (added && all === accountFree) startsSlowdown = 'account';
    }

    let settled = false;
    return {
      failures,
      startsSlowdown,
      async succeeded() {
        if (settled) return;
        settled = true;
        // Only this address's streak, and the one failure this attempt added to the account:
        // whoever guesses from elsewhere stays counted.
        await counters.delete(keys.streak);
        await counters.delete(keys.lock);
        if (added) {
          const left = await counters.add(keys.account, -1, forgetAfterMs);
          if (left.count < 0) await counters.add(keys.account, -left.count, forgetAfterMs);
        }
        await counters.add(keys.trust, 0, trustMs, { sliding: true });
      },
    };
  }

  return {
    get size() {
      return counters.size;
    },
    reserve(account, address) {
      return serialised(account, () => reserveNow(account, address));
    },
    forgive(account, address) {
      const pair = `${account}\n${address}`;
      return serialised(account, async () => {
        await counters.delete(`pw:streak:${pair}`);
        await counters.delete(`pw:lock:${pair}`);
        await counters.add(`pw:trust:${pair}`, 0, trustMs, { sliding: true });
      });
    },
  };
}
