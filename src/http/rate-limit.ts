import { isIPv4, isIPv6 } from 'node:net';
import { AppError } from './errors.js';
import { createExpiringMap } from '../lib/expiring-map.js';

/**
 * A fixed-window counter per key (client address, token id…), kept in this process.
 * Enough for one node; several API nodes each count on their own, which at worst multiplies
 * the limit by the number of nodes (noted in docs/decisions.md).
 * Keys come from callers (addresses, token ids), so the table is bounded: expired windows are
 * dropped as new ones open, and past `maxKeys` the oldest window is dropped.
 */
export interface RateLimiter {
  /** Counts one hit; throws 429 RATE_LIMITED with Retry-After when over the limit. */
  hit(key: string): void;
  /** How many windows are kept (for tests and metrics). */
  readonly size: number;
}

/** The most windows a limiter keeps: about 10 MB of keys and counters. */
export const RATE_LIMIT_MAX_KEYS = 100_000;

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

export function createRateLimiter(options: {
  max: number;
  windowMs: number;
  what: string;
  maxKeys?: number;
  /** The clock (milliseconds); Date.now unless a caller keeps its own time. */
  now?: () => number;
}): RateLimiter {
  const maxKeys = options.maxKeys ?? RATE_LIMIT_MAX_KEYS;
  const clock = options.now ?? (() => Date.now());
  // A window is kept for as long as it lasts: set when it opens, it expires when it ends.
  const windows = createExpiringMap<{ count: number; resetAt: number }>({ ttlMs: options.windowMs, maxKeys });

  return {
    get size() {
      return windows.size;
    },
    hit(key) {
      const now = clock();
      let window = windows.get(key, now);
      if (!window) {
        window = { count: 0, resetAt: now + options.windowMs };
        windows.set(key, window, now);
      }
      window.count += 1;
      if (window.count > options.max) {
        const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
        throw new AppError('RATE_LIMITED', `Too many ${options.what}; try again in ${retryAfter} s`, {
          headers: { 'Retry-After': String(retryAfter) },
          details: { retryAfterSeconds: retryAfter },
        });
      }
    },
  };
}
