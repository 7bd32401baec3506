import { randomBytes } from 'node:crypto';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { createAttachmentsRepo } from '../attachments/attachments.repo.js';
import { createAttachmentsService } from '../attachments/attachments.service.js';
import { createPersonaContextSection } from './personas.context.js';
import { createPersonasRepo } from './personas.repo.js';
import { createPersonasService } from './personas.service.js';

let t: TestApp;
let owner: Owner;
let other: Owner;

const SOUL_LIMIT = 64 * 1024;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Persona Owner');
  other = await t.createOwner('Other Owner');
});
afterAll(async () => t.close());

async function createPersona(who: Owner, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/api/v1/personas', {
    token: who.token,
    body: { name: `Persona ${randomBytes(3).toString('hex')}`, soul_content: 'You are helpful.', ...body },
  });
  if (res.status !== 201) throw new Error(`createPersona failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; name: string; description: string; soul_content: string; active: boolean; createdAt: string; updatedAt: string };
}

// The knowledge-base and skills routes are built by other modules; rows are written directly
// so that these tests depend only on the schema.
async function createDocument(who: Owner, title = `Doc ${randomBytes(3).toString('hex')}`): Promise<string> {
  const id = `kb_${randomBytes(8).toString('hex')}`;
  const at = new Date().toISOString();
  const content = `Content of ${title}`;
  await t.storage.db
    .insertInto('kb_documents')
    .values({ id, owner_id: who.id, title, content, source: 'agent', mime_type: 'text/markdown', size_bytes: content.length, created_at: at, updated_at: at })
    .execute();
  return id;
}

async function createSkill(who: Owner, name = `Skill ${randomBytes(3).toString('hex')}`): Promise<number> {
  const at = new Date().toISOString();
  const slug = name.toLowerCase().replace(/\s+/g, '-');
  const row = await t.storage.db
    .insertInto('skills')
    .values({
      owner_id: who.id,
      slug,
      slug_key: slug,
      name,
      description: `What ${name} does`,
      category: 'testing',
      category_key: 'testing',
      script_content: '# skill',
      active: 0,
      origin: JSON.stringify({ type: 'created' }),
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function activeIds(who: Owner): Promise<string[]> {
  const rows = await t.storage.db.selectFrom('personas').select('id').where('owner_id', '=', who.id).where('active', '=', 1).execute();
  return rows.map((r) => r.id);
}

describe('personas: happy path', () => {
  it('creates a persona, inactive, with an empty description by default', async () => {
    const res = await t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Writer', soul_content: '# Soul\nWrite well.' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^per_[0-9A-Z]{26}$/),
      name: 'Writer',
      description: '',
      soul_content: '# Soul\nWrite well.',
      active: false,
      createdAt: expect.any(String),
      updatedAt: res.body.data.createdAt,
    });
    expect(new Date(res.body.data.createdAt).toISOString()).toBe(res.body.data.createdAt);

    const read = await t.request('GET', `/api/v1/personas/${res.body.data.id}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(res.body.data);
  });

  it('creates with a description and reads it back', async () => {
    const persona = await createPersona(owner, { name: 'Coach', description: 'Keeps me on track', soul_content: 'Be firm.' });
    expect(persona).toMatchObject({ name: 'Coach', description: 'Keeps me on track', soul_content: 'Be firm.', active: false });
  });

  it('lists newest first, paged with limit and cursor', async () => {
    const pager = await t.createOwner('Pager');
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createPersona(pager, { name: `P${i}` }));
    const newestFirst = made.map((p) => p.id).reverse();

    const all = await t.request('GET', '/api/v1/personas', { token: pager.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.data[0]).toEqual(made[4]);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 2 };
      if (cursor) query.cursor = cursor;
      const page = await t.request('GET', '/api/v1/personas', { token: pager.token, query });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((p: { id: string }) => p.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst);
  });

  it('updates only the fields given', async () => {
    const persona = await createPersona(owner, { name: 'Before', description: 'desc', soul_content: 'soul' });
    const renamed = await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: owner.token, body: { name: 'After' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: persona.id, name: 'After', description: 'desc', soul_content: 'soul', active: false, createdAt: persona.createdAt });
    expect(renamed.body.data.updatedAt >= persona.updatedAt).toBe(true);

    const both = await t.request('PUT', `/api/v1/personas/${persona.id}`, {
      token: owner.token,
      body: { description: '', soul_content: 'new soul' },
    });
    expect(both.status).toBe(200);
    expect(both.body.data).toMatchObject({ name: 'After', description: '', soul_content: 'new soul' });

    const read = await t.request('GET', `/api/v1/personas/${persona.id}`, { token: owner.token });
    expect(read.body.data).toEqual(both.body.data);
  });

  it('accepts soul_content of exactly 64 KiB', async () => {
    const res = await t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Big', soul_content: 'x'.repeat(SOUL_LIMIT) } });
    expect(res.status).toBe(201);
    expect(res.body.data.soul_content.length).toBe(SOUL_LIMIT);
  });

  it('deletes a persona', async () => {
    const persona = await createPersona(owner);
    const res = await t.request('DELETE', `/api/v1/personas/${persona.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: persona.id, deleted: true } });
    expectError(await t.request('GET', `/api/v1/personas/${persona.id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('works with a token holding only the personas scope', async () => {
    const token = await t.tokenWithScopes(owner, ['personas']);
    const created = await t.request('POST', '/api/v1/personas', { token, body: { name: 'Scoped', soul_content: 's' } });
    expect(created.status).toBe(201);
    const list = await t.request('GET', '/api/v1/personas', { token });
    expect(list.status).toBe(200);
    expect(list.body.data.some((p: { id: string }) => p.id === created.body.data.id)).toBe(true);
  });
});

describe('personas: activation', () => {
  it('answers the active persona at /personas/active, and 404 when none is', async () => {
    const who = await t.createOwner('Active Reader');
    expectError(await t.request('GET', '/api/v1/personas/active', { token: who.token }), 404, 'NOT_FOUND');
    const a = await createPersona(who, { name: 'Only' });
    await t.request('POST', `/api/v1/personas/${a.id}/activate`, { token: who.token });
    const res = await t.request('GET', '/api/v1/personas/active', { token: who.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: a.id, name: 'Only', active: true });
    const other = await t.createOwner('Other Reader');
    expectError(await t.request('GET', '/api/v1/personas/active', { token: other.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/personas/active', { token: await t.tokenWithScopes(who, ['memory']) }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('activates, switches atomically from the previous persona, and deactivates', async () => {
    const who = await t.createOwner('Activator');
    const a = await createPersona(who, { name: 'A' });
    const b = await createPersona(who, { name: 'B' });

    const first = await t.request('POST', `/api/v1/personas/${a.id}/activate`, { token: who.token });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id: a.id, name: 'A', active: true });
    expect(await activeIds(who)).toEqual([a.id]);

    const second = await t.request('POST', `/api/v1/personas/${b.id}/activate`, { token: who.token });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ id: b.id, active: true });
    expect((await t.request('GET', `/api/v1/personas/${a.id}`, { token: who.token })).body.data.active).toBe(false);
    expect(await activeIds(who)).toEqual([b.id]);

    // Activating the active one again changes nothing.
    const again = await t.request('POST', `/api/v1/personas/${b.id}/activate`, { token: who.token });
    expect(again.status).toBe(200);
    expect(again.body.data.active).toBe(true);
    expect(await activeIds(who)).toEqual([b.id]);
    expect(await t.container.personas.getActive(who.id)).toMatchObject({ id: b.id, name: 'B', active: true });

    // Deactivating an inactive persona leaves the active one alone.
    const inactive = await t.request('POST', `/api/v1/personas/${a.id}/deactivate`, { token: who.token });
    expect(inactive.status).toBe(200);
    expect(inactive.body.data).toMatchObject({ id: a.id, active: false });
    expect(await activeIds(who)).toEqual([b.id]);

    const off = await t.request('POST', `/api/v1/personas/${b.id}/deactivate`, { token: who.token });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ id: b.id, active: false });
    expect(await activeIds(who)).toEqual([]);
    expect(await t.container.personas.getActive(who.id)).toBeNull();
  });

  it('keeps one active persona per owner, not per server', async () => {
    const one = await t.createOwner('One');
    const two = await t.createOwner('Two');
    const p1 = await createPersona(one);
    const p2 = await createPersona(two);
    expect((await t.request('POST', `/api/v1/personas/${p1.id}/activate`, { token: one.token })).status).toBe(200);
    expect((await t.request('POST', `/api/v1/personas/${p2.id}/activate`, { token: two.token })).status).toBe(200);
    expect(await activeIds(one)).toEqual([p1.id]);
    expect(await activeIds(two)).toEqual([p2.id]);
  });

  it('activating an unknown persona keeps the active one active', async () => {
    const who = await t.createOwner('Keeper');
    const a = await createPersona(who);
    await t.request('POST', `/api/v1/personas/${a.id}/activate`, { token: who.token });
    expectError(await t.request('POST', '/api/v1/personas/per_nope/activate', { token: who.token }), 404, 'NOT_FOUND');
    expect(await activeIds(who)).toEqual([a.id]);
  });

  it('deleting the active persona leaves none active', async () => {
    const who = await t.createOwner('Deleter');
    const a = await createPersona(who);
    const b = await createPersona(who);
    await t.request('POST', `/api/v1/personas/${a.id}/activate`, { token: who.token });
    expect((await t.request('DELETE', `/api/v1/personas/${a.id}`, { token: who.token })).status).toBe(200);
    expect(await activeIds(who)).toEqual([]);
    expect(await t.container.personas.getActive(who.id)).toBeNull();
    const list = await t.request('GET', '/api/v1/personas', { token: who.token });
    expect(list.body.data).toEqual([expect.objectContaining({ id: b.id, active: false })]);
    // A new activation works as usual afterwards.
    expect((await t.request('POST', `/api/v1/personas/${b.id}/activate`, { token: who.token })).status).toBe(200);
    expect(await activeIds(who)).toEqual([b.id]);
  });

  it('concurrent activations of different personas all succeed and leave exactly one active', async () => {
    const who = await t.createOwner('Racer');
    const personas = [];
    for (let i = 0; i < 5; i++) personas.push(await createPersona(who, { name: `R${i}` }));
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(personas.map((p) => t.request('POST', `/api/v1/personas/${p.id}/activate`, { token: who.token })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const active = await activeIds(who);
      expect(active).toHaveLength(1);
      expect(personas.map((p) => p.id)).toContain(active[0]);
      const list = await t.request('GET', '/api/v1/personas', { token: who.token });
      expect(list.body.data.filter((p: { active: boolean }) => p.active)).toHaveLength(1);
    }
  });
});

describe('personas: attachments', () => {
  it('attaches, lists and detaches documents; attaching twice is idempotent', async () => {
    const persona = await createPersona(owner);
    const docId = await createDocument(owner, 'Style guide');

    const empty = await t.request('GET', `/api/v1/personas/${persona.id}/documents`, { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [] });

    const attached = await t.request('POST', `/api/v1/personas/${persona.id}/documents`, { token: owner.token, body: { documentId: docId } });
    expect(attached.status).toBe(201);
    expect(attached.body).toEqual({ data: { attached: true, created: true } });
    const twice = await t.request('POST', `/api/v1/personas/${persona.id}/documents`, { token: owner.token, body: { documentId: docId } });
    expect(twice.status).toBe(200);
    expect(twice.body).toEqual({ data: { attached: true, created: false } });

    const list = await t.request('GET', `/api/v1/personas/${persona.id}/documents`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { id: docId, title: 'Style guide', source: 'agent', sizeBytes: expect.any(Number), attachedAt: expect.any(String) },
    ]);

    const detached = await t.request('DELETE', `/api/v1/personas/${persona.id}/documents/${docId}`, { token: owner.token });
    expect(detached.status).toBe(200);
    expect(detached.body).toEqual({ data: { detached: true } });
    expect((await t.request('GET', `/api/v1/personas/${persona.id}/documents`, { token: owner.token })).body.data).toEqual([]);
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/documents/${docId}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('attaches, lists and detaches skills; attaching twice is idempotent', async () => {
    const persona = await createPersona(owner);
    const skillId = await createSkill(owner, 'Summarize Notes');

    const attached = await t.request('POST', `/api/v1/personas/${persona.id}/skills`, { token: owner.token, body: { skillId } });
    expect(attached.status).toBe(201);
    expect(attached.body).toEqual({ data: { attached: true, created: true } });
    const twice = await t.request('POST', `/api/v1/personas/${persona.id}/skills`, { token: owner.token, body: { skillId } });
    expect(twice.status).toBe(200);
    expect(twice.body).toEqual({ data: { attached: true, created: false } });

    const list = await t.request('GET', `/api/v1/personas/${persona.id}/skills`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: skillId,
        slug: 'summarize-notes',
        name: 'Summarize Notes',
        description: 'What Summarize Notes does',
        category: 'testing',
        attachedAt: expect.any(String),
      },
    ]);

    const detached = await t.request('DELETE', `/api/v1/personas/${persona.id}/skills/${skillId}`, { token: owner.token });
    expect(detached.status).toBe(200);
    expect(detached.body).toEqual({ data: { detached: true } });
    expect((await t.request('GET', `/api/v1/personas/${persona.id}/skills`, { token: owner.token })).body.data).toEqual([]);
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/skills/${skillId}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('deleting a persona removes its attachments but not the documents and skills', async () => {
    const persona = await createPersona(owner);
    const keep = await createPersona(owner);
    const docId = await createDocument(owner);
    const skillId = await createSkill(owner);
    for (const p of [persona, keep]) {
      expect((await t.request('POST', `/api/v1/personas/${p.id}/documents`, { token: owner.token, body: { documentId: docId } })).status).toBe(201);
      expect((await t.request('POST', `/api/v1/personas/${p.id}/skills`, { token: owner.token, body: { skillId } })).status).toBe(201);
    }

    expect((await t.request('DELETE', `/api/v1/personas/${persona.id}`, { token: owner.token })).status).toBe(200);

    // Seen from the document's and the skill's side: only the other persona is left.
    const usage = await t.container.attachments.usageOfDocument(owner.id, docId);
    expect(usage.personas.map((p) => p.id)).toEqual([keep.id]);
    const skillUsers = await t.container.attachments.listPersonasOfSkill(owner.id, skillId);
    expect(skillUsers.map((p) => p.id)).toEqual([keep.id]);
    const docLinks = await t.storage.db.selectFrom('persona_documents').select('persona_id').where('persona_id', '=', persona.id).execute();
    const skillLinks = await t.storage.db.selectFrom('persona_skills').select('persona_id').where('persona_id', '=', persona.id).execute();
    expect(docLinks).toEqual([]);
    expect(skillLinks).toEqual([]);
    expect(await t.storage.db.selectFrom('kb_documents').select('id').where('id', '=', docId).executeTakeFirst()).toBeDefined();
    expect(await t.storage.db.selectFrom('skills').select('id').where('id', '=', skillId).executeTakeFirst()).toBeDefined();
  });

  it('answers 404 for unknown documents and skills, and for detaching what is not attached', async () => {
    const persona = await createPersona(owner);
    const docId = await createDocument(owner);
    const skillId = await createSkill(owner);
    expectError(
      await t.request('POST', `/api/v1/personas/${persona.id}/documents`, { token: owner.token, body: { documentId: 'kb_missing' } }),
      404,
      'NOT_FOUND',
    );
    expectError(await t.request('POST', `/api/v1/personas/${persona.id}/skills`, { token: owner.token, body: { skillId: 999999 } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/documents/${docId}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/skills/${skillId}`, { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('personas: errors', () => {
  it('400 when name or soul_content is missing or invalid', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ soul_content: 's' }, 'body.name'],
      [{ name: 'No soul' }, 'body.soul_content'],
      [{ name: '', soul_content: 's' }, 'body.name'],
      [{ name: '   ', soul_content: 's' }, 'body.name'],
      [{ name: 'x'.repeat(101), soul_content: 's' }, 'body.name'],
      // The app coerces scalars (42 would become "42"), so a wrong type here is an object.
      [{ name: 'ok', soul_content: { text: 's' } }, 'body.soul_content'],
      [{ name: 'ok', soul_content: 's', active: true }, 'body.active'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await t.request('POST', '/api/v1/personas', { token: owner.token, body }), 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
    expectError(await t.request('POST', '/api/v1/personas', { token: owner.token }), 400, 'VALIDATION_ERROR');
  });

  it('400 for an empty or unknown-field PUT body', async () => {
    const persona = await createPersona(owner);
    expectError(await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: owner.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: owner.token }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: owner.token, body: { active: true } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: owner.token, body: { name: '' } }), 400, 'VALIDATION_ERROR');
  });

  it('413 for soul_content over 64 KiB, counted in UTF-8 bytes, on create and update', async () => {
    expectError(
      await t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Huge', soul_content: 'x'.repeat(SOUL_LIMIT + 1) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    // Fewer characters than the limit, but two bytes each.
    expectError(
      await t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Wide', soul_content: 'é'.repeat(SOUL_LIMIT / 2 + 1) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    const persona = await createPersona(owner, { soul_content: 'small' });
    expectError(
      await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: owner.token, body: { soul_content: 'x'.repeat(SOUL_LIMIT + 1) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect((await t.request('GET', `/api/v1/personas/${persona.id}`, { token: owner.token })).body.data.soul_content).toBe('small');
  });

  it('400 for a non-integer skill id, in the path and in the body', async () => {
    const persona = await createPersona(owner);
    for (const bad of ['abc', '1.5', '0', '-3']) {
      expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/skills/${bad}`, { token: owner.token }), 400, 'VALIDATION_ERROR');
    }
    for (const skillId of ['abc', 1.5, null]) {
      expectError(await t.request('POST', `/api/v1/personas/${persona.id}/skills`, { token: owner.token, body: { skillId } }), 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('POST', `/api/v1/personas/${persona.id}/skills`, { token: owner.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', `/api/v1/personas/${persona.id}/documents`, { token: owner.token, body: {} }), 400, 'VALIDATION_ERROR');
  });

  it('400 for a bad page size', async () => {
    expectError(await t.request('GET', '/api/v1/personas', { token: owner.token, query: { limit: 0 } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', '/api/v1/personas', { token: owner.token, query: { limit: 201 } }), 400, 'VALIDATION_ERROR');
  });

  it('404 for an unknown persona on every route', async () => {
    const docId = await createDocument(owner);
    const skillId = await createSkill(owner);
    for (const [method, url, body] of routesFor('per_unknown', docId, skillId)) {
      if (url === '/api/v1/personas') continue;
      const res = await t.request(method, url, { token: owner.token, ...(body ? { body } : {}) });
      expectError(res, 404, 'NOT_FOUND');
    }
  });
});

type Route = ['GET' | 'POST' | 'PUT' | 'DELETE', string, Record<string, unknown> | undefined];

/** Every persona route, with a valid body where it takes one. */
function routesFor(personaId: string, docId: string, skillId: number): Route[] {
  const base = `/api/v1/personas/${personaId}`;
  return [
    ['GET', '/api/v1/personas', undefined],
    ['POST', '/api/v1/personas', { name: 'n', soul_content: 's' }],
    ['GET', base, undefined],
    ['PUT', base, { name: 'renamed' }],
    ['DELETE', base, undefined],
    ['POST', `${base}/activate`, undefined],
    ['POST', `${base}/deactivate`, undefined],
    ['GET', `${base}/documents`, undefined],
    ['POST', `${base}/documents`, { documentId: docId }],
    ['DELETE', `${base}/documents/${docId}`, undefined],
    ['GET', `${base}/skills`, undefined],
    ['POST', `${base}/skills`, { skillId }],
    ['DELETE', `${base}/skills/${skillId}`, undefined],
  ];
}

describe('personas: security', () => {
  it('declares all fourteen routes with the personas scope and their operation ids', () => {
    const routes = t.app.routeCatalog.filter((r) => r.path.startsWith('/api/v1/personas'));
    expect(routes.map((r) => r.operationId).sort()).toEqual(
      [
        'listPersonas',
        'createPersona',
        'getPersona',
        'getActivePersona',
        'updatePersona',
        'deletePersona',
        'activatePersona',
        'deactivatePersona',
        'listPersonaDocuments',
        'attachPersonaDocument',
        'detachPersonaDocument',
        'listPersonaSkills',
        'attachPersonaSkill',
        'detachPersonaSkill',
      ].sort(),
    );
    for (const route of routes) expect(route.access).toEqual({ kind: 'scope', anyOf: ['personas'] });
  });

  it('401 without a token on every route', async () => {
    const persona = await createPersona(owner);
    for (const [method, url, body] of routesFor(persona.id, 'kb_x', 1)) {
      const res = await t.request(method, url, body ? { body } : {});
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect(await t.container.personas.get(owner.id, persona.id)).toMatchObject({ id: persona.id });
  });

  it('401 with an unknown token', async () => {
    expectError(await t.request('GET', '/api/v1/personas', { token: 'hth_pat_nonsense' }), 401, 'UNAUTHORIZED');
  });

  it('403 INSUFFICIENT_SCOPE on every route for a token without personas', async () => {
    const persona = await createPersona(owner);
    const token = await t.tokenWithScopes(owner, ['read', 'memory', 'skills', 'knowledge']);
    for (const [method, url, body] of routesFor(persona.id, 'kb_x', 1)) {
      const error = expectError(await t.request(method, url, { token, ...(body ? { body } : {}) }), 403, 'INSUFFICIENT_SCOPE');
      expect(error.message).toContain('personas');
    }
    expect(await t.container.personas.get(owner.id, persona.id)).toMatchObject({ id: persona.id });
  });

  it("answers 404 for another owner's persona on every route and changes nothing", async () => {
    const theirs = await createPersona(other, { name: 'Theirs', soul_content: 'private' });
    await t.request('POST', `/api/v1/personas/${theirs.id}/activate`, { token: other.token });
    const theirDoc = await createDocument(other);
    const theirSkill = await createSkill(other);
    await t.request('POST', `/api/v1/personas/${theirs.id}/documents`, { token: other.token, body: { documentId: theirDoc } });
    await t.request('POST', `/api/v1/personas/${theirs.id}/skills`, { token: other.token, body: { skillId: theirSkill } });
    const myDoc = await createDocument(owner);
    const mySkill = await createSkill(owner);

    for (const [method, url, body] of routesFor(theirs.id, theirDoc, theirSkill)) {
      if (url === '/api/v1/personas') continue;
      expectError(await t.request(method, url, { token: owner.token, ...(body ? { body } : {}) }), 404, 'NOT_FOUND');
    }
    // Attaching one's own document or skill to their persona is refused the same way.
    expectError(
      await t.request('POST', `/api/v1/personas/${theirs.id}/documents`, { token: owner.token, body: { documentId: myDoc } }),
      404,
      'NOT_FOUND',
    );
    expectError(await t.request('POST', `/api/v1/personas/${theirs.id}/skills`, { token: owner.token, body: { skillId: mySkill } }), 404, 'NOT_FOUND');

    const still = await t.request('GET', `/api/v1/personas/${theirs.id}`, { token: other.token });
    expect(still.body.data).toEqual({ ...theirs, active: true, updatedAt: expect.any(String) });
    expect((await t.request('GET', `/api/v1/personas/${theirs.id}/documents`, { token: other.token })).body.data).toHaveLength(1);
    expect((await t.request('GET', `/api/v1/personas/${theirs.id}/skills`, { token: other.token })).body.data).toHaveLength(1);

    const mine = await t.request('GET', '/api/v1/personas', { token: owner.token, query: { limit: 200 } });
    expect(mine.body.data.some((p: { id: string }) => p.id === theirs.id)).toBe(false);
  });

  it("404 when attaching another owner's document or skill to one's own persona", async () => {
    const persona = await createPersona(owner);
    const theirDoc = await createDocument(other);
    const theirSkill = await createSkill(other);
    expectError(
      await t.request('POST', `/api/v1/personas/${persona.id}/documents`, { token: owner.token, body: { documentId: theirDoc } }),
      404,
      'NOT_FOUND',
    );
    expectError(await t.request('POST', `/api/v1/personas/${persona.id}/skills`, { token: owner.token, body: { skillId: theirSkill } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/documents/${theirDoc}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/personas/${persona.id}/skills/${theirSkill}`, { token: owner.token }), 404, 'NOT_FOUND');
    const docLinks = await t.storage.db.selectFrom('persona_documents').select('persona_id').where('persona_id', '=', persona.id).execute();
    const skillLinks = await t.storage.db.selectFrom('persona_skills').select('persona_id').where('persona_id', '=', persona.id).execute();
    expect([...docLinks, ...skillLinks]).toEqual([]);
  });
});

/** Records when each query is sent and when its result comes back. */
function queryRecorder() {
  const events: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      events.push('sent');
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      events.push('answered');
      return args.result;
    },
  };
  return { events, plugin };
}

describe('personas: gateway context section', () => {
  it('is visible only to tokens holding personas', async () => {
    const section = createPersonaContextSection(t.container.personas, t.container.attachments);
    expect(section.name).toBe('persona');
    const withScope = await t.container.tokens.authenticate(await t.tokenWithScopes(owner, ['personas']));
    const without = await t.container.tokens.authenticate(await t.tokenWithScopes(owner, ['read', 'memory']));
    const master = await t.container.tokens.authenticate(owner.token);
    expect(section.visibleTo(withScope!)).toBe(true);
    expect(section.visibleTo(master!)).toBe(true);
    expect(section.visibleTo(without!)).toBe(false);
  });

  it('answers null without an active persona, then the active one with its skills and documents', async () => {
    const who = await t.createOwner('Context');
    const principal = (await t.container.tokens.authenticate(who.token))!;
    const section = createPersonaContextSection(t.container.personas, t.container.attachments);
    expect(await section.load(who.id, principal)).toBeNull();

    const a = await createPersona(who, { name: 'Alpha', description: 'first', soul_content: 'Alpha soul' });
    const b = await createPersona(who, { name: 'Beta', soul_content: 'Beta soul' });
    expect(await section.load(who.id, principal)).toBeNull();

    const doc1 = await createDocument(who, 'Handbook');
    const doc2 = await createDocument(who, 'Glossary');
    const skill = await createSkill(who, 'Draft Email');
    const otherSkill = await createSkill(who, 'Plan Trip');
    await t.request('POST', `/api/v1/personas/${a.id}/documents`, { token: who.token, body: { documentId: doc1 } });
    await t.request('POST', `/api/v1/personas/${a.id}/documents`, { token: who.token, body: { documentId: doc2 } });
    await t.request('POST', `/api/v1/personas/${a.id}/skills`, { token: who.token, body: { skillId: skill } });
    await t.request('POST', `/api/v1/personas/${b.id}/skills`, { token: who.token, body: { skillId: otherSkill } });

    await t.request('POST', `/api/v1/personas/${a.id}/activate`, { token: who.token });
    expect(await section.load(who.id, principal)).toEqual({
      id: a.id,
      name: 'Alpha',
      description: 'first',
      soul_content: 'Alpha soul',
      skills: [{ id: skill, slug: 'draft-email', name: 'Draft Email' }],
      documents: [
        { id: doc1, title: 'Handbook' },
        { id: doc2, title: 'Glossary' },
      ],
    });

    await t.request('POST', `/api/v1/personas/${b.id}/activate`, { token: who.token });
    expect(await section.load(who.id, principal)).toEqual({
      id: b.id,
      name: 'Beta',
      description: '',
      soul_content: 'Beta soul',
      skills: [{ id: otherSkill, slug: 'plan-trip', name: 'Plan Trip' }],
      documents: [],
    });

    // Another owner's active persona never shows.
    const stranger = (await t.container.tokens.authenticate(other.token))!;
    const loaded = (await section.load(other.id, stranger)) as { id: string } | null;
    expect(loaded?.id).not.toBe(b.id);
  });

  it('reads in three queries sent at once', async () => {
    const who = await t.createOwner('Counted');
    const p = await createPersona(who);
    const doc = await createDocument(who);
    const skill = await createSkill(who);
    await t.request('POST', `/api/v1/personas/${p.id}/documents`, { token: who.token, body: { documentId: doc } });
    await t.request('POST', `/api/v1/personas/${p.id}/skills`, { token: who.token, body: { skillId: skill } });
    await t.request('POST', `/api/v1/personas/${p.id}/activate`, { token: who.token });

    const { events, plugin } = queryRecorder();
    const db = t.storage.db.withPlugin(plugin);
    const section = createPersonaContextSection(
      createPersonasService({ db, repo: createPersonasRepo(db) }),
      createAttachmentsService({ repo: createAttachmentsRepo(db) }),
    );
    const principal = (await t.container.tokens.authenticate(who.token))!;
    const loaded = (await section.load(who.id, principal)) as { skills: unknown[]; documents: unknown[] };
    expect(loaded.skills).toHaveLength(1);
    expect(loaded.documents).toHaveLength(1);
    expect(events).toEqual(['sent', 'sent', 'sent', 'answered', 'answered', 'answered']);
  });
});
