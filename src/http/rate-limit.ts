import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
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

/**
 * What a declared limit counts per: the client's address (`clientKey`), the calling token, or
 * the owner the calling token belongs to (every token of one account together).
 */
export type RateLimitKey = 'ip' | 'token' | 'owner';

/**
 * A rate limit declared on a route (`config.rateLimit`), next to its access rule: a fixed window
 * per key, counted exactly in the shared counters (across nodes with PostgreSQL), enforced by the
 * one hook `registerRateLimits` installs. Routes that declare the same `name` share one counter;
 * `keyPrefix` keeps their counts apart within it where they must not add up.
 */
export interface CountedRateLimit {
  /** The counter's name: its keys are `rl:<name>:<keyPrefix><key>` in the shared counters. */
  name: string;
  key: RateLimitKey;
  /** Put before the key: the handshake routes share a counter name and count apart (`create:`, `status:`, `claim:`). */
  keyPrefix?: string;
  /** Hits per window, read from the settings once at start (`AUTH_RATE_LIMIT`, …). */
  max: (config: Config) => number;
  windowMs: number;
  /** What is counted, as the 429 says it: "Too many <what>; try again in 12 s". */
  what: string;
  /**
   * Counted only for requests whose body field has this value (the consent form sent to the
   * console stores a waiting request, a sign-in does not); checked once the body is validated.
   */
  when?: { bodyField: string; equals: string };
}

/**
 * A limit whose rule is more than a count per key per window, applied by the route's service
 * where it does the work the limit guards: the password attempt limiter
 * (modules/accounts/accounts.attempts.ts) reserves an attempt before the hash runs and takes it
 * back when the password was right, which a hook in front of the handler cannot do. Declared so
 * the route still says which limit applies, and the OpenAPI document and the route walk see it;
 * the hook counts nothing for it.
 */
export interface ServiceRateLimit {
  name: string;
  /** Per client address and per account (the email sent, or the owner whose password is checked). */
  key: 'ip+account';
  appliedBy: 'service';
  max: (config: Config) => number;
  windowMs: number;
  what: string;
}

export type RouteRateLimit = CountedRateLimit | ServiceRateLimit;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's rate limits beyond the per-token default (see registerRateLimits). */
    rateLimit?: RouteRateLimit | readonly RouteRateLimit[];
  }
}

/** A route's declared limits as a list (none, one or several). */
export function rateLimitsOf(config: { rateLimit?: RouteRateLimit | readonly RouteRateLimit[] } | undefined): readonly RouteRateLimit[] {
  const declared = config?.rateLimit;
  if (declared === undefined) return [];
  return Array.isArray(declared) ? declared : [declared as RouteRateLimit];
}

/**
 * The limit every authenticated request meets, whichever route it reaches: `TOKEN_RATE_LIMIT`
 * per token per minute (0: off). It is the default rather than a route's declaration because it
 * is counted where the token is recognised (the access hook, and the front door before Fastify
 * routes the request), approximately and with no I/O: a hook per route would cost the hot path
 * a step it does not need.
 */
export const TOKEN_RATE_LIMIT = {
  name: 'token',
  key: 'token',
  max: (config: Config) => config.tokenRateLimitPerMinute,
  windowMs: 60_000,
  what: 'requests with this token',
} as const satisfies CountedRateLimit;

/**
 * The password attempt limiter's declaration, for every route that checks the account's password
 * (login, the console's session, the OAuth consent and connect pages, replacing the master token,
 * binding a vault token off its site). The limiter lives in the accounts module; the declaration
 * lives here because modules below accounts (tokens) check passwords through it too and may not
 * import it.
 */
export const PASSWORD_ATTEMPTS = {
  name: 'password-attempts',
  key: 'ip+account',
  appliedBy: 'service',
  max: (config: Config) => config.authRateLimitPerMinute,
  windowMs: 60_000,
  what: 'password attempts from this address, with a growing wait after five failures in a row on one account',
} as const satisfies ServiceRateLimit;

/** A declared limit as `/openapi.json` shows it (`x-rate-limit`), with the numbers this server applies. */
export interface RateLimitDescription {
  name: string;
  key: RateLimitKey | 'ip+account';
  max: number;
  windowSeconds: number;
  /** `exact`: every node's hits, one round trip each; `approximate`: counted on the node, sent in batches. */
  counting: 'exact' | 'approximate';
  /** Counted by the hook in front of the handler, or by the service where the work happens. */
  appliedBy: 'route' | 'service' | 'default';
  /** Only requests whose body field has this value are counted. */
  when?: { bodyField: string; equals: string };
}

function describeLimit(rule: RouteRateLimit, config: Config, counting: 'exact' | 'approximate', appliedBy: RateLimitDescription['appliedBy']): RateLimitDescription {
  return {
    name: rule.name,
    key: rule.key,
    max: rule.max(config),
    windowSeconds: rule.windowMs / 1000,
    counting,
    appliedBy,
    ...('when' in rule && rule.when ? { when: rule.when } : {}),
  };
}

function keyOf(rule: CountedRateLimit, request: FastifyRequest): string {
  if (rule.key === 'ip') return clientKey(request.ip);
  // The access hook ran first (an app-wide onRequest hook) and refused a request without a caller.
  const principal = request.principal;
  if (!principal) throw new AppError('UNAUTHORIZED', 'A token is required for this route');
  return rule.key === 'token' ? principal.tokenId : principal.ownerId;
}

/**
 * Enforces every route's declared rate limits with one hook, and shows them in `/openapi.json`
 * (`x-rate-limit`, with the per-token default on every route that takes a token). Registered
 * after the access control (its hook must know the caller) and before any route. The hook is
 * added only to the routes that declare a limit, so the others, the hot reads among them, pay
 * nothing for it.
 *
 * A limit is counted before anything else the route does (its body is not even read), except a
 * limit that depends on the body (`when`), counted once the body is validated.
 */
export function registerRateLimits(app: FastifyInstance, options: { config: Config; counters: SharedCounters }): void {
  const { config, counters } = options;
  // One limiter per counter name; routes sharing a name share its window.
  const limiters = new Map<string, { limiter: RateLimiter; rule: CountedRateLimit }>();
  function limiterFor(rule: CountedRateLimit): RateLimiter {
    const known = limiters.get(rule.name);
    if (known) {
      if (known.rule.max(config) !== rule.max(config) || known.rule.windowMs !== rule.windowMs || known.rule.what !== rule.what) {
        throw new Error(`Rate limit ${rule.name} is declared twice with different numbers or words: give one of them another name`);
      }
      return known.limiter;
    }
    const limiter = createRateLimiter({ max: rule.max(config), windowMs: rule.windowMs, what: rule.what, name: rule.name, counters });
    limiters.set(rule.name, { limiter, rule });
    return limiter;
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    const declared = rateLimitsOf(route.config);
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    const isPublic = route.config?.access?.kind === 'public';
    const shown = declared.map((rule) => describeLimit(rule, config, 'exact', 'appliedBy' in rule ? 'service' : 'route'));
    if (!isPublic && config.tokenRateLimitPerMinute > 0) shown.push(describeLimit(TOKEN_RATE_LIMIT, config, 'approximate', 'default'));
    if (shown.length > 0) schema['x-rate-limit'] = shown;
    if (declared.length === 0) return;
    if (route.config?.prepared !== undefined) {
      // The front door answers prepared routes before Fastify runs any route hook.
      throw new Error(`Route ${String(route.method)} ${route.url} declares a rate limit and a prepared answer: the front door would skip the limit`);
    }

    const counted = declared.filter((rule): rule is CountedRateLimit => !('appliedBy' in rule));
    for (const rule of counted) {
      if (rule.key !== 'ip' && isPublic) {
        throw new Error(`Route ${String(route.method)} ${route.url} is public but counts ${rule.name} per ${rule.key}: a public request may carry no token`);
      }
    }
    const before = counted.filter((rule) => !rule.when).map((rule) => ({ rule, limiter: limiterFor(rule) }));
    const after = counted.filter((rule) => rule.when).map((rule) => ({ rule, limiter: limiterFor(rule) }));
    if (before.length > 0) {
      const hook = async (request: FastifyRequest) => {
        for (const { rule, limiter } of before) await limiter.hit((rule.keyPrefix ?? '') + keyOf(rule, request));
      };
      route.onRequest = [hook, ...(route.onRequest === undefined ? [] : [route.onRequest].flat())];
    }
    if (after.length > 0) {
      const hook = async (request: FastifyRequest) => {
        const body = request.body as Record<string, unknown> | undefined;
        for (const { rule, limiter } of after) {
          if (body?.[rule.when!.bodyField] !== rule.when!.equals) continue;
          await limiter.hit((rule.keyPrefix ?? '') + keyOf(rule, request));
        }
      };
      route.preHandler = [hook, ...(route.preHandler === undefined ? [] : [route.preHandler].flat())];
    }
  });
}
