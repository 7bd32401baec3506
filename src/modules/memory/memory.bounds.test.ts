import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { newId } from '../../lib/ids.js';

/**
 * What memory refuses or bounds so that no input answers a 500 (docs/decisions/memory.md, "Bounds
 * of what an entry replaces" and "Times"): how many entries one entry replaces, lists of ids read
 * in bounded statements, times a stored time cannot hold, and NUL in content.
 */
let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Bounds Owner');
});
afterAll(async () => t.close());

async function remember(token: string, body: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', '/api/v1/memory', { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function limitedToken(who: Owner, memoryTags: string[]): Promise<string> {
  const res = await t.request('POST', '/api/v1/tokens', { token: who.token, body: { name: `Agent ${memoryTags.join('+')}`, scopes: ['memory'], memoryTags } });
  expect(res.status).toBe(201);
  return res.body.data.token;
}

const fieldsOf = (body: { details?: unknown }) => (body.details as Array<{ field: string }>).map((issue) => issue.field);

describe('how many entries one entry replaces', () => {
  it('caps PATCH supersededBy at the bound POST has, naming it and what to do, and changes nothing beyond it', async () => {
    const newer = await remember(owner.token, { content: 'The newest word on the matter' });
    const older: any[] = [];
    for (let i = 0; i < 21; i++) older.push(await remember(owner.token, { content: `An older word ${i}` }));
    for (const entry of older.slice(0, 20)) {
      const res = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { supersededBy: newer.id } });
      expect(res.status, res.text).toBe(200);
    }
    const refused = expectError(await t.request('PATCH', `/api/v1/memory/${older[20].id}`, { token: owner.token, body: { supersededBy: newer.id } }), 409, 'CONFLICT');
    expect(refused.message).toContain('20');
    expect(refused.message).toContain(newer.id);
    expect(refused.details).toMatchObject({ field: 'supersededBy', max: 20 });
    // Nothing was marked: the entry is still current, and the newer one lists 20.
    const history = await t.request('GET', `/api/v1/memory/${older[20].id}/history`, { token: owner.token });
    expect(history.body.data).toHaveLength(1);
    expect(history.body.data[0].supersededBy).toBeNull();
    const listed = (await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200 } })).body.data;
    expect(listed.find((e: any) => e.id === newer.id).supersedes).toHaveLength(20);
    expect(listed.map((e: any) => e.id)).toContain(older[20].id);
  });

  it('answers the history and a limited token\'s list of an entry listing more ids than one statement holds (stored before the cap)', async () => {
    const work = await limitedToken(owner, ['bulk']);
    const newer = await remember(owner.token, { content: 'Replaces very many', tags: ['bulk'] });
    const seen = await remember(owner.token, { content: 'A replaced one the token sees', tags: ['bulk'] });
    const hidden = await remember(owner.token, { content: 'A replaced one the token does not see', tags: ['other'] });
    for (const id of [seen.id, hidden.id]) {
      expect((await t.request('PATCH', `/api/v1/memory/${id}`, { token: owner.token, body: { supersededBy: newer.id } })).status).toBe(200);
    }
    // More ids than SQLite (32,766) or PostgreSQL (65,535) takes as parameters of one statement.
    const many = [seen.id, hidden.id, ...Array.from({ length: 70_000 }, () => newId('mem'))];
    await t.storage.db.updateTable('memory_entries').set({ supersedes: JSON.stringify(many) }).where('id', '=', newer.id).execute();

    const history = await t.request('GET', `/api/v1/memory/${newer.id}/history`, { token: owner.token });
    expect(history.status, history.text.slice(0, 300)).toBe(200);
    expect(history.body.data.map((e: any) => e.id).sort()).toEqual([newer.id, seen.id, hidden.id].sort());
    const scoped = await t.request('GET', `/api/v1/memory/${newer.id}/history`, { token: work });
    expect(scoped.status, scoped.text.slice(0, 300)).toBe(200);
    expect(scoped.body.data.map((e: any) => e.id).sort()).toEqual([newer.id, seen.id].sort());
    const list = await t.request('GET', '/api/v1/memory', { token: work, query: { limit: 200 } });
    expect(list.status, list.text.slice(0, 300)).toBe(200);
    expect(list.body.data.find((e: any) => e.id === newer.id).supersedes).toEqual([seen.id]);
  });
});

describe('times a stored time cannot hold', () => {
  const created = (body: Record<string, unknown>) => t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: `Timed ${newId('x')}`, ...body } });

  it('refuses a leap second (23:59:60) with 400 naming the field, on creation, change and asOf', async () => {
    const leap = '2016-12-31T23:59:60Z';
    expect(fieldsOf(expectError(await created({ validFrom: leap }), 400, 'VALIDATION_ERROR'))).toEqual(['body.validFrom']);
    const refused = expectError(await created({ validUntil: '2016-12-31T18:59:60-05:00' }), 400, 'VALIDATION_ERROR');
    expect(fieldsOf(refused)).toEqual(['body.validUntil']);
    expect(refused.message).toContain('18:59:60');
    expect(refused.message).toContain('leap second');
    const entry = await remember(owner.token, { content: 'Changed to a leap second' });
    expect(fieldsOf(expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { validUntil: leap } }), 400, 'VALIDATION_ERROR'))).toEqual([
      'body.validUntil',
    ]);
    expect(fieldsOf(expectError(await t.request('GET', '/api/v1/memory', { token: owner.token, query: { asOf: leap } }), 400, 'VALIDATION_ERROR'))).toEqual(['querystring.asOf']);
  });

  it('refuses a time whose UTC year is outside 0000 to 9999, and keeps the bounds themselves', async () => {
    // In its own zone the last second of 9999; in UTC the first day of 10000.
    const past = '9999-12-31T23:59:59-23:59';
    expect(fieldsOf(expectError(await created({ validUntil: past }), 400, 'VALIDATION_ERROR'))).toEqual(['body.validUntil']);
    expect(fieldsOf(expectError(await created({ validFrom: '0000-01-01T00:00:00+00:01' }), 400, 'VALIDATION_ERROR'))).toEqual(['body.validFrom']);
    const entry = await remember(owner.token, { content: 'Changed past the year 9999' });
    expect(fieldsOf(expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { validUntil: past } }), 400, 'VALIDATION_ERROR'))).toEqual([
      'body.validUntil',
    ]);
    expect(fieldsOf(expectError(await t.request('GET', '/api/v1/memory', { token: owner.token, query: { asOf: past } }), 400, 'VALIDATION_ERROR'))).toEqual(['querystring.asOf']);

    // The last instant of 9999 and the first of 0000 are stored, and such an entry is current.
    const lasting = await remember(owner.token, { content: 'Holds until the end of 9999', validFrom: '0000-01-01T00:00:00Z', validUntil: '9999-12-31T23:59:59.999Z' });
    expect(lasting).toMatchObject({ validFrom: '0000-01-01T00:00:00.000Z', validUntil: '9999-12-31T23:59:59.999Z' });
    const current = (await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200 } })).body.data;
    expect(current.map((e: any) => e.id)).toContain(lasting.id);
  });
});

describe('NUL in content', () => {
  it('is refused with 400 naming content on creation and change, on both engines, and nothing is stored', async () => {
    const who = await t.createOwner('NUL Owner');
    const refused = expectError(await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'before\u0000after' } }), 400, 'VALIDATION_ERROR');
    expect(fieldsOf(refused)).toEqual(['body.content']);
    expect(refused.message).toContain('NUL');
    const entry = await remember(who.token, { content: 'Clean text' });
    expect(fieldsOf(expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: who.token, body: { content: 'dirty\u0000' } }), 400, 'VALIDATION_ERROR'))).toEqual([
      'body.content',
    ]);
    const listed = (await t.request('GET', '/api/v1/memory', { token: who.token })).body.data;
    expect(listed.map((e: any) => e.content)).toEqual(['Clean text']);
  });
});
