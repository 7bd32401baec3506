import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import type { Principal } from '../../http/access.js';
import { createIdentityContextSection, createPreferencesContextSection } from './identity.context.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function principal(secret: string): Promise<Principal> {
  const found = await t.container.tokens.authenticate(secret);
  if (!found) throw new Error('token did not authenticate');
  return found;
}

const FULL = {
  bio: 'Mathematician',
  location: 'London',
  links: ['https://example.test/ada'],
  pronouns: 'she/her',
  professional: { role: 'Analyst', company: { name: 'Engines Ltd', city: 'London' }, skills: ['maths', 'poetry'] },
  availability: { timezone: 'Europe/London', hours: { start: '09:00', end: '17:00' } },
};

describe('identity', () => {
  let ada: Owner;
  let other: Owner;

  beforeAll(async () => {
    ada = await t.createOwner('Ada Lovelace');
    other = await t.createOwner('Charles Babbage');
  });

  describe('happy path', () => {
    it('answers a default built from the account before anything is stored', async () => {
      const res = await t.request('GET', '/api/v1/identity', { token: ada.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { name: 'Ada Lovelace', professional: {}, availability: {} } });

      const professional = await t.request('GET', '/api/v1/identity/professional', { token: ada.token });
      expect(professional.status).toBe(200);
      expect(professional.body).toEqual({ data: {} });
    });

    it('stores a merge patch and answers the whole document', async () => {
      const res = await t.request('PUT', '/api/v1/identity', { token: ada.token, body: FULL });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { name: 'Ada Lovelace', ...FULL } });

      const read = await t.request('GET', '/api/v1/identity', { token: ada.token });
      expect(read.body).toEqual({ data: { name: 'Ada Lovelace', ...FULL } });
    });

    it('merges objects recursively, deletes keys set to null, replaces arrays and scalars', async () => {
      const res = await t.request('PUT', '/api/v1/identity', {
        token: ada.token,
        body: {
          pronouns: null,
          links: ['https://example.test/new'],
          location: 'Marylebone',
          professional: { company: { city: null }, skills: ['analysis'] },
          availability: { hours: { end: '12:00' } },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        name: 'Ada Lovelace',
        bio: 'Mathematician',
        location: 'Marylebone',
        links: ['https://example.test/new'],
        professional: { role: 'Analyst', company: { name: 'Engines Ltd' }, skills: ['analysis'] },
        availability: { timezone: 'Europe/London', hours: { start: '09:00', end: '12:00' } },
      });
      expect(res.body.data).not.toHaveProperty('pronouns');
    });

    it('answers each section on its own to a token with that scope', async () => {
      const professionalToken = await t.tokenWithScopes(ada, ['professional']);
      const professional = await t.request('GET', '/api/v1/identity/professional', { token: professionalToken });
      expect(professional.status).toBe(200);
      expect(professional.body).toEqual({ data: { role: 'Analyst', company: { name: 'Engines Ltd' }, skills: ['analysis'] } });

      const availabilityToken = await t.request('GET', '/api/v1/identity/availability', {
        token: await t.tokenWithScopes(ada, ['availability']),
      });
      expect(availabilityToken.status).toBe(200);
      expect(availabilityToken.body).toEqual({ data: { timezone: 'Europe/London', hours: { start: '09:00', end: '12:00' } } });
    });

    it('a section deleted with null reads as an empty object', async () => {
      const owner = await t.createOwner('Sectionless');
      await t.request('PUT', '/api/v1/identity', { token: owner.token, body: { professional: { role: 'x' } } });
      const res = await t.request('PUT', '/api/v1/identity', { token: owner.token, body: { professional: null } });
      expect(res.body.data.professional).toEqual({});
      const section = await t.request('GET', '/api/v1/identity/professional', { token: owner.token });
      expect(section.body).toEqual({ data: {} });
    });

    it('keeps each owner to their own document', async () => {
      const res = await t.request('GET', '/api/v1/identity', { token: other.token });
      expect(res.body).toEqual({ data: { name: 'Charles Babbage', professional: {}, availability: {} } });
    });
  });

  describe('filtering by scope', () => {
    it('a read-only token sees the profile without the professional and availability keys', async () => {
      const res = await t.request('GET', '/api/v1/identity', { token: await t.tokenWithScopes(ada, ['read']) });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['bio', 'links', 'location', 'name']);
      expect(res.body.data).not.toHaveProperty('professional');
      expect(res.body.data).not.toHaveProperty('availability');
    });

    it('read with professional adds only the professional section', async () => {
      const res = await t.request('GET', '/api/v1/identity', { token: await t.tokenWithScopes(ada, ['read', 'professional']) });
      expect(res.body.data.professional).toEqual({ role: 'Analyst', company: { name: 'Engines Ltd' }, skills: ['analysis'] });
      expect(res.body.data).not.toHaveProperty('availability');
      expect(res.body.data.name).toBe('Ada Lovelace');
    });

    it('read with availability adds only the availability section', async () => {
      const res = await t.request('GET', '/api/v1/identity', { token: await t.tokenWithScopes(ada, ['read', 'availability']) });
      expect(res.body.data.availability).toEqual({ timezone: 'Europe/London', hours: { start: '09:00', end: '12:00' } });
      expect(res.body.data).not.toHaveProperty('professional');
    });

    it('an identity token sees both sections', async () => {
      const res = await t.request('GET', '/api/v1/identity', { token: await t.tokenWithScopes(ada, ['identity']) });
      expect(res.body.data).toHaveProperty('professional');
      expect(res.body.data).toHaveProperty('availability');
    });
  });

  describe('errors', () => {
    it.each([
      ['an array', [1, 2]],
      ['a string', 'name'],
      ['a number', 5],
      ['null', null],
    ])('refuses a body that is %s', async (_what, body) => {
      const res = await t.request('PUT', '/api/v1/identity', {
        token: ada.token,
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 400, 'VALIDATION_ERROR');
    });

    it('refuses a missing body', async () => {
      expectError(await t.request('PUT', '/api/v1/identity', { token: ada.token }), 400, 'VALIDATION_ERROR');
    });

    it('refuses sections that are not objects and profile fields of the wrong type', async () => {
      expectError(await t.request('PUT', '/api/v1/identity', { token: ada.token, body: { professional: 'engineer' } }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('PUT', '/api/v1/identity', { token: ada.token, body: { availability: [1] } }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('PUT', '/api/v1/identity', { token: ada.token, body: { name: { first: 'Ada' } } }), 400, 'VALIDATION_ERROR');
    });

    it('refuses documents nested too deeply', async () => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 40; i++) deep = { next: deep };
      const res = await t.request('PUT', '/api/v1/identity', { token: ada.token, body: { deep } });
      expectError(res, 400, 'VALIDATION_ERROR');
    });

    it('answers 413 for a document over 64 KiB and stores nothing', async () => {
      const owner = await t.createOwner('Big');
      const res = await t.request('PUT', '/api/v1/identity', { token: owner.token, body: { bio: 'x'.repeat(70_000) } });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      const read = await t.request('GET', '/api/v1/identity', { token: owner.token });
      expect(read.body).toEqual({ data: { name: 'Big', professional: {}, availability: {} } });
      const stored = await t.storage.db.selectFrom('identity').select('owner_id').where('owner_id', '=', owner.id).execute();
      expect(stored).toEqual([]);
    });

    it('counts the merged document: two halves that together exceed 64 KiB', async () => {
      const owner = await t.createOwner('Halves');
      const first = await t.request('PUT', '/api/v1/identity', { token: owner.token, body: { notesA: 'a'.repeat(40_000) } });
      expect(first.status).toBe(200);
      expectError(await t.request('PUT', '/api/v1/identity', { token: owner.token, body: { notesB: 'b'.repeat(40_000) } }), 413, 'PAYLOAD_TOO_LARGE');
      const read = await t.request('GET', '/api/v1/identity', { token: owner.token });
      expect(read.body.data.notesA).toHaveLength(40_000);
      expect(read.body.data).not.toHaveProperty('notesB');
    });
  });

  describe('security', () => {
    it('answers 401 without a token', async () => {
      for (const [method, url] of [
        ['GET', '/api/v1/identity'],
        ['GET', '/api/v1/identity/professional'],
        ['GET', '/api/v1/identity/availability'],
        ['PUT', '/api/v1/identity'],
      ] as const) {
        const res = await t.request(method, url, method === 'PUT' ? { body: { bio: 'x' } } : {});
        expectError(res, 401, 'UNAUTHORIZED');
      }
    });

    it('answers 403 INSUFFICIENT_SCOPE to tokens without the scope', async () => {
      const memoryToken = await t.tokenWithScopes(ada, ['memory']);
      const readToken = await t.tokenWithScopes(ada, ['read']);
      const professionalToken = await t.tokenWithScopes(ada, ['professional']);
      expectError(await t.request('GET', '/api/v1/identity', { token: memoryToken }), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.request('GET', '/api/v1/identity', { token: professionalToken }), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.request('GET', '/api/v1/identity/professional', { token: readToken }), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.request('GET', '/api/v1/identity/availability', { token: professionalToken }), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.request('PUT', '/api/v1/identity', { token: readToken, body: { bio: 'x' } }), 403, 'INSUFFICIENT_SCOPE');
      const stillThere = await t.request('GET', '/api/v1/identity', { token: ada.token });
      expect(stillThere.body.data.bio).toBe('Mathematician');
    });
  });

  describe('concurrency', () => {
    it('keeps every key of concurrent PUTs, also when the document is created by them', async () => {
      const owner = await t.createOwner('Busy');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          t.request('PUT', '/api/v1/identity', { token: owner.token, body: { [`key${i}`]: i, professional: { [`skill${i}`]: true } } }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
      const read = await t.request('GET', '/api/v1/identity', { token: owner.token });
      for (let i = 0; i < 12; i++) {
        expect(read.body.data[`key${i}`]).toBe(i);
        expect(read.body.data.professional[`skill${i}`]).toBe(true);
      }
      expect(read.body.data.name).toBe('Busy');
    });
  });
});

describe('preferences', () => {
  let owner: Owner;

  beforeAll(async () => {
    owner = await t.createOwner('Prefers');
  });

  it('starts as an empty object', async () => {
    const res = await t.request('GET', '/api/v1/preferences', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: {} });
  });

  it('merges with merge-patch semantics', async () => {
    const first = await t.request('PUT', '/api/v1/preferences', {
      token: owner.token,
      body: { theme: 'dark', editor: { font: 'mono', size: 12, plugins: ['a', 'b'] }, language: 'en' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { theme: 'dark', editor: { font: 'mono', size: 12, plugins: ['a', 'b'] }, language: 'en' } });

    const second = await t.request('PUT', '/api/v1/preferences', {
      token: owner.token,
      body: { editor: { size: 14, plugins: ['c'], font: null }, language: null, units: 'metric' },
    });
    expect(second.body).toEqual({ data: { theme: 'dark', editor: { size: 14, plugins: ['c'] }, units: 'metric' } });

    const read = await t.request('GET', '/api/v1/preferences', { token: owner.token });
    expect(read.body).toEqual(second.body);
  });

  it('refuses bodies that are not objects', async () => {
    for (const body of ['[]', '"dark"', '42', 'null']) {
      const res = await t.request('PUT', '/api/v1/preferences', { token: owner.token, body, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('PUT', '/api/v1/preferences', { token: owner.token }), 400, 'VALIDATION_ERROR');
  });

  it('keeps a document of exactly 64 KiB and refuses one byte more', async () => {
    const fresh = await t.createOwner('Boundary');
    // {"k":"…"} is 8 bytes around the value.
    const exact = await t.request('PUT', '/api/v1/preferences', { token: fresh.token, body: { k: 'x'.repeat(65_536 - 8) } });
    expect(exact.status).toBe(200);
    const over = await t.request('PUT', '/api/v1/preferences', { token: fresh.token, body: { k: 'é'.repeat(32_765) } });
    expectError(over, 413, 'PAYLOAD_TOO_LARGE');
    const read = await t.request('GET', '/api/v1/preferences', { token: fresh.token });
    expect(read.body.data.k).toBe('x'.repeat(65_536 - 8));
  });

  it('stores nothing when the first write is too large', async () => {
    const fresh = await t.createOwner('TooBig');
    expectError(await t.request('PUT', '/api/v1/preferences', { token: fresh.token, body: { k: 'x'.repeat(70_000) } }), 413, 'PAYLOAD_TOO_LARGE');
    expect((await t.request('GET', '/api/v1/preferences', { token: fresh.token })).body).toEqual({ data: {} });
  });

  it('keeps every key of concurrent PUTs', async () => {
    const fresh = await t.createOwner('Concurrent');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.request('PUT', '/api/v1/preferences', { token: fresh.token, body: { [`k${i}`]: { v: i } } })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const read = await t.request('GET', '/api/v1/preferences', { token: fresh.token });
    expect(Object.keys(read.body.data).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `k${i}`).sort());
  });

  it('is private to each owner', async () => {
    const someone = await t.createOwner('Someone');
    expect((await t.request('GET', '/api/v1/preferences', { token: someone.token })).body).toEqual({ data: {} });
  });

  it('needs a token with the identity scope', async () => {
    expectError(await t.request('GET', '/api/v1/preferences'), 401, 'UNAUTHORIZED');
    expectError(await t.request('PUT', '/api/v1/preferences', { body: { a: 1 } }), 401, 'UNAUTHORIZED');
    const readToken = await t.tokenWithScopes(owner, ['read', 'professional', 'availability', 'memory']);
    expectError(await t.request('GET', '/api/v1/preferences', { token: readToken }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('PUT', '/api/v1/preferences', { token: readToken, body: { a: 1 } }), 403, 'INSUFFICIENT_SCOPE');
    const identityToken = await t.tokenWithScopes(owner, ['identity']);
    expect((await t.request('GET', '/api/v1/preferences', { token: identityToken })).status).toBe(200);
    expect((await t.request('PUT', '/api/v1/preferences', { token: identityToken, body: { viaToken: true } })).status).toBe(200);
  });
});

describe('gateway context sections', () => {
  let owner: Owner;

  beforeAll(async () => {
    owner = await t.createOwner('Context Owner');
    await t.request('PUT', '/api/v1/identity', {
      token: owner.token,
      body: { bio: 'Bio', professional: { role: 'Engineer' }, availability: { days: ['Mon'] } },
    });
    await t.request('PUT', '/api/v1/preferences', { token: owner.token, body: { tone: 'brief' } });
  });

  it('identity: filtered exactly as GET /identity for the token', async () => {
    const section = createIdentityContextSection(t.container.identity);
    expect(section.name).toBe('identity');

    const read = await principal(await t.tokenWithScopes(owner, ['read']));
    expect(section.visibleTo(read)).toBe(true);
    expect(await section.load(owner.id, read)).toEqual({ name: 'Context Owner', bio: 'Bio' });

    const readToken = await t.tokenWithScopes(owner, ['read', 'availability']);
    const viaHttp = await t.request('GET', '/api/v1/identity', { token: readToken });
    expect(await section.load(owner.id, await principal(readToken))).toEqual(viaHttp.body.data);

    const professional = await principal(await t.tokenWithScopes(owner, ['professional']));
    expect(section.visibleTo(professional)).toBe(true);
    expect(await section.load(owner.id, professional)).toEqual({ professional: { role: 'Engineer' } });

    const availability = await principal(await t.tokenWithScopes(owner, ['availability']));
    expect(await section.load(owner.id, availability)).toEqual({ availability: { days: ['Mon'] } });

    const identity = await principal(await t.tokenWithScopes(owner, ['identity']));
    expect(await section.load(owner.id, identity)).toEqual({
      name: 'Context Owner',
      bio: 'Bio',
      professional: { role: 'Engineer' },
      availability: { days: ['Mon'] },
    });

    const master = await principal(owner.token);
    expect(section.visibleTo(master)).toBe(true);

    const memoryOnly = await principal(await t.tokenWithScopes(owner, ['memory']));
    expect(section.visibleTo(memoryOnly)).toBe(false);
  });

  it('preferences: visible only with the identity scope', async () => {
    const section = createPreferencesContextSection(t.container.identity);
    expect(section.name).toBe('preferences');
    const identity = await principal(await t.tokenWithScopes(owner, ['identity']));
    expect(section.visibleTo(identity)).toBe(true);
    expect(await section.load(owner.id, identity)).toEqual({ tone: 'brief' });
    const read = await principal(await t.tokenWithScopes(owner, ['read', 'professional', 'availability']));
    expect(section.visibleTo(read)).toBe(false);
  });
});
