/**
 * The front door (src/http/front-door.ts): plain GETs of routes with a prepared answer are
 * answered before Fastify routes them; everything else reaches Fastify as before.
 *
 * Over real HTTP, since `inject` calls Fastify's handler directly. Which side answered is seen on
 * Fastify's own diagnostics channel: it publishes each route handler it runs, and the door runs
 * none. Each answer is compared with what the route itself sends.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access, registerAccessControl, type Principal } from '../src/http/access.js';
import { createAnsweredQueries, installFrontDoor, rawQuery } from '../src/http/front-door.js';
import { DiscoveryDocumentSchema, TokenCapabilitiesSchema } from '../src/modules/discovery/discovery.schemas.js';
import { SkillPage, SkillResponse } from '../src/modules/skills/skills.schemas.js';
import { createTestApp, type ApiResponse, type Owner, type TestApp } from './harness.js';

/** Route handlers Fastify ran, counted from its diagnostics channel. */
let handlersRun = 0;
const handlerChannel = tracingChannel('fastify.request.handler');
const countHandler = () => {
  handlersRun += 1;
};

interface Reached {
  status: number;
  /** Header names in the order they were sent. */
  headerNames: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json: any;
  /** Whether a route handler of Fastify's ran for it (false: the front door answered). */
  viaRoute: boolean;
}

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

function reach(base: string, pathname: string, headers: Record<string, string> = {}, body?: string): Promise<Reached> {
  const before = handlersRun;
  return new Promise((resolve, reject) => {
    // The path as given, sent as it is: a URL string would lose what follows a '#'.
    const { hostname, port } = new URL(base);
    const request = http.request({ host: hostname, port, path: pathname, method: 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        resolve({
          status: response.statusCode ?? 0,
          headerNames: response.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase()),
          headers: response.headers,
          body: bytes,
          json: text.length > 0 && String(response.headers['content-type']).includes('json') ? JSON.parse(text) : undefined,
          viaRoute: handlersRun > before,
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Repeats a request until the door answers it: that answer, and how many requests it took. The
 * first request with a token finds it not cached yet, and a write to tokens or owners made just
 * before (creating the token; on PostgreSQL counted a moment after the answer) empties the token
 * cache once more.
 */
async function untilDoorAnswers(base: string, pathname: string, headers: Record<string, string> = {}): Promise<{ answer: Reached; tries: number }> {
  for (let tries = 1; tries <= DOOR_TRIES; tries++) {
    const answer = await reach(base, pathname, headers);
    expect(answer.status).toBe(200);
    if (!answer.viaRoute) return { answer, tries };
    // That write is committed off the request path, and nothing tells when: try again shortly.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`The front door did not answer GET ${pathname} in ${DOOR_TRIES} requests`);
}
/** About 5 ms apart: a second or more for a write made off the request path to commit, on a busy machine. */
const DOOR_TRIES = 200;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** Headers every answer of this server carries, whoever wrote it; the rest are the app's. */
const SERVER_HEADERS = new Set(['date', 'connection', 'keep-alive']);
const appHeaders = (names: string[]) => names.filter((name) => !SERVER_HEADERS.has(name));

beforeAll(() => handlerChannel.start.subscribe(countHandler));
afterAll(() => handlerChannel.start.unsubscribe(countHandler));

describe('the front door', () => {
  let t: TestApp;
  let base: string;
  let owner: Owner;
  let scoped: string;

  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t);
    owner = await t.createOwner();
    scoped = await t.tokenWithScopes(owner, ['memory']);
  });
  afterAll(async () => t.close());

  it('answers the discovery document once the route has made it: the same bytes and headers, with and without the trailing slash', async () => {
    const first = await reach(base, '/api/v1/');
    expect(first.status).toBe(200);
    expect(first.viaRoute).toBe(true);
    const second = await reach(base, '/api/v1/');
    const bare = await reach(base, '/api/v1');
    for (const answer of [second, bare]) {
      expect(answer.viaRoute).toBe(false);
      expect(answer.status).toBe(200);
      expect(answer.body.equals(first.body)).toBe(true);
      expect(answer.headerNames).toEqual(first.headerNames);
      expect(answer.headers['content-type']).toBe(first.headers['content-type']);
      expect(answer.headers['content-length']).toBe(String(first.body.length));
      expect(answer.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    }
    expect(new Set([first, second, bare].map((answer) => answer.headers['x-request-id'])).size).toBe(3);
    expect(appHeaders(first.headerNames)).toEqual(['x-request-id', 'content-type', 'content-length']);
  });

  it("answers a token's capabilities as the route does, for each kind of token", async () => {
    const session = await t.login(owner);
    for (const token of [scoped, owner.token, session]) {
      const routed = await t.request('GET', '/api/v1/tokens/me/capabilities', { token });
      expect(routed.status).toBe(200);
      const { answer } = await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(token));
      expect(answer.body.toString('utf8')).toBe(routed.text);
      expect(appHeaders(answer.headerNames)).toEqual(['x-request-id', 'content-type', 'content-length']);
      expect(answer.headers['content-type']).toBe(routed.headers['content-type']);
      const { answer: slashed } = await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities/', bearer(token));
      expect(slashed.body.equals(answer.body)).toBe(true);
    }
    const answer = await reach(base, '/api/v1/tokens/me/capabilities', bearer(scoped));
    expect(answer.json.data).toMatchObject({ kind: 'api', scopes: ['memory'] });
  });

  it('leaves refusals to the route: no token, an unknown token, a malformed header', async () => {
    const none = await reach(base, '/api/v1/tokens/me/capabilities');
    expect(none.status).toBe(401);
    expect(none.json.error).toBe('UNAUTHORIZED');
    const unknown = await reach(base, '/api/v1/tokens/me/capabilities', bearer(`hth_${randomBytes(24).toString('hex')}`));
    expect(unknown.status).toBe(401);
    expect(unknown.json.message).toMatch(/unknown, revoked or expired/);
    const basic = await reach(base, '/api/v1/tokens/me/capabilities', { authorization: 'Basic dXNlcjpwdw==' });
    expect(basic.status).toBe(401);
    // A public route ignores a token it cannot use, as the route does.
    const discovery = await reach(base, '/api/v1/', bearer('not-a-token'));
    expect(discovery.status).toBe(200);
  });

  it('stops answering for a token the moment it is revoked', async () => {
    const doomed = await t.tokenWithScopes(owner, ['skills']);
    const { answer: before } = await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(doomed));
    const revoked = await t.request('DELETE', `/api/v1/tokens/${before.json.data.tokenId}`, { token: owner.token });
    expect(revoked.status).toBe(200);
    const after = await reach(base, '/api/v1/tokens/me/capabilities', bearer(doomed));
    expect(after.status).toBe(401);
    expect(after.json.error).toBe('UNAUTHORIZED');
  });

  it('answers a skill by its slug once the route has sent it, in any case, and never a stale or foreign one', async () => {
    const skillsToken = await t.tokenWithScopes(owner, ['skills']);
    const created = await t.request('POST', '/api/v1/skills', {
      token: owner.token,
      body: { name: 'door-skill', description: 'Opens doors', category: 'general', scriptContent: 'Step one.' },
    });
    expect(created.status).toBe(201);
    const slug = created.body.data.name as string;
    const bySlug = (value: string) => `/api/v1/skills/_by_slug/${value}`;
    const routed = await t.request('GET', bySlug(slug), { token: skillsToken });
    expect(routed.status).toBe(200);
    const { answer } = await untilDoorAnswers(base, bySlug(slug), bearer(skillsToken));
    expect(answer.body.toString('utf8')).toBe(routed.text);
    expect(appHeaders(answer.headerNames)).toEqual(['x-request-id', 'content-type', 'content-length']);
    // The same cache entry: on PostgreSQL a write's notification may still empty it once more.
    const { answer: upper } = await untilDoorAnswers(base, bySlug(slug.toUpperCase()), bearer(skillsToken));
    expect(upper.body.equals(answer.body)).toBe(true);

    // A changed skill is the route's to answer, with the change.
    const updated = await t.request('PUT', `/api/v1/skills/${created.body.data.id}`, { token: owner.token, body: { description: 'Opens doors quietly' } });
    expect(updated.status).toBe(200);
    const fresh = await reach(base, bySlug(slug), bearer(skillsToken));
    expect(fresh.status).toBe(200);
    expect(fresh.json.data.description).toBe('Opens doors quietly');

    // Another owner with a skill of the same slug gets their own; one without gets 404.
    const other = await t.createOwner();
    const theirs = await t.tokenWithScopes(other, ['skills']);
    await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(theirs));
    const missing = await reach(base, bySlug(slug), bearer(theirs));
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe('NOT_FOUND');
    expect((await t.request('POST', '/api/v1/skills', { token: other.token, body: { name: 'door-skill', description: 'Theirs', category: 'general', scriptContent: 'Other.' } })).status).toBe(201);
    await reach(base, bySlug(slug), bearer(theirs));
    const { answer: own } = await untilDoorAnswers(base, bySlug(slug), bearer(theirs));
    expect(own.json.data.description).toBe('Theirs');
    const { answer: mine } = await untilDoorAnswers(base, bySlug(slug), bearer(skillsToken));
    expect(mine.json.data.description).toBe('Opens doors quietly');

    // A token without the scope is refused by the route; an escaped or odd segment is the router's.
    const memoryOnly = await reach(base, bySlug(slug), bearer(scoped));
    expect(memoryOnly.status).toBe(403);
    expect(memoryOnly.json.error).toBe('INSUFFICIENT_SCOPE');
    const escaped = await reach(base, bySlug(slug.replace('d', '%64')), bearer(skillsToken));
    expect([escaped.status, escaped.viaRoute]).toEqual([200, true]);
    expect(escaped.json.data.description).toBe('Opens doors quietly');
    const slashed = await reach(base, `${bySlug(slug)}/`, bearer(skillsToken));
    expect([slashed.status, slashed.viaRoute]).toEqual([200, true]);
    const long = await reach(base, bySlug('a'.repeat(300)), bearer(skillsToken));
    expect(long.status).toBe(400);
  });

  it('answers a search asked again word for word, for its owner, while the skills are unchanged', async () => {
    const skillsToken = await t.tokenWithScopes(owner, ['skills']);
    for (const name of ['lantern-one', 'lantern-two']) {
      const made = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name, description: 'Lanternfish care', category: 'general', scriptContent: 'Feed.' } });
      expect(made.status).toBe(201);
    }
    const search = '/api/v1/skills?q=lanternfish&limit=20';
    const routed = await t.request('GET', search, { token: skillsToken });
    expect(routed.status).toBe(200);
    expect(routed.body.data).toHaveLength(2);
    const { answer } = await untilDoorAnswers(base, search, bearer(skillsToken));
    expect(answer.body.toString('utf8')).toBe(routed.text);
    expect(appHeaders(answer.headerNames)).toEqual(['x-request-id', 'content-type', 'content-length']);

    // The same search spelled otherwise is a query the route has not answered yet.
    const reordered = await reach(base, '/api/v1/skills?limit=20&q=lanternfish', bearer(skillsToken));
    expect([reordered.status, reordered.viaRoute]).toEqual([200, true]);
    expect(reordered.body.equals(answer.body)).toBe(true);
    // A query carrying a token is never remembered (its secret would stay in memory with it): the
    // route answers it every time, reading the bearer header first.
    const withQueryToken = `${search}&token=${scoped}`;
    for (let i = 0; i < 3; i++) {
      const queried = await reach(base, withQueryToken, bearer(skillsToken));
      expect([queried.status, queried.viaRoute]).toEqual([200, true]);
      expect(queried.body.equals(answer.body)).toBe(true);
    }
    const queryTokenOnly = await reach(base, withQueryToken);
    expect([queryTokenOnly.status, queryTokenOnly.viaRoute]).toEqual([403, false]);
    expect(queryTokenOnly.json.error).toBe('INSUFFICIENT_SCOPE');

    // A '#' ends the path for the router, which reads everything after it as the query: the door
    // splits the same way, so this search for lanternfish is never taken for the zebrafish one.
    const zebra = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'zebra-one', description: 'Zebrafish care', category: 'general', scriptContent: 'Swim.' } });
    expect(zebra.status).toBe(201);
    const disguised = '/api/v1/skills#q=lanternfish&x=?q=zebrafish&limit=10';
    for (let i = 0; i < 3; i++) {
      const answered = await reach(base, disguised, bearer(skillsToken));
      expect(answered.status).toBe(200);
      expect(answered.json.data.map((skill: { name: string }) => skill.name).sort()).toEqual(['lantern-one', 'lantern-two']);
    }
    const { answer: zebras } = await untilDoorAnswers(base, '/api/v1/skills?q=zebrafish&limit=10', bearer(skillsToken));
    expect(zebras.json.data.map((skill: { name: string }) => skill.name)).toEqual(['zebra-one']);
    const paged = '/api/v1/skills#q=lanternfish?limit=5000';
    for (let i = 0; i < 3; i++) expect((await reach(base, paged, bearer(skillsToken))).status).toBe(200);
    expect((await reach(base, '/api/v1/skills?limit=5000', bearer(skillsToken))).status).toBe(400);

    // A new skill: the route answers, with it.
    const third = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'lantern-three', description: 'Lanternfish light', category: 'general', scriptContent: 'Glow.' } });
    expect(third.status).toBe(201);
    const fresh = await reach(base, search, bearer(skillsToken));
    expect([fresh.status, fresh.viaRoute]).toEqual([200, true]);
    expect(fresh.json.data).toHaveLength(3);

    // Another owner asking the same words gets their own answer (none), from the route.
    const other = await t.createOwner();
    const theirs = await t.tokenWithScopes(other, ['skills']);
    await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(theirs));
    const foreign = await reach(base, search, bearer(theirs));
    expect([foreign.status, foreign.viaRoute]).toEqual([200, true]);
    expect(foreign.json.data).toEqual([]);

    // A query the route refuses is never the door's; nor is a page without q, nor a token without the scope.
    for (let i = 0; i < 3; i++) {
      const refused = await reach(base, '/api/v1/skills?q=lanternfish&limit=5000', bearer(skillsToken));
      expect(refused.status).toBe(400);
      const page = await reach(base, '/api/v1/skills?limit=5', bearer(skillsToken));
      expect([page.status, page.viaRoute]).toEqual([200, true]);
    }
    const unscoped = await reach(base, search, bearer(scoped));
    expect(unscoped.status).toBe(403);
  });

  it("answers a memory page asked again while the owner's entries are unchanged: for the caller's own tags, never with an expired entry", async () => {
    const write = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const limited = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'Work agent', scopes: ['memory'], memoryTags: ['work'] } });
    expect(limited.status).toBe(201);
    const work = limited.body.data.token as string;
    const plain = await write({ content: 'The boiler is serviced every October.' });
    const tagged = await write({ content: 'The quarterly review is on the second Monday.', tags: ['work'] });
    const page = '/api/v1/memory?limit=10';
    const ids = (answer: { json: any }) => answer.json.data.map((entry: { id: string }) => entry.id);

    const routed = await t.request('GET', page, { token: scoped });
    expect(routed.status).toBe(200);
    const { answer } = await untilDoorAnswers(base, page, bearer(scoped));
    expect(answer.body.toString('utf8')).toBe(routed.text);
    expect(ids(answer)).toEqual([tagged, plain]);
    expect(appHeaders(answer.headerNames)).toEqual(['x-request-id', 'content-type', 'content-length']);

    // The same query string from a token limited to `work`: never the page kept for the other.
    await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(work));
    const first = await reach(base, page, bearer(work));
    expect([first.status, first.viaRoute]).toEqual([200, true]);
    expect(ids(first)).toEqual([tagged]);
    const { answer: workPage } = await untilDoorAnswers(base, page, bearer(work));
    expect(ids(workPage)).toEqual([tagged]);

    // A new entry: the route answers, with it.
    const third = await write({ content: 'Parking at the office is on level two.' });
    const fresh = await reach(base, page, bearer(scoped));
    expect([fresh.status, fresh.viaRoute]).toEqual([200, true]);
    expect(ids(fresh)).toEqual([third, tagged, plain]);

    // An entry whose validity ends: once it has, the door leaves the page to the route, which
    // answers it without the entry.
    const until = new Date(Date.now() + 1_500).toISOString();
    const expiring = await write({ content: 'The office is closed for the strike.', validUntil: until });
    await reach(base, page, bearer(scoped));
    const { answer: withExpiring } = await untilDoorAnswers(base, page, bearer(scoped));
    expect(ids(withExpiring)).toEqual([expiring, third, tagged, plain]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now()) + 20));
    for (let i = 0; i < 3; i++) {
      const after = await reach(base, page, bearer(scoped));
      expect([after.status, after.viaRoute]).toEqual([200, true]);
      expect(ids(after)).toEqual([third, tagged, plain]);
    }

    // A search and an instant in the past are never the door's; nor is another owner's page.
    const searched = '/api/v1/memory?q=boiler';
    for (let i = 0; i < 3; i++) expect((await reach(base, searched, bearer(scoped))).viaRoute).toBe(true);
    const other = await t.createOwner();
    const theirs = await t.tokenWithScopes(other, ['memory']);
    await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(theirs));
    const foreign = await reach(base, page, bearer(theirs));
    expect([foreign.status, foreign.viaRoute]).toEqual([200, true]);
    expect(foreign.json.data).toEqual([]);
  });

  it('answers the gateway context asked again without a query while nothing in it changed or ended', async () => {
    const someone = await t.createOwner();
    const readOnly = await t.tokenWithScopes(someone, ['read']);
    const withMemory = await t.tokenWithScopes(someone, ['read', 'memory']);
    const made = await t.request('POST', '/api/v1/memory', { token: someone.token, body: { content: 'Prefers tea to coffee.' } });
    expect(made.status).toBe(201);
    const contextPath = '/api/v1/gateway/context';

    const routed = await t.request('GET', contextPath, { token: withMemory });
    expect(routed.status).toBe(200);
    const { answer } = await untilDoorAnswers(base, contextPath, bearer(withMemory));
    expect(answer.body.toString('utf8')).toBe(routed.text);
    expect(answer.json.data.memory.entries).toHaveLength(1);
    expect(appHeaders(answer.headerNames)).toEqual(['x-request-id', 'content-type', 'content-length']);
    // Another token of the owner sees its own context: without the memory scope, no memory.
    const { answer: narrow } = await untilDoorAnswers(base, contextPath, bearer(readOnly));
    expect(narrow.json.data.memory).toBeUndefined();
    expect(narrow.json.data.token.scopes).toEqual(['read']);

    // A new entry, then one whose validity ends: the route answers each change.
    const until = new Date(Date.now() + 1_200).toISOString();
    const expiring = await t.request('POST', '/api/v1/memory', { token: someone.token, body: { content: 'Is away until Friday.', validUntil: until } });
    expect(expiring.status).toBe(201);
    const fresh = await reach(base, contextPath, bearer(withMemory));
    expect([fresh.status, fresh.viaRoute]).toEqual([200, true]);
    expect(fresh.json.data.memory.entries).toHaveLength(2);
    await untilDoorAnswers(base, contextPath, bearer(withMemory));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now()) + 20));
    const ended = await reach(base, contextPath, bearer(withMemory));
    expect([ended.status, ended.viaRoute]).toEqual([200, true]);
    expect(ended.json.data.memory.entries.map((entry: { id: string }) => entry.id)).toEqual([made.body.data.id]);
    // A task or a budget is always the route's.
    for (let i = 0; i < 3; i++) expect((await reach(base, `${contextPath}?maxTokens=2000`, bearer(withMemory))).viaRoute).toBe(true);
  });

  it('hands to the route every request that is not the plain case', async () => {
    const capabilities = '/api/v1/tokens/me/capabilities';
    const cases: Array<[string, string, Record<string, string>, string?]> = [
      ['a token in the query', `${capabilities}?token=${scoped}`, {}],
      ['another query parameter', `${capabilities}?fields=all`, bearer(scoped)],
      ['a cookie', capabilities, { ...bearer(scoped), cookie: 'other=1' }],
      ["a tool's operation header", capabilities, { ...bearer(scoped), 'x-hearth-tool-operation': 'getTokenCapabilities' }],
      ['a body', capabilities, { ...bearer(scoped), 'content-type': 'application/json', 'content-length': '2' }, '{}'],
    ];
    for (const [what, pathname, headers, body] of cases) {
      const answer = await reach(base, pathname, headers, body);
      expect(answer.status, what).toBe(200);
      expect(answer.viaRoute, what).toBe(true);
      expect(answer.json.data.tokenId, what).toBeTypeOf('string');
    }
    // What those headers are read for still happens.
    const wrongTool = await reach(base, capabilities, { ...bearer(scoped), 'x-hearth-tool-operation': 'listMemory' });
    expect(wrongTool.status).toBe(400);
    expect(wrongTool.json.error).toBe('VALIDATION_ERROR');
    const replay = await reach(base, capabilities, { ...bearer(scoped), 'x-hearth-approval-replay': 'made-up' });
    expect(replay.status).toBe(401);
    const post = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${base}${capabilities}`, { method: 'POST', headers: bearer(scoped) }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    // Another method is the router's to answer, as it answers it without the door.
    expect(post).toBe((await t.request('POST', capabilities, { token: scoped })).status);
    expect(post).toBeGreaterThanOrEqual(400);
  });
});

describe('the front door with rate limits and daily quotas', () => {
  // Above what waiting for the door may take (DOOR_TRIES), which counts like any request.
  const RATE_LIMIT = 1000;
  const QUOTA = 900;
  const plansFile = path.join(tmpdir(), `hearth-door-plans-${randomBytes(6).toString('hex')}.json`);
  const limits = { memoryEntries: null, knowledgeBytes: null, vaultTokens: null, devices: null };
  writeFileSync(
    plansFile,
    JSON.stringify({
      plans: [
        { id: 'free', name: 'Free', price: 0, currency: 'usd', interval: 'month', limits: { ...limits, apiRequestsPerDay: null } },
        { id: 'metered', name: 'Metered', price: 500, currency: 'usd', interval: 'month', limits: { ...limits, apiRequestsPerDay: QUOTA } },
      ],
    }),
  );
  let t: TestApp;
  let base: string;
  let admin: Owner;
  const capabilities = '/api/v1/tokens/me/capabilities';

  beforeAll(async () => {
    t = await createTestApp({ config: { tokenRateLimitPerMinute: RATE_LIMIT, planLimits: true, plansFile } });
    base = await listen(t);
    admin = await t.createOwner('Admin');
  });
  afterAll(async () => {
    await t.close();
    rmSync(plansFile, { force: true });
  });

  it('counts each request once: past the rate limit the route answers 429 with Retry-After', async () => {
    const owner = await t.createOwner();
    const token = await t.tokenWithScopes(owner, ['memory']);
    let answered = (await untilDoorAnswers(base, capabilities, bearer(token))).tries;
    let last: Reached | undefined;
    for (let i = 0; i <= RATE_LIMIT && last?.status !== 429; i++) {
      last = await reach(base, capabilities, bearer(token));
      if (last.status === 200) answered += 1;
    }
    expect(answered).toBe(RATE_LIMIT);
    expect(last!.status).toBe(429);
    expect(last!.json.error).toBe('RATE_LIMITED');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['x-request-id']).toMatch(/^req_/);
  });

  it("counts each request once against the owner's daily quota, waiting for the plan when it must", async () => {
    const owner = await t.createOwner();
    expect((await t.request('PUT', `/api/v1/users/${owner.id}/plan`, { token: admin.token, body: { planId: 'metered' } })).status).toBe(200);
    // Two tokens of one owner share the quota: making them is two of the day's requests.
    const tokens = [await t.tokenWithScopes(owner, ['memory']), await t.tokenWithScopes(owner, ['skills'])];
    let used = 2;
    // Twice round: each token's first use writes, which empties the token cache once more.
    for (const token of [...tokens, ...tokens]) used += (await untilDoorAnswers(base, capabilities, bearer(token))).tries;
    // The plan as the counter forgets it after a while: the next request must wait for it, and
    // the door hands it to the route, counted.
    t.container.limits.forget(owner.id);
    const waited = await reach(base, capabilities, bearer(tokens[0]!));
    expect([waited.status, waited.viaRoute]).toEqual([200, true]);
    used += 1 + (await untilDoorAnswers(base, capabilities, bearer(tokens[1]!))).tries;
    expect(used).toBeLessThan(QUOTA);
    for (; used < QUOTA; used++) expect((await reach(base, capabilities, bearer(tokens[used % 2]!))).status).toBe(200);
    const refused = await reach(base, capabilities, bearer(tokens[0]!));
    expect(refused.status).toBe(402);
    expect(refused.json.error).toBe('PLAN_LIMIT_REACHED');
    expect(refused.json.details).toMatchObject({ limit: 'apiRequestsPerDay', used: QUOTA, max: QUOTA });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('where request lines are logged', () => {
  it('is installed as everywhere, and writes for each of its answers the lines Fastify writes for a request', async () => {
    const lines: Array<Record<string, any>> = [];
    const sink = new Writable({
      write: (chunk, _encoding, done) => {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    const t = await createTestApp({ config: { logLevel: 'info' }, logStream: sink });
    try {
      const base = await listen(t);
      // A query string: always the route's.
      const first = await reach(base, '/api/v1/?token=hth_secret');
      expect(first.viaRoute).toBe(true);
      const door = await reach(base, '/api/v1/');
      expect([door.status, door.viaRoute]).toEqual([200, false]);
      expect(door.body.equals(first.body)).toBe(true);
      // The 'finish' of the answer may come a moment after the client read it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const of = (answer: Reached) => lines.filter((line) => line.reqId === answer.headers['x-request-id']);
      const [routeLines, doorLines] = [of(first), of(door)];
      expect(doorLines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
      expect(doorLines.map((line) => line.msg)).toEqual(routeLines.map((line) => line.msg));
      // The same fields in the same order, the same request and answer; only times differ.
      for (const [i, line] of doorLines.entries()) {
        expect(Object.keys(line)).toEqual(Object.keys(routeLines[i]!));
        expect(line.res).toEqual(routeLines[i]!.res);
      }
      expect(doorLines[0]!.req).toEqual({ ...routeLines[0]!.req, url: '/api/v1/' });
      expect(doorLines[0]!.req).toMatchObject({ method: 'GET', remoteAddress: '127.0.0.1' });
      expect(doorLines[1]!.res).toEqual({ statusCode: 200 });
      expect(doorLines[1]!.responseTime).toBeTypeOf('number');
      // Secrets in the address are masked on the door's lines as on the route's.
      expect(JSON.stringify(routeLines)).not.toContain('hth_secret');
    } finally {
      await t.close();
    }
  });
});

describe("over the harness's real HTTP, the door's answers equal Fastify's", () => {
  const RATE_LIMIT = 300;
  let t: TestApp;
  let owner: Owner;

  beforeAll(async () => {
    t = await createTestApp({ config: { tokenRateLimitPerMinute: RATE_LIMIT } });
    owner = await t.createOwner();
  });
  afterAll(async () => t.close());

  /** Asks over HTTP until the door answers (no route handler ran), and answers that. */
  async function fromDoor(url: string, token?: string): Promise<ApiResponse> {
    for (let tries = 1; tries <= DOOR_TRIES; tries++) {
      const before = handlersRun;
      const answer = await t.http('GET', url, { token });
      expect(answer.status).toBe(200);
      if (handlersRun === before) return answer;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`The front door did not answer GET ${url} in ${DOOR_TRIES} requests`);
  }
  /** The header names an answer carries, without those the connection adds. */
  const names = (answer: ApiResponse) => Object.keys(answer.headers).filter((name) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name));
  /** The same status, bytes and headers (but the request id, new for every answer). */
  function expectSame(door: ApiResponse, routed: ApiResponse): void {
    expect(door.status).toBe(routed.status);
    expect(door.text).toBe(routed.text);
    expect(names(door)).toEqual(names(routed));
    for (const name of names(routed)) if (name !== 'x-request-id') expect(door.headers[name], name).toEqual(routed.headers[name]);
    expect(door.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
  }

  /** What Fastify's own serializer sends for a route with this 200 schema answering `answer` (a bare app, Fastify's default compilers). */
  async function fastifySends(schema: TSchema, answer: unknown): Promise<string> {
    const bare = Fastify();
    bare.get('/', { schema: { response: { 200: schema } } }, async () => answer);
    try {
      return (await bare.inject({ method: 'GET', url: '/' })).body;
    } finally {
      await bare.close();
    }
  }

  it("sends each prepared answer's bytes as Fastify's own serializer writes them for the route's 200 schema", async () => {
    const token = await t.tokenWithScopes(owner, ['skills']);
    const made = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'bytes-door', description: 'Byte for byte', category: 'general', scriptContent: 'Same.' } });
    expect(made.status).toBe(201);
    const search = '/api/v1/skills?q=byte&limit=10';
    expect((await t.request('GET', search, { token })).body.data).toHaveLength(1);
    const cases: Array<[string, string | undefined, TSchema]> = [
      ['/api/v1/', undefined, DiscoveryDocumentSchema],
      ['/api/v1/tokens/me/capabilities', token, TokenCapabilitiesSchema],
      ['/api/v1/tokens/me/capabilities', owner.token, TokenCapabilitiesSchema],
      [`/api/v1/skills/_by_slug/${made.body.data.name}`, token, SkillResponse],
      [search, token, SkillPage],
    ];
    for (const [url, as, schema] of cases) {
      const routed = await t.request('GET', url, { token: as });
      const door = await fromDoor(url, as);
      expect(door.text, url).toBe(routed.text);
      expect(door.text, url).toBe(await fastifySends(schema, JSON.parse(door.text)));
    }
  });

  it('the discovery document and a token\'s capabilities', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    for (const [url, as] of [['/api/v1/', undefined], ['/api/v1/tokens/me/capabilities', token], ['/api/v1/tokens/me/capabilities', owner.token]] as const) {
      const routed = await t.request('GET', url, { token: as });
      expectSame(await fromDoor(url, as), routed);
    }
  });

  it('a skill by its slug, and a skills search asked again', async () => {
    const token = await t.tokenWithScopes(owner, ['skills']);
    const made = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'http-door', description: 'Harness doors', category: 'general', scriptContent: 'Knock.' } });
    expect(made.status).toBe(201);
    const bySlug = `/api/v1/skills/_by_slug/${made.body.data.name}`;
    expectSame(await fromDoor(bySlug, token), await t.request('GET', bySlug, { token }));
    const search = '/api/v1/skills?q=harness&limit=10';
    const routed = await t.request('GET', search, { token });
    expect(routed.body.data).toHaveLength(1);
    expectSame(await fromDoor(search, token), routed);
  });

  it('refusals: an unknown token, a token without the scope, past the rate limit', async () => {
    const unknown = `hth_${randomBytes(24).toString('hex')}`;
    const memoryOnly = await t.tokenWithScopes(owner, ['memory']);
    await fromDoor('/api/v1/tokens/me/capabilities', memoryOnly);
    for (const [url, token, status] of [
      ['/api/v1/tokens/me/capabilities', unknown, 401],
      ['/api/v1/skills/_by_slug/http-door', memoryOnly, 403],
      ['/api/v1/skills?q=harness&limit=10', memoryOnly, 403],
    ] as const) {
      const [door, routed] = [await t.http('GET', url, { token }), await t.request('GET', url, { token })];
      expect(door.status).toBe(status);
      expectSame(door, routed);
    }
    // Past the limit, each way of asking is refused alike (Retry-After counts down the window).
    const limited = await t.tokenWithScopes(owner, ['memory']);
    await fromDoor('/api/v1/tokens/me/capabilities', limited);
    let door: ApiResponse | undefined;
    for (let i = 0; i <= RATE_LIMIT && door?.status !== 429; i++) door = await t.http('GET', '/api/v1/tokens/me/capabilities', { token: limited });
    const routed = await t.request('GET', '/api/v1/tokens/me/capabilities', { token: limited });
    expect([door!.status, routed.status]).toEqual([429, 429]);
    expect(names(door!)).toEqual(names(routed));
    expect(door!.body.error).toBe(routed.body.error);
    expect(Number(door!.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a prepared answer', () => {
  const door = () => {
    const app = Fastify();
    registerAccessControl(app, { authenticate: async () => null });
    installFrontDoor(app, { authenticateNow: () => undefined, newRequestId: () => 'req_x', handOverHeaders: [], ignoreTrailingSlash: true, maxParamLength: 100 });
    return app;
  };
  const prepared = () => Buffer.from('{}');
  const config = { access: access.public(), prepared };

  it('is refused on other methods than GET, and on paths with a parameter anywhere but at the end', () => {
    for (const url of ['/things/:id/parts', '/things/:a-:b', '/things/*', '/things/:id(^\\d+)']) {
      expect(() => door().get(url, { config }, async () => ({})), url).toThrow(/only a GET of a fixed path, or of one ending in a single parameter/);
    }
    expect(() => door().post('/things', { config }, async () => ({}))).toThrow(/only a GET of a fixed path/);
  });

  it('is taken on a GET of a fixed path, or of one ending in a parameter', async () => {
    const app = door();
    app.get('/thing', { config }, async () => ({}));
    app.get('/things/:id', { config }, async () => ({}));
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });

  it('is refused on a route with hooks, constraints or an action class of its own', () => {
    const hook = async () => undefined;
    expect(() => door().get('/a', { config, onRequest: hook }, async () => ({}))).toThrow(/onRequest, which the front door would skip/);
    expect(() => door().get('/b', { config, preHandler: [hook], onSend: async (_q, _r, payload) => payload }, async () => ({}))).toThrow(
      /preHandler, onSend, which the front door would skip/,
    );
    expect(() => door().get('/c', { config, constraints: { host: 'example.test' } }, async () => ({}))).toThrow(/constraints/);
    expect(() => door().get('/d', { config: { ...config, actionClass: 'memory.delete' } }, async () => ({}))).toThrow(/an action class/);
  });

  it('remembers answered queries per owner, the most recent ones, short ones only', () => {
    const answered = createAnsweredQueries<string>(2, 10);
    answered.remember('own_a', 'q=x', 'key-x');
    expect(answered.recall('own_a', 'q=x')).toBe('key-x');
    expect(answered.recall('own_b', 'q=x')).toBeUndefined();
    answered.remember('own_a', 'q=y', 'key-y');
    answered.remember('own_a', 'q=x', 'key-x');
    answered.remember('own_a', 'q=z', 'key-z');
    // Two kept: y, the least recently remembered, went.
    expect([answered.recall('own_a', 'q=x'), answered.recall('own_a', 'q=y'), answered.recall('own_a', 'q=z')]).toEqual(['key-x', undefined, 'key-z']);
    answered.remember('own_a', 'q=far-too-long', 'key-long');
    answered.remember('own_a', '', 'key-empty');
    expect(answered.recall('own_a', 'q=far-too-long')).toBeUndefined();
    expect(answered.recall('own_a', '')).toBeUndefined();
    expect(rawQuery('/a?b=1&c=2')).toBe('b=1&c=2');
    expect(rawQuery('/a')).toBe('');
    // Where the router splits: at the first '?' or '#'.
    expect(rawQuery('/a#b?c=1')).toBe('b?c=1');
    expect(rawQuery('/a?b=1#c')).toBe('b=1#c');
  });

  it('hands over a request it has no answer for with its caller, so the token is looked up once', async () => {
    const caller = { tokenId: 'tok_1', ownerId: 'own_1', kind: 'api', allScopes: false, scopes: new Set(['read']), role: 'user', name: 'test', agent: null } as const;
    const looked: string[] = [];
    const authenticateNow = (secret: string) => {
      looked.push(secret);
      return secret === 'good' ? (caller as unknown as Principal) : null;
    };
    const app = Fastify();
    registerAccessControl(app, { authenticate: async () => null, authenticateNow });
    installFrontDoor(app, { authenticateNow, newRequestId: () => 'req_x', handOverHeaders: [], ignoreTrailingSlash: true, maxParamLength: 100 });
    // Never prepared: the route answers every request, with the caller the access hook settled on.
    app.get('/mine', { config: { access: access.scope('read'), prepared: () => undefined } }, async (request) => ({ owner: request.principal?.ownerId }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    try {
      const answered = await reach(base, '/mine', { authorization: 'Bearer good' });
      expect([answered.status, answered.json, answered.viaRoute]).toEqual([200, { owner: 'own_1' }, true]);
      expect(looked).toEqual(['good']);
      // A token the door refuses is left to the route, which looks it up itself and refuses it.
      const refused = await reach(base, '/mine', { authorization: 'Bearer bad' });
      expect(refused.status).toBe(401);
      expect(looked).toEqual(['good', 'bad', 'bad']);
    } finally {
      await app.close();
    }
  });

  it('is refused at start when another route shares its parameter path', async () => {
    const app = door();
    app.get('/things/:id', { config }, async () => ({}));
    app.get('/things/special', { config: { access: access.public() } }, async () => ({}));
    await expect(app.ready()).rejects.toThrow(/shares its prefix/);
  });
});

describe('the memory page and the context at the door, tried as an attacker and a demanding user would', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t);
  });
  afterAll(async () => t.close());

  const ids = (answer: { json: any }) => (answer.json.data as Array<{ id: string }>).map((entry) => entry.id);
  const sleepUntil = (iso: string) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(iso) - Date.now()) + 30));

  async function writer(owner: Owner) {
    return async (body: Record<string, unknown>): Promise<string> => {
      const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
  }

  async function issue(owner: Owner, body: Record<string, unknown>): Promise<{ token: string; id: string }> {
    const made = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'agent', ...body } });
    expect(made.status).toBe(201);
    return { token: made.body.data.token as string, id: made.body.data.id as string };
  }

  /** The route's own answer, then the door's for the same request: byte for byte the same. */
  async function doorEqualsRoute(url: string, token: string): Promise<Reached> {
    await reach(base, url, bearer(token));
    const { answer } = await untilDoorAnswers(base, url, bearer(token));
    const routed = await t.request('GET', url, { token });
    expect(answer.body.toString('utf8'), url).toBe(routed.text);
    return answer;
  }

  it("gives each caller at the door exactly the route's page: its owner, its tags, its scope, however the query is spelt", async () => {
    const owner = await t.createOwner();
    const write = await writer(owner);
    const plain = await write({ content: 'The bins go out on Tuesday.' });
    const work = await write({ content: 'The standup is at nine.', tags: ['Work Projects'] });
    const home = await write({ content: 'The spare key is under the pot.', tags: ['home'], pinned: true });
    const full = await t.tokenWithScopes(owner, ['memory']);
    const workOnly = (await issue(owner, { scopes: ['memory'], memoryTags: ['work-projects'] })).token;
    const homeOnly = (await issue(owner, { scopes: ['memory'], memoryTags: ['home'] })).token;
    const session = await t.login(owner);
    const masterId = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token: owner.token })).body.data.tokenId as string;
    const first = await t.request('GET', '/api/v1/memory?limit=1', { token: full });
    const cursor = first.body.nextCursor as string;
    expect(cursor).toBeTypeOf('string');

    const queries = [
      'limit=10',
      'tag=Work%20Projects&limit=10',
      'limit=10&tag=work-projects',
      'tag=work+projects',
      'include=history&limit=10',
      'pinned=true&limit=10',
      'q=&limit=10',
      'q=%20%20',
      `author=${masterId}&limit=10`,
      'kind=note&channel=api',
      `limit=1&cursor=${cursor}`,
    ];
    const sees: Array<[string, (tags: string[]) => boolean]> = [
      [full, () => true],
      [workOnly, (tags) => tags.includes('work-projects')],
      [homeOnly, (tags) => tags.includes('home')],
      [session, () => true],
    ];
    // The unlimited token first: a limited one asking the same string next must get its own page.
    for (const [token, visible] of sees) {
      for (const query of queries) {
        const answer = await doorEqualsRoute(`/api/v1/memory?${query}`, token);
        for (const entry of answer.json.data as Array<{ tags: string[] }>) expect(visible(entry.tags), query).toBe(true);
      }
    }
    const all = await reach(base, '/api/v1/memory?limit=10', bearer(full));
    expect(ids(all)).toEqual([home, work, plain]);
    expect(ids(await reach(base, '/api/v1/memory?limit=10', bearer(workOnly)))).toEqual([work]);
    expect(ids(await reach(base, '/api/v1/memory?limit=10', bearer(homeOnly)))).toEqual([home]);

    // Another owner asking the very strings: the route, with their own (empty) pages.
    const other = await t.createOwner();
    const theirs = await t.tokenWithScopes(other, ['memory']);
    await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(theirs));
    for (const query of queries.slice(0, 4)) {
      const foreign = await reach(base, `/api/v1/memory?${query}`, bearer(theirs));
      expect([foreign.status, foreign.viaRoute, foreign.json.data], query).toEqual([200, true, []]);
    }

    // Never the door's: a token without `memory`, a search, an instant, a query token (however
    // spelt), a cookie, duplicated parameters the route refuses.
    const readOnly = await t.tokenWithScopes(owner, ['read']);
    await untilDoorAnswers(base, '/api/v1/tokens/me/capabilities', bearer(readOnly));
    const never: Array<[string, Record<string, string>, number]> = [
      ['/api/v1/memory?limit=10', bearer(readOnly), 403],
      ['/api/v1/memory?q=bins', bearer(full), 200],
      [`/api/v1/memory?asOf=${encodeURIComponent(new Date().toISOString())}`, bearer(full), 200],
      [`/api/v1/memory?limit=10&token=${full}`, {}, 200],
      [`/api/v1/memory?limit=10&%74oken=${full}`, {}, 200],
      [`/api/v1/memory?limit=10&token=${full}`, bearer(workOnly), 200],
      ['/api/v1/memory?limit=10', { ...bearer(full), cookie: 'hearth_session=x' }, 200],
      ['/api/v1/memory?limit=10&limit=10', bearer(full), 400],
      ['/api/v1/memory?tag=work-projects&tag=home', bearer(full), 400],
      ['/api/v1/memory?pinned=1&limit=10', bearer(full), 400],
    ];
    for (const [url, headers, status] of never) {
      for (let i = 0; i < 3; i++) {
        const answer = await reach(base, url, headers);
        // A refusal runs no handler (the access hook or validation answers it): its status says enough.
        expect([answer.status, status === 200 ? answer.viaRoute : true], `${url} ${JSON.stringify(headers)}`).toEqual([status, true]);
      }
    }
    // The bearer header wins over the query's token, at the door as at the route.
    expect(ids(await reach(base, `/api/v1/memory?limit=10&token=${full}`, bearer(workOnly)))).toEqual([work]);
  });

  it('never sends a page the route would no longer send: after each kind of write and each change of the token', async () => {
    const owner = await t.createOwner();
    const write = await writer(owner);
    const a = await write({ content: 'Quarterly goals are due.', tags: ['work'] });
    const b = await write({ content: 'The printer is on floor two.', tags: ['work'] });
    const c = await write({ content: 'Likes jazz.' });
    const full = await t.tokenWithScopes(owner, ['memory']);
    const limited = await issue(owner, { scopes: ['memory'], memoryTags: ['work'] });
    const page = '/api/v1/memory?limit=10';
    const fullId = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token: full })).body.data.tokenId as string;
    const prime = async (tokens = [full, limited.token]) => {
      for (const token of tokens) await doorEqualsRoute(page, token);
    };
    const entries = async (token: string) => (await reach(base, page, bearer(token))).json.data as Array<{ id: string; content: string; pinned: boolean; tags: string[]; seenCount: number }>;
    const patch = async (id: string, body: Record<string, unknown>) => expect((await t.request('PATCH', `/api/v1/memory/${id}`, { token: owner.token, body })).status).toBe(200);

    await prime();
    await patch(a, { content: 'Quarterly goals are due Friday.' });
    expect((await entries(limited.token)).find((entry) => entry.id === a)?.content).toBe('Quarterly goals are due Friday.');
    expect((await entries(full)).find((entry) => entry.id === a)?.content).toBe('Quarterly goals are due Friday.');

    await prime();
    await patch(a, { pinned: true });
    expect((await entries(limited.token)).find((entry) => entry.id === a)?.pinned).toBe(true);

    await prime();
    await patch(b, { tags: ['home'] });
    expect((await entries(limited.token)).map((entry) => entry.id)).toEqual([a]);
    expect((await entries(full)).find((entry) => entry.id === b)?.tags).toEqual(['home']);

    await prime();
    const d = await write({ content: 'Likes jazz and blues.' });
    await patch(c, { supersededBy: d });
    expect((await entries(full)).map((entry) => entry.id)).toEqual([d, b, a]);

    await prime();
    const again = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Likes jazz and blues.' } });
    expect(again.body.duplicateOf).toBe(d);
    expect((await entries(full)).find((entry) => entry.id === d)?.seenCount).toBe(2);

    await prime();
    expect((await t.request('DELETE', `/api/v1/memory/${a}`, { token: owner.token })).status).toBe(200);
    expect((await entries(full)).map((entry) => entry.id)).toEqual([d, b]);
    expect(await entries(limited.token)).toEqual([]);

    // The token itself: its tags, then its scopes, then revoked.
    await prime();
    expect((await t.request('PUT', `/api/v1/tokens/${limited.id}`, { token: owner.token, body: { memoryTags: ['home'] } })).status).toBe(200);
    expect((await entries(limited.token)).map((entry) => entry.id)).toEqual([b]);
    await prime();
    expect((await t.request('PUT', `/api/v1/tokens/${limited.id}`, { token: owner.token, body: { scopes: ['read'] } })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await reach(base, page, bearer(limited.token))).status).toBe(403);
    await prime([full]);
    expect((await t.request('DELETE', `/api/v1/tokens/${fullId}`, { token: owner.token })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await reach(base, page, bearer(full))).status).toBe(401);

    // A token that ends by its own expiry: refused at once, with nothing written.
    const until = new Date(Date.now() + 1_200).toISOString();
    const brief = await issue(owner, { scopes: ['memory'], expiresAt: until });
    await doorEqualsRoute(page, brief.token);
    await sleepUntil(until);
    expect((await reach(base, page, bearer(brief.token))).status).toBe(401);
  });

  it('never sends at the door a page with an entry past its validUntil, set by a PATCH; validFrom changes nothing there', async () => {
    const owner = await t.createOwner();
    const write = await writer(owner);
    const lasting = await write({ content: 'Blood type O.' });
    const later = await write({ content: 'Starts the new job in spring.', validFrom: new Date(Date.now() + 3_600_000).toISOString() });
    const ending = await write({ content: 'Is on call this week.' });
    const full = await t.tokenWithScopes(owner, ['memory']);
    const until = new Date(Date.now() + 1_200).toISOString();
    expect((await t.request('PATCH', `/api/v1/memory/${ending}`, { token: owner.token, body: { validUntil: until } })).status).toBe(200);
    for (const page of ['/api/v1/memory?limit=10', '/api/v1/memory?limit=10&include=history']) {
      const answer = await doorEqualsRoute(page, full);
      expect(ids(answer)).toEqual([ending, later, lasting]);
    }
    await sleepUntil(until);
    for (let i = 0; i < 3; i++) {
      const current = await reach(base, '/api/v1/memory?limit=10', bearer(full));
      expect([current.viaRoute, ids(current)]).toEqual([true, [later, lasting]]);
      // The history shows expired entries: it may be the door's, and holds it.
      expect(ids(await reach(base, '/api/v1/memory?limit=10&include=history', bearer(full)))).toEqual([ending, later, lasting]);
    }
  });

  it("answers the context at the door only with the caller's own memory, and never past a pinned entry's end or a change of the token", async () => {
    const owner = await t.createOwner();
    const write = await writer(owner);
    const plain = await write({ content: 'Drinks oat milk.' });
    const work = await write({ content: 'Reports to Dana.', tags: ['work'] });
    const until = new Date(Date.now() + 1_500).toISOString();
    const pinnedEnding = await write({ content: 'Is travelling until Sunday.', pinned: true, validUntil: until, tags: ['work'] });
    const full = await t.tokenWithScopes(owner, ['read', 'memory']);
    const limited = await issue(owner, { scopes: ['read', 'memory'], memoryTags: ['work'] });
    const path = '/api/v1/gateway/context';
    const shown = (answer: { json: any }) => (answer.json.data.memory?.entries as Array<{ id: string }> | undefined)?.map((entry) => entry.id);

    const fullAnswer = await doorEqualsRoute(path, full);
    expect(shown(fullAnswer)).toEqual([pinnedEnding, work, plain]);
    expect(fullAnswer.json.data.memory.pinned).toBe(1);
    const limitedAnswer = await doorEqualsRoute(path, limited.token);
    expect(shown(limitedAnswer)).toEqual([pinnedEnding, work]);
    expect(limitedAnswer.json.data.token.memoryTags).toEqual(['work']);
    // The same context asked with a budget or an omission is the route's, kept by the route's cache.
    const budgeted = `${path}?maxTokens=4000&omit=endpoints`;
    expect(shown(await reach(base, budgeted, bearer(full)))).toEqual([pinnedEnding, work, plain]);
    expect(shown(await reach(base, budgeted, bearer(full)))).toEqual([pinnedEnding, work, plain]);

    await sleepUntil(until);
    for (let i = 0; i < 3; i++) {
      const after = await reach(base, path, bearer(full));
      expect([after.viaRoute, shown(after), after.json.data.memory.pinned]).toEqual([i === 0, [work, plain], undefined]);
      expect(shown(await reach(base, path, bearer(limited.token)))).toEqual([work]);
      expect(shown(await reach(base, budgeted, bearer(full)))).toEqual([work, plain]);
    }

    // The token narrowed, then without memory: the door follows at once.
    expect((await t.request('PUT', `/api/v1/tokens/${limited.id}`, { token: owner.token, body: { memoryTags: ['nothing-here'] } })).status).toBe(200);
    expect(shown(await reach(base, path, bearer(limited.token)))).toEqual([]);
    expect(shown(await doorEqualsRoute(path, limited.token))).toEqual([]);
    expect((await t.request('PUT', `/api/v1/tokens/${limited.id}`, { token: owner.token, body: { scopes: ['read'] } })).status).toBe(200);
    expect(shown(await reach(base, path, bearer(limited.token)))).toBeUndefined();
    expect(shown(await doorEqualsRoute(path, limited.token))).toBeUndefined();
    // A context with a query other than none is the route's, every time.
    for (const query of ['?task=', '?maxTokens=4000', '?token=x']) {
      for (let i = 0; i < 2; i++) expect((await reach(base, `${path}${query}`, bearer(full))).viaRoute, query).toBe(true);
    }
  });
});

describe('the context kept for the door when memory is capped (GATEWAY_MEMORY_LIMIT)', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { gatewayMemoryLimit: 2 } });
    base = await listen(t);
  });
  afterAll(async () => t.close());

  it('ends when an entry it read but did not show expires: truncated and total as the route builds them now', async () => {
    const owner = await t.createOwner();
    const token = await t.tokenWithScopes(owner, ['read', 'memory']);
    const until = new Date(Date.now() + 1_200).toISOString();
    for (const body of [{ content: 'Is at the conference until noon.', validUntil: until }, { content: 'Lives in Leeds.' }, { content: 'Has two cats.' }]) {
      expect((await t.request('POST', '/api/v1/memory', { token: owner.token, body })).status).toBe(201);
    }
    const path = '/api/v1/gateway/context';
    await reach(base, path, bearer(token));
    const { answer } = await untilDoorAnswers(base, path, bearer(token));
    expect(answer.json.data.memory).toMatchObject({ total: 3, truncated: true });
    expect(answer.json.data.memory.entries).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now()) + 30));
    const after = await reach(base, path, bearer(token));
    // The same context built afresh: any write to memory_entries (here another owner's) empties the kept ones.
    const other = await t.createOwner();
    expect((await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: 'Unrelated.' } })).status).toBe(201);
    const fresh = await t.request('GET', path, { token });
    expect(fresh.body.data.memory).toMatchObject({ total: 2, truncated: false });
    expect(after.json.data.memory).toEqual(fresh.body.data.memory);
  });
});
