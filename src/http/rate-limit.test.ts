// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { afterEach, describe, expect, it, vi } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../config.js';
import { createLocalCounters, type SharedCounters } from '../lib/shared-counters.js';
import { registerErrorHandling } from './errors.js';
import {
  clientKey,
  createApproximateRateLimiter,
  createRateLimiter,
  PASSWORD_ATTEMPTS,
  RATE_LIMIT_MAX_KEYS,
  registerRateLimits,
  type CountedRateLimit,
} from './rate-limit.js';

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

describe('registerRateLimits: the one hook behind config.rateLimit', () => {
  const config = { ...loadConfig({}), authRateLimitPerMinute: 2, tokenRateLimitPerMinute: 50 };
  const perAddress: CountedRateLimit = { name: 'unit-ip', key: 'ip', max: (c) => c.authRateLimitPerMinute, windowMs: 60_000, what: 'tries from this address' };
  const perOwner: CountedRateLimit = { name: 'unit-owner', key: 'owner', max: () => 1, windowMs: 60_000, what: 'tests from this account' };
  let app: FastifyInstance;
  let counters: SharedCounters;

  /**
   * A small app with the pieces the hook stands on: the error handler, and a stand-in for the
   * access control that reads the caller from a header (the real one is tested with every route).
   */
  async function build(routes: (app: FastifyInstance) => void): Promise<FastifyInstance> {
    counters = createLocalCounters();
    const built = Fastify();
    registerErrorHandling(built);
    built.decorateRequest('principal', null);
    built.addHook('onRequest', async (request) => {
      const owner = request.headers['x-owner'];
      if (typeof owner === 'string') {
        request.principal = { tokenId: `tok_${owner}`, ownerId: owner, kind: 'master', allScopes: true, scopes: new Set(), role: 'user', name: 'test', agent: null };
      }
    });
    registerRateLimits(built, { config, counters });
    routes(built);
    await built.ready();
    return built;
  }
  afterEach(async () => app?.close());

  it('counts a declared limit per client address and answers 429 RATE_LIMITED with Retry-After past it', async () => {
    app = await build((a) => a.post('/a', { config: { access: { kind: 'public' }, rateLimit: perAddress } }, async () => ({ ok: true })));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: 'POST', url: '/a', remoteAddress: '203.0.113.7' })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await app.inject({ method: 'POST', url: '/a', remoteAddress: '203.0.113.7' });
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.json()).toMatchObject({ error: 'RATE_LIMITED', message: expect.stringMatching(/^Too many tries from this address; try again in \d+ s$/) });
    // Another address has a window of its own; the key is the one the limiter always used.
    expect((await app.inject({ method: 'POST', url: '/a', remoteAddress: '198.51.100.1' })).statusCode).toBe(200);
    expect((await counters.read(['rl:unit-ip:203.0.113.7'])).get('rl:unit-ip:203.0.113.7')?.count).toBe(4);
  });

  it('shares one counter between routes of one name, kept apart by their key prefix', async () => {
    app = await build((a) => {
      a.post('/x', { config: { access: { kind: 'public' }, rateLimit: { ...perAddress, keyPrefix: 'x:' } } }, async () => ({}));
      a.post('/y', { config: { access: { kind: 'public' }, rateLimit: { ...perAddress, keyPrefix: 'y:' } } }, async () => ({}));
    });
    for (const url of ['/x', '/x', '/y', '/y']) expect((await app.inject({ method: 'POST', url })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/x' })).statusCode).toBe(429);
    expect((await app.inject({ method: 'POST', url: '/y' })).statusCode).toBe(429);
  });

  it('counts per owner once the caller is known, before the body is read', async () => {
    app = await build((a) => a.post('/t', { config: { access: { kind: 'owner' }, rateLimit: perOwner }, schema: { body: { type: 'object', required: ['n'] } } }, async () => ({})));
    const send = (owner: string, body: unknown) => app.inject({ method: 'POST', url: '/t', headers: { 'x-owner': owner }, payload: body as object });
    expect((await send('own_a', { n: 1 })).statusCode).toBe(200);
    // Refused before validation: the limit is counted before anything else the route does.
    expect((await send('own_a', {})).statusCode).toBe(429);
    expect((await send('own_b', { n: 1 })).statusCode).toBe(200);
  });

  it('counts a limit that depends on the body only for the requests it names', async () => {
    const when = { bodyField: 'decision', equals: 'console' };
    app = await build((a) => a.post('/f', { config: { access: { kind: 'public' }, rateLimit: { ...perAddress, when } } }, async () => ({})));
    for (let i = 0; i < 5; i++) expect((await app.inject({ method: 'POST', url: '/f', payload: { decision: 'approve' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/f', payload: { decision: 'console' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/f', payload: { decision: 'console' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/f', payload: { decision: 'console' } })).statusCode).toBe(429);
  });

  it('counts nothing for a limit its service applies, and shows every limit on the route', async () => {
    let schema: Record<string, unknown> = {};
    app = await build((a) => {
      a.addHook('onRoute', (route) => {
        if (route.url === '/p') schema = route.schema as Record<string, unknown>;
      });
      a.post('/p', { config: { access: { kind: 'owner' }, rateLimit: [PASSWORD_ATTEMPTS, perOwner] } }, async () => ({}));
    });
    expect(schema['x-rate-limit']).toEqual([
      { name: 'password-attempts', key: 'ip+account', max: 2, windowSeconds: 60, counting: 'exact', appliedBy: 'service' },
      { name: 'unit-owner', key: 'owner', max: 1, windowSeconds: 60, counting: 'exact', appliedBy: 'route' },
      // Every route that takes a token meets the per-token default.
      { name: 'token', key: 'token', max: 50, windowSeconds: 60, counting: 'approximate', appliedBy: 'default' },
    ]);
    expect((await app.inject({ method: 'POST', url: '/p', headers: { 'x-owner': 'own_a' } })).statusCode).toBe(200);
    // Only the per-owner window: the password attempts are the service's to count.
    expect(counters.size).toBe(1);
  });

  it('refuses to start on a declaration it cannot enforce', async () => {
    const noop = async () => ({});
    await expect(build((a) => a.post('/pub', { config: { access: { kind: 'public' }, rateLimit: perOwner } }, noop))).rejects.toThrow(
      /is public but counts unit-owner per owner/,
    );
    await expect(
      build((a) => {
        a.post('/one', { config: { access: { kind: 'public' }, rateLimit: perAddress } }, noop);
        a.post('/two', { config: { access: { kind: 'public' }, rateLimit: { ...perAddress, max: () => 99 } } }, noop);
      }),
    ).rejects.toThrow(/declared twice with different numbers/);
  });
});
