import { AppError } from './errors.js';

/**
 * A fixed-window counter per key (client address, token id…), kept in this process.
 * Enough for one node; several API nodes each count on their own, which at worst multiplies
 * the limit by the number of nodes (noted in docs/decisions.md).
 */
export interface RateLimiter {
  /** Counts one hit; throws 429 RATE_LIMITED with Retry-After when over the limit. */
  hit(key: string): void;
}

export function createRateLimiter(options: { max: number; windowMs: number; what: string }): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();

  function prune(now: number): void {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }

  return {
    hit(key) {
      const now = Date.now();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        if (windows.size > 50_000) prune(now);
        window = { count: 0, resetAt: now + options.windowMs };
        windows.set(key, window);
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
