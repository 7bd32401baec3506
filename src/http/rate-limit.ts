import { isIPv4, isIPv6 } from 'node:net';
import { AppError } from './errors.js';
import { createLocalCounters, type SharedCounters } from '../lib/shared-counters.js';

/**
 * A fixed-window counter per key (client address, token id…), counted in the shared counters
 * (storage/shared-counters.ts): with PostgreSQL across every node of the database, with SQLite
 * in this process. Keys come from callers (addresses, token ids), so what a node keeps in memory
 * is bounded (`maxKeys`); the shared table drops ended windows.
 *
 * `createRateLimiter` counts exactly (one round trip per hit with PostgreSQL): for rare,
 * security-relevant routes. `createApproximateRateLimiter` counts on the node and sends its hits
 * in batches: for the hot path (every authenticated request), at the cost of a bounded
 * overshoot (see SharedCounters).
 */
export interface RateLimiter {
  /** Counts one hit; rejects with 429 RATE_LIMITED and Retry-After when over the limit. */
  hit(key: string): Promise<void>;
  /** How many windows this node keeps in memory (for tests and metrics). */
  readonly size: number;
}

export interface ApproximateRateLimiter {
  /** Counts one hit; throws 429 RATE_LIMITED with Retry-After when over the limit. No I/O. */
  hit(key: string): void;
  readonly size: number;
}

/** The most windows a limiter keeps: about 10 MB of keys and counters. */
export const RATE_LIMIT_MAX_KEYS = 100_000;

export interface RateLimiterOptions {
  max: number;
  windowMs: number;
  what: string;
  /**
   * Where hits are counted; without it, a counter of this limiter's own in this process.
   * Shared counters hold many limiters' keys: `name` keeps them apart.
   */
  counters?: SharedCounters;
  /** The prefix of this limiter's keys in shared counters (a short word); `what` by default. */
  name?: string;
  maxKeys?: number;
  /** The clock (milliseconds); Date.now unless a caller keeps its own time. */
  now?: () => number;
}

function tooMany(what: string, resetAt: number, now: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  return new AppError('RATE_LIMITED', `Too many ${what}; try again in ${retryAfter} s`, {
    headers: { 'Retry-After': String(retryAfter) },
    details: { retryAfterSeconds: retryAfter },
  });
}

function countersOf(options: RateLimiterOptions): { counters: SharedCounters; prefix: string; clock: () => number } {
  const clock = options.now ?? (() => Date.now());
  const counters = options.counters ?? createLocalCounters({ maxKeys: options.maxKeys ?? RATE_LIMIT_MAX_KEYS, now: clock });
  return { counters, prefix: `rl:${options.name ?? options.what}:`, clock };
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { counters, prefix, clock } = countersOf(options);
  return {
    get size() {
      return counters.size;
    },
    async hit(key) {
      const window = await counters.add(prefix + key, 1, options.windowMs);
      if (window.count > options.max) throw tooMany(options.what, window.resetAt, clock());
    },
  };
}

export function createApproximateRateLimiter(options: RateLimiterOptions): ApproximateRateLimiter {
  const { counters, prefix, clock } = countersOf(options);
  return {
    get size() {
      return counters.size;
    },
    hit(key) {
      const now = clock();
      const window = counters.hit(prefix + key, 1, options.windowMs, now);
      if (window.count > options.max) throw tooMany(options.what, window.resetAt, now);
    },
  };
}

/** The eight 16-bit groups of an IPv6 address, or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address.split('%')[0]!.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) as two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The rate-limit key of a client address: an IPv4 address as it is, an IPv6 address by its /64
 * (one subscriber's network: a host has all 2^64 addresses of it, so counting each address
 * apart would be no limit at all), an IPv4-mapped IPv6 address as the IPv4 address.
 */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  if (isIPv4(ip) || !isIPv6(ip.split('%')[0]!)) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
