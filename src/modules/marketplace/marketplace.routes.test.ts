import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SUMMARY_KEYS = [
  'createdAt',
  'description',
  'id',
  'installs',
  'ownerId',
  'price',
  'ratingAverage',
  'ratingCount',
  'refId',
  'snapshotAt',
  'title',
  'type',
  'updatedAt',
];
const LISTING_KEYS = [...SUMMARY_KEYS, 'snapshot'].sort();

function unique(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

async function createSkill(t: TestApp, owner: Owner, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/v1/skills', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`skill create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function createPersona(t: TestApp, owner: Owner, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/v1/personas', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`persona create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function publish(t: TestApp, owner: Owner, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/v1/marketplace/listings', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`publish failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function getListing(t: TestApp, owner: Owner, id: string) {
  const res = await t.request('GET', `/api/v1/marketplace/listings/${id}`, { token: owner.token });
  if (res.status !== 200) throw new Error(`get failed: ${res.status} ${res.text}`);
  return res.body.data;
}

describe('marketplace across owners', () => {
  let t: TestApp;
  let alice: Owner;
  let bob: Owner;
  let carol: Owner;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.createOwner('Alice');
    bob = await t.createOwner('Bob');
    carol = await t.createOwner('Carol');
  });
  afterAll(async () => t.close());

  describe('POST /api/v1/marketplace/listings (publish)', () => {
    it('publishes one of the caller\'s skills with a snapshot; listings are free and start unrated', async () => {
      const skill = await createSkill(t, alice, {
        name: unique('pdf'),
        description: 'Reads PDF forms',
        category: 'Documents',
        scriptContent: '# PDF\n\nUse pdftotext.\n',
      });
      const res = await t.request('POST', '/api/v1/marketplace/listings', {
        token: alice.token,
        body: { type: 'skill', refId: skill.id, title: '  PDF reader  ' },
      });
      expect(res.status).toBe(201);
      const listing = res.body.data;
      expect(Object.keys(listing).sort()).toEqual(LISTING_KEYS);
      expect(listing).toMatchObject({
        type: 'skill',
        refId: skill.id,
        title: 'PDF reader',
        // Omitted: the original's description.
        description: 'Reads PDF forms',
        price: 0,
        ratingAverage: null,
        ratingCount: 0,
        installs: 0,
        ownerId: alice.id,
      });
      expect(listing.id).toMatch(/^lst_/);
      expect(listing.createdAt).toMatch(ISO);
      expect(listing.snapshotAt).toBe(listing.createdAt);
      expect(listing.snapshot).toEqual({
        name: skill.name,
        description: 'Reads PDF forms',
        category: 'Documents',
        scriptContent: skill.scriptContent,
      });
    });

    it('publishes a persona; its refId is the persona id string', async () => {
      const persona = await createPersona(t, alice, { name: 'Tutor', soul_content: 'Explain step by step.', description: 'A patient tutor' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Patient tutor', description: 'Great for homework' });
      expect(listing).toMatchObject({ type: 'persona', refId: persona.id, description: 'Great for homework', ownerId: alice.id });
      expect(listing.snapshot).toEqual({ name: 'Tutor', description: 'A patient tutor', soul_content: 'Explain step by step.' });
    });

    it("answers 404 for another owner's skill or persona, exactly as for an unknown one", async () => {
      const skill = await createSkill(t, alice, { name: unique('private') });
      const persona = await createPersona(t, alice, { name: 'Private', soul_content: 'secret instructions' });
      const otherSkill = expectError(
        await t.request('POST', '/api/v1/marketplace/listings', { token: bob.token, body: { type: 'skill', refId: skill.id, title: 'Stolen' } }),
        404,
        'NOT_FOUND',
      );
      const unknownSkill = expectError(
        await t.request('POST', '/api/v1/marketplace/listings', { token: bob.token, body: { type: 'skill', refId: 2_000_000_000, title: 'X' } }),
        404,
        'NOT_FOUND',
      );
      expect(otherSkill.message).toBe(`Skill ${skill.id} not found`);
      expect(unknownSkill.message).toBe('Skill 2000000000 not found');
      expectError(
        await t.request('POST', '/api/v1/marketplace/listings', { token: bob.token, body: { type: 'persona', refId: persona.id, title: 'Stolen' } }),
        404,
        'NOT_FOUND',
      );
      // Nothing was published for bob.
      const mine = await t.request('GET', '/api/v1/marketplace/my-listings', { token: bob.token });
      expect(mine.body.data).toEqual([]);
    });

    it('answers 400 for an unknown type, a missing or blank title, a price, or a refId of the wrong kind', async () => {
      const skill = await createSkill(t, alice, { name: unique('v') });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ type: 'plugin', refId: skill.id, title: 'X' }, 'body.type'],
        [{ refId: skill.id, title: 'X' }, 'body.type'],
        [{ type: 'skill', title: 'X' }, 'body.refId'],
        [{ type: 'skill', refId: skill.id }, 'body.title'],
        [{ type: 'skill', refId: skill.id, title: '   ' }, 'body.title'],
        [{ type: 'skill', refId: skill.id, title: 'x'.repeat(201) }, 'body.title'],
        [{ type: 'skill', refId: skill.id, title: 'X', price: 5 }, 'body.price'],
        [{ type: 'skill', refId: 'per_abc', title: 'X' }, 'body.refId'],
        [{ type: 'persona', refId: 12, title: 'X' }, 'body.refId'],
      ];
      for (const [body, field] of cases) {
        const error = expectError(await t.request('POST', '/api/v1/marketplace/listings', { token: alice.token, body }), 400, 'VALIDATION_ERROR');
        expect((error.details as Array<{ field: string }>).map((d) => d.field)).toContain(field);
      }
    });

    it('answers 409 when the original is already published, naming the listing', async () => {
      const skill = await createSkill(t, alice, { name: unique('once') });
      const first = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Once' });
      const error = expectError(
        await t.request('POST', '/api/v1/marketplace/listings', { token: alice.token, body: { type: 'skill', refId: skill.id, title: 'Twice' } }),
        409,
        'CONFLICT',
      );
      expect(error.details).toEqual({ listingId: first.id });
      expect(error.message).toContain(first.id);
    });
  });

  describe('GET /api/v1/marketplace/listings/{id}', () => {
    it("reads any publisher's listing with its snapshot; an unknown id is 404", async () => {
      const skill = await createSkill(t, alice, { name: unique('shared'), scriptContent: 'Shared body' });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Shared' });
      const res = await t.request('GET', `/api/v1/marketplace/listings/${listing.id}`, { token: bob.token });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(listing);
      expectError(await t.request('GET', '/api/v1/marketplace/listings/lst_nope', { token: bob.token }), 404, 'NOT_FOUND');
      expectError(await t.request('GET', '/api/v1/marketplace/listings/bad%20id', { token: bob.token }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('POST /api/v1/marketplace/listings/{id}/install', () => {
    it('copies a skill into the installer\'s account with origin naming the listing, and counts the install', async () => {
      const skill = await createSkill(t, alice, {
        name: unique('weather'),
        description: 'Forecasts',
        category: 'Tools',
        scriptContent: '# Weather\n\nCall the forecast API.\n',
      });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Weather' });
      const before = Date.now();
      const res = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(['id', 'type']);
      expect(res.body.data.type).toBe('skill');
      expect(Number.isInteger(res.body.data.id)).toBe(true);
      expect(res.body.data.id).not.toBe(skill.id);

      const copy = await t.request('GET', `/api/v1/skills/${res.body.data.id}`, { token: bob.token });
      expect(copy.status).toBe(200);
      expect(copy.body.data).toMatchObject({
        name: skill.name,
        slug: skill.name,
        description: 'Forecasts',
        category: 'Tools',
        scriptContent: skill.scriptContent,
        active: false,
      });
      const origin = copy.body.data.origin;
      expect(Object.keys(origin).sort()).toEqual(['installedAt', 'listingId', 'snapshotAt', 'type']);
      expect(origin).toMatchObject({ type: 'installed', listingId: listing.id, snapshotAt: listing.snapshotAt });
      expect(Date.parse(origin.installedAt)).toBeGreaterThanOrEqual(before - 1000);
      // Skill lists carry the origin too.
      const list = await t.request('GET', '/api/v1/skills', { token: bob.token, query: { slug: skill.name } });
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0].origin).toEqual(origin);
      // The copy is bob's alone; alice's original is untouched.
      expectError(await t.request('GET', `/api/v1/skills/${res.body.data.id}`, { token: alice.token }), 404, 'NOT_FOUND');
      expect((await t.request('GET', `/api/v1/skills/${skill.id}`, { token: alice.token })).body.data.origin).toEqual({ type: 'created' });

      expect((await getListing(t, carol, listing.id)).installs).toBe(1);
    });

    it('a second install of a skill is 409 while the slug is taken, and works again once it is free', async () => {
      const skill = await createSkill(t, alice, { name: unique('twice') });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Twice' });
      const first = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      expect(first.status).toBe(201);
      const again = expectError(await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token }), 409, 'CONFLICT');
      expect(again.message).toContain(skill.name);
      expect((await getListing(t, bob, listing.id)).installs).toBe(1);

      // Renaming the first copy frees the slug: the second install is a second copy.
      const renamed = await t.request('PUT', `/api/v1/skills/${first.body.data.id}`, { token: bob.token, body: { name: unique('renamed') } });
      expect(renamed.status).toBe(200);
      const second = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      expect(second.status).toBe(201);
      expect(second.body.data.id).not.toBe(first.body.data.id);
      expect((await getListing(t, bob, listing.id)).installs).toBe(2);
    });

    it('installing a persona twice makes two inactive copies; each install counts', async () => {
      const persona = await createPersona(t, alice, { name: 'Chef', soul_content: 'Cook with what is at hand.', description: 'Kitchen help' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Chef' });
      const first = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      const second = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(first.body.data.type).toBe('persona');
      expect(typeof first.body.data.id).toBe('string');
      expect(second.body.data.id).not.toBe(first.body.data.id);
      for (const id of [first.body.data.id, second.body.data.id]) {
        const copy = await t.request('GET', `/api/v1/personas/${id}`, { token: bob.token });
        expect(copy.status).toBe(200);
        expect(copy.body.data).toMatchObject({ name: 'Chef', description: 'Kitchen help', soul_content: 'Cook with what is at hand.', active: false });
        expectError(await t.request('GET', `/api/v1/personas/${id}`, { token: alice.token }), 404, 'NOT_FOUND');
      }
      expect((await getListing(t, bob, listing.id)).installs).toBe(2);
    });

    it('the publisher may install a copy of their own listing (a persona); their own skill name is taken (409)', async () => {
      const persona = await createPersona(t, alice, { name: 'Mirror', soul_content: 'Reflect.' });
      const personaListing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Mirror' });
      const res = await t.request('POST', `/api/v1/marketplace/listings/${personaListing.id}/install`, { token: alice.token });
      expect(res.status).toBe(201);
      expect(res.body.data.id).not.toBe(persona.id);

      const skill = await createSkill(t, alice, { name: unique('own') });
      const skillListing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Own' });
      expectError(await t.request('POST', `/api/v1/marketplace/listings/${skillListing.id}/install`, { token: alice.token }), 409, 'CONFLICT');
    });

    it('answers 404 for an unknown listing', async () => {
      expectError(await t.request('POST', '/api/v1/marketplace/listings/lst_missing/install', { token: bob.token }), 404, 'NOT_FOUND');
    });

    it("publishing and installing are written to each caller's audit log", async () => {
      const persona = await createPersona(t, alice, { name: 'Audited', soul_content: '.' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Audited' });
      const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: carol.token });
      const alices = await t.request('GET', '/api/v1/audit/log', { token: alice.token, query: { action: 'marketplace.*' } });
      expect(alices.body.data.find((e: { targetId: string }) => e.targetId === listing.id)).toMatchObject({
        action: 'marketplace.publish',
        targetType: 'listing',
        details: { type: 'persona', refId: persona.id, title: 'Audited' },
      });
      const carols = await t.request('GET', '/api/v1/audit/log', { token: carol.token, query: { action: 'marketplace.install' } });
      expect(carols.body.data.find((e: { targetId: string }) => e.targetId === listing.id)).toMatchObject({
        action: 'marketplace.install',
        details: { type: 'persona', copyId: installed.body.data.id },
      });
    });

    it('counts concurrent installs exactly', async () => {
      const persona = await createPersona(t, alice, { name: 'Crowd', soul_content: 'Many.' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Crowd' });
      const results = await Promise.all(
        Array.from({ length: 6 }, () => t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(new Set(results.map((r) => r.body.data.id)).size).toBe(6);
      expect((await getListing(t, bob, listing.id)).installs).toBe(6);
    });
  });

  describe('snapshot isolation', () => {
    it('edits to the original skill after publishing do not change what others install', async () => {
      const skill = await createSkill(t, alice, { name: unique('iso'), description: 'v1', category: 'One', scriptContent: 'Version one body' });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Iso' });
      const edited = await t.request('PUT', `/api/v1/skills/${skill.id}`, {
        token: alice.token,
        body: { description: 'v2', category: 'Two', scriptContent: 'Version two body' },
      });
      expect(edited.status).toBe(200);

      expect((await getListing(t, bob, listing.id)).snapshot).toEqual(listing.snapshot);
      const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      expect(installed.status).toBe(201);
      const copy = (await t.request('GET', `/api/v1/skills/${installed.body.data.id}`, { token: bob.token })).body.data;
      expect(copy.description).toBe('v1');
      expect(copy.category).toBe('One');
      expect(copy.scriptContent).toContain('Version one body');
      expect(copy.scriptContent).not.toContain('Version two body');
      expect(copy.scriptContent).toBe(listing.snapshot.scriptContent);

      // Changing the installed copy changes neither the listing nor the original.
      await t.request('PUT', `/api/v1/skills/${copy.id}`, { token: bob.token, body: { scriptContent: 'Bob was here' } });
      expect((await getListing(t, alice, listing.id)).snapshot).toEqual(listing.snapshot);
    });

    it('edits to the original persona after publishing do not change what others install', async () => {
      const persona = await createPersona(t, alice, { name: 'Guide', soul_content: 'Original soul' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Guide' });
      await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: alice.token, body: { name: 'Guide 2', soul_content: 'Edited soul' } });
      const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: carol.token });
      const copy = (await t.request('GET', `/api/v1/personas/${installed.body.data.id}`, { token: carol.token })).body.data;
      expect(copy).toMatchObject({ name: 'Guide', soul_content: 'Original soul' });
    });

    it('refreshSnapshot publishes the current version; installs from then on get it', async () => {
      const persona = await createPersona(t, alice, { name: 'Coach', soul_content: 'Old advice' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Coach' });
      await t.request('PUT', `/api/v1/personas/${persona.id}`, { token: alice.token, body: { soul_content: 'New advice' } });
      const refreshed = await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token, body: { refreshSnapshot: true } });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.data.snapshot.soul_content).toBe('New advice');
      expect(refreshed.body.data.title).toBe('Coach');
      expect(Date.parse(refreshed.body.data.snapshotAt)).toBeGreaterThanOrEqual(Date.parse(listing.snapshotAt));
      const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      const copy = (await t.request('GET', `/api/v1/personas/${installed.body.data.id}`, { token: bob.token })).body.data;
      expect(copy.soul_content).toBe('New advice');
    });

    it('deleting the original keeps the listing installable; refreshing it then is 409', async () => {
      const skill = await createSkill(t, alice, { name: unique('orphan'), scriptContent: 'Orphan body' });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Orphan' });
      expect((await t.request('DELETE', `/api/v1/skills/${skill.id}`, { token: alice.token })).status).toBe(200);
      expect((await getListing(t, bob, listing.id)).snapshot.scriptContent).toContain('Orphan body');
      const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      expect(installed.status).toBe(201);
      expectError(
        await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token, body: { refreshSnapshot: true } }),
        409,
        'CONFLICT',
      );
      // The title can still change, and the snapshot stays.
      const retitled = await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token, body: { title: 'Orphan (archived)' } });
      expect(retitled.status).toBe(200);
      expect(retitled.body.data.snapshot).toEqual(listing.snapshot);
    });

    it('deleting a listing leaves installed copies in place', async () => {
      const skill = await createSkill(t, alice, { name: unique('gone') });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Gone' });
      const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/install`, { token: bob.token });
      const deleted = await t.request('DELETE', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ data: { id: listing.id, deleted: true } });
      expectError(await t.request('GET', `/api/v1/marketplace/listings/${listing.id}`, { token: bob.token }), 404, 'NOT_FOUND');
      const copy = await t.request('GET', `/api/v1/skills/${installed.body.data.id}`, { token: bob.token });
      expect(copy.status).toBe(200);
      expect(copy.body.data.origin.listingId).toBe(listing.id);
      // The original can be published again once its listing is gone.
      expect((await t.request('POST', '/api/v1/marketplace/listings', { token: alice.token, body: { type: 'skill', refId: skill.id, title: 'Back' } })).status).toBe(201);
    });
  });

  describe('POST /api/v1/marketplace/listings/{id}/rate', () => {
    let listing: { id: string };

    beforeAll(async () => {
      const skill = await createSkill(t, alice, { name: unique('rated') });
      listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Rated' });
    });

    it('keeps one rating per user: a second replaces the first; average and count follow', async () => {
      const first = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: bob.token, body: { rating: 4, review: 'Good' } });
      expect(first.status).toBe(200);
      expect(Object.keys(first.body.data).sort()).toEqual(LISTING_KEYS);
      expect(first.body.data).toMatchObject({ id: listing.id, ratingAverage: 4, ratingCount: 1 });

      const second = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: carol.token, body: { rating: 5 } });
      expect(second.body.data).toMatchObject({ ratingAverage: 4.5, ratingCount: 2 });

      const replaced = await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: bob.token, body: { rating: 2, review: 'Broke on update' } });
      expect(replaced.status).toBe(200);
      expect(replaced.body.data).toMatchObject({ ratingAverage: 3.5, ratingCount: 2 });
      expect((await getListing(t, alice, listing.id)).ratingAverage).toBe(3.5);

      const ratings = await t.request('GET', `/api/v1/marketplace/listings/${listing.id}/ratings`, { token: alice.token });
      expect(ratings.status).toBe(200);
      expect(ratings.body.nextCursor).toBeNull();
      expect(ratings.body.data).toHaveLength(2);
      const byUser = Object.fromEntries(ratings.body.data.map((r: { userId: string }) => [r.userId, r]));
      expect(byUser[bob.id]).toMatchObject({ rating: 2, review: 'Broke on update' });
      expect(byUser[carol.id]).toMatchObject({ rating: 5, review: null });
      // Most recently rated first (ties by user id).
      const order = ratings.body.data.map((r: { updatedAt: string; userId: string }) => `${r.updatedAt} ${r.userId}`);
      expect(order).toEqual([...order].sort().reverse());
      expect(byUser[bob.id].updatedAt >= byUser[bob.id].createdAt).toBe(true);

      // A replacement without a review drops the earlier review.
      await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: bob.token, body: { rating: 3 } });
      const after = await t.request('GET', `/api/v1/marketplace/listings/${listing.id}/ratings`, { token: bob.token });
      expect(after.body.data.find((r: { userId: string }) => r.userId === bob.id)).toMatchObject({ rating: 3, review: null });
    });

    it('rounds the average to two decimals', async () => {
      const persona = await createPersona(t, alice, { name: 'Thirds', soul_content: '.' });
      const l = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Thirds' });
      const dave = await t.createOwner('Dave');
      await t.request('POST', `/api/v1/marketplace/listings/${l.id}/rate`, { token: bob.token, body: { rating: 5 } });
      await t.request('POST', `/api/v1/marketplace/listings/${l.id}/rate`, { token: carol.token, body: { rating: 4 } });
      const res = await t.request('POST', `/api/v1/marketplace/listings/${l.id}/rate`, { token: dave.token, body: { rating: 4 } });
      expect(res.body.data).toMatchObject({ ratingAverage: 4.33, ratingCount: 3 });
    });

    it('accepts only whole ratings from 1 to 5 (400)', async () => {
      for (const body of [{ rating: 0 }, { rating: 6 }, { rating: 3.5 }, { rating: 'five' }, {}, { rating: 3, review: 'x'.repeat(2001) }, { rating: 3, extra: 1 }]) {
        expectError(await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: carol.token, body }), 400, 'VALIDATION_ERROR');
      }
      // Nothing changed.
      expect((await getListing(t, carol, listing.id)).ratingCount).toBe(2);
    });

    it('refuses a rating of one\'s own listing (403 FORBIDDEN) and of an unknown listing (404)', async () => {
      const error = expectError(
        await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: alice.token, body: { rating: 5 } }),
        403,
        'FORBIDDEN',
      );
      expect(error.message).toMatch(/own/);
      expectError(await t.request('POST', '/api/v1/marketplace/listings/lst_missing/rate', { token: bob.token, body: { rating: 5 } }), 404, 'NOT_FOUND');
      expectError(await t.request('GET', '/api/v1/marketplace/listings/lst_missing/ratings', { token: bob.token }), 404, 'NOT_FOUND');
      expect((await getListing(t, carol, listing.id)).ratingCount).toBe(2);
    });

    it('counts concurrent ratings by many users exactly', async () => {
      const persona = await createPersona(t, alice, { name: 'Popular', soul_content: '.' });
      const l = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Popular' });
      const raters = await Promise.all(Array.from({ length: 6 }, (_, i) => t.createOwner(`Rater ${i}`)));
      const results = await Promise.all(
        raters.map((r, i) => t.request('POST', `/api/v1/marketplace/listings/${l.id}/rate`, { token: r.token, body: { rating: (i % 5) + 1 } })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
      // 1+2+3+4+5+1 = 16 over 6.
      expect(await getListing(t, alice, l.id)).toMatchObject({ ratingCount: 6, ratingAverage: 2.67 });
    });

    it('pages the ratings by cursor', async () => {
      const persona = await createPersona(t, alice, { name: 'Paged', soul_content: '.' });
      const l = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Paged' });
      for (const owner of [bob, carol]) {
        await t.request('POST', `/api/v1/marketplace/listings/${l.id}/rate`, { token: owner.token, body: { rating: 4 } });
      }
      const first = await t.request('GET', `/api/v1/marketplace/listings/${l.id}/ratings`, { token: bob.token, query: { limit: 1 } });
      expect(first.body.data).toHaveLength(1);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await t.request('GET', `/api/v1/marketplace/listings/${l.id}/ratings`, {
        token: bob.token,
        query: { limit: 1, cursor: first.body.nextCursor },
      });
      expect(second.body.data).toHaveLength(1);
      expect(second.body.nextCursor).toBeNull();
      expect(new Set([first.body.data[0].userId, second.body.data[0].userId])).toEqual(new Set([bob.id, carol.id]));
      expectError(
        await t.request('GET', `/api/v1/marketplace/listings/${l.id}/ratings`, { token: bob.token, query: { cursor: 'garbage' } }),
        400,
        'VALIDATION_ERROR',
      );
    });
  });

  describe('PUT and DELETE /api/v1/marketplace/listings/{id}', () => {
    it('the publisher changes title and description; updatedAt moves, the snapshot stays', async () => {
      const skill = await createSkill(t, alice, { name: unique('edit') });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Before' });
      const res = await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, {
        token: alice.token,
        body: { title: ' After ', description: 'Now described' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: listing.id, title: 'After', description: 'Now described', snapshot: listing.snapshot, snapshotAt: listing.snapshotAt });
      expect(res.body.data.updatedAt >= listing.updatedAt).toBe(true);
      expect((await getListing(t, bob, listing.id)).title).toBe('After');
      expectError(await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token, body: {} }), 400, 'VALIDATION_ERROR');
      expectError(
        await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token, body: { refId: 1 } }),
        400,
        'VALIDATION_ERROR',
      );
    });

    it("another owner cannot update or delete a listing: 404, as for an unknown id; the listing is untouched", async () => {
      const skill = await createSkill(t, alice, { name: unique('mine') });
      const listing = await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Mine' });
      const put = expectError(
        await t.request('PUT', `/api/v1/marketplace/listings/${listing.id}`, { token: bob.token, body: { title: 'Hijacked', refreshSnapshot: true } }),
        404,
        'NOT_FOUND',
      );
      const del = expectError(await t.request('DELETE', `/api/v1/marketplace/listings/${listing.id}`, { token: bob.token }), 404, 'NOT_FOUND');
      const unknown = expectError(await t.request('DELETE', '/api/v1/marketplace/listings/lst_unknown', { token: bob.token }), 404, 'NOT_FOUND');
      expect(put.message).toBe(`Listing ${listing.id} not found`);
      expect(del.message).toBe(`Listing ${listing.id} not found`);
      expect(unknown.message).toBe('Listing lst_unknown not found');
      expect(await getListing(t, alice, listing.id)).toEqual(listing);

      expect((await t.request('DELETE', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token })).status).toBe(200);
      expectError(await t.request('DELETE', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token }), 404, 'NOT_FOUND');
    });

    it('deleting a listing removes its ratings', async () => {
      const persona = await createPersona(t, alice, { name: 'Brief', soul_content: '.' });
      const listing = await publish(t, alice, { type: 'persona', refId: persona.id, title: 'Brief' });
      await t.request('POST', `/api/v1/marketplace/listings/${listing.id}/rate`, { token: bob.token, body: { rating: 5 } });
      await t.request('DELETE', `/api/v1/marketplace/listings/${listing.id}`, { token: alice.token });
      const left = await t.storage.db.selectFrom('marketplace_ratings').select('user_id').where('listing_id', '=', listing.id).execute();
      expect(left).toEqual([]);
    });
  });

  describe('security', () => {
    let listingId: string;
    let skillId: number;

    beforeAll(async () => {
      const skill = await createSkill(t, alice, { name: unique('sec') });
      skillId = skill.id;
      listingId = (await publish(t, alice, { type: 'skill', refId: skill.id, title: 'Sec' })).id;
    });

    const routes = (): Array<[string, string, unknown?]> => [
      ['GET', '/api/v1/marketplace/listings'],
      ['POST', '/api/v1/marketplace/listings', { type: 'skill', refId: 1, title: 'X' }],
      ['GET', `/api/v1/marketplace/listings/${listingId}`],
      ['PUT', `/api/v1/marketplace/listings/${listingId}`, { title: 'X' }],
      ['DELETE', `/api/v1/marketplace/listings/${listingId}`],
      ['POST', `/api/v1/marketplace/listings/${listingId}/rate`, { rating: 5 }],
      ['GET', `/api/v1/marketplace/listings/${listingId}/ratings`],
      ['POST', `/api/v1/marketplace/listings/${listingId}/install`],
      ['GET', '/api/v1/marketplace/my-listings'],
    ];

    it('401 UNAUTHORIZED on every route without a token', async () => {
      for (const [method, url, body] of routes()) {
        expectError(await t.request(method as 'GET', url, body ? { body } : {}), 401, 'UNAUTHORIZED');
      }
    });

    it('403 INSUFFICIENT_SCOPE on every route for a token without marketplace', async () => {
      const token = await t.tokenWithScopes(bob, ['skills', 'personas']);
      for (const [method, url, body] of routes()) {
        const error = expectError(await t.request(method as 'GET', url, { token, ...(body ? { body } : {}) }), 403, 'INSUFFICIENT_SCOPE');
        expect(error.message).toContain('marketplace');
      }
      expect((await getListing(t, alice, listingId)).ratingCount).toBe(0);
    });

    it('marketplace alone grants all of /marketplace/*, as the conventions map it: browse, rate, publish, install', async () => {
      const only = await t.tokenWithScopes(bob, ['marketplace']);
      expect((await t.request('GET', '/api/v1/marketplace/listings', { token: only })).status).toBe(200);
      expect((await t.request('GET', `/api/v1/marketplace/listings/${listingId}`, { token: only })).status).toBe(200);
      expect((await t.request('POST', `/api/v1/marketplace/listings/${listingId}/rate`, { token: only, body: { rating: 4 } })).status).toBe(200);
      const bobSkill = await createSkill(t, bob, { name: unique('bobs') });
      expect(
        (await t.request('POST', '/api/v1/marketplace/listings', { token: only, body: { type: 'skill', refId: bobSkill.id, title: 'Bob' } })).status,
      ).toBe(201);
      const installs = (await getListing(t, bob, listingId)).installs;
      expect((await t.request('POST', `/api/v1/marketplace/listings/${listingId}/install`, { token: only })).status).toBe(201);
      expect((await getListing(t, bob, listingId)).installs).toBe(installs + 1);
    });

    it("a token of one owner never publishes another owner's original, whatever its scopes", async () => {
      const token = await t.tokenWithScopes(bob, ['marketplace', 'skills']);
      expectError(
        await t.request('POST', '/api/v1/marketplace/listings', { token, body: { type: 'skill', refId: skillId, title: 'Not mine' } }),
        404,
        'NOT_FOUND',
      );
    });

    it('my-listings shows only the caller\'s listings', async () => {
      const mine = await t.request('GET', '/api/v1/marketplace/my-listings', { token: carol.token, query: { limit: 100 } });
      expect(mine.status).toBe(200);
      expect(mine.body.data).toEqual([]);
      const alices = await t.request('GET', '/api/v1/marketplace/my-listings', { token: alice.token, query: { limit: 100 } });
      expect(alices.body.data.length).toBeGreaterThan(0);
      expect(alices.body.data.every((l: { ownerId: string }) => l.ownerId === alice.id)).toBe(true);
    });
  });
});

describe('GET /api/v1/marketplace/listings: filters, sorts and pages', () => {
  let t: TestApp;
  let p1: Owner;
  let p2: Owner;
  const raters: Owner[] = [];
  /** In creation order. */
  const made: Record<string, { id: string; type: string }> = {};

  async function list(query: Record<string, string | number>, owner: Owner = p1, path = '/api/v1/marketplace/listings') {
    const res = await t.request('GET', path, { token: owner.token, query });
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
    return res.body as { data: Array<{ id: string; title: string; ratingAverage: number | null }>; nextCursor: string | null };
  }

  async function walk(query: Record<string, string | number>, limit: number, path?: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const page = await list({ ...query, limit, ...(cursor ? { cursor } : {}) }, p1, path);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      ids.push(...page.data.map((l) => l.id));
      cursor = page.nextCursor;
      if (!cursor) return ids;
    }
    throw new Error('paging did not end');
  }

  const titles = (page: { data: Array<{ title: string }> }) => page.data.map((l) => l.title);

  beforeAll(async () => {
    t = await createTestApp();
    p1 = await t.createOwner('Publisher 1');
    p2 = await t.createOwner('Publisher 2');
    for (let i = 0; i < 3; i++) raters.push(await t.createOwner(`Rater ${i}`));

    const skill = async (owner: Owner, title: string, description: string) => {
      const s = await createSkill(t, owner, { name: unique('s') });
      made[title] = await publish(t, owner, { type: 'skill', refId: s.id, title, description });
    };
    const persona = async (owner: Owner, title: string, description: string) => {
      const p = await createPersona(t, owner, { name: title, soul_content: '.' });
      made[title] = await publish(t, owner, { type: 'persona', refId: p.id, title, description });
    };
    await skill(p1, 'Weather forecast', 'Daily forecasts for your city');
    await persona(p1, 'Travel planner', 'Plans trips around the weather');
    await skill(p2, 'Invoice parser', 'Reads invoices and receipts');
    await persona(p2, 'Stoic coach', 'Calm advice');
    await skill(p2, 'Unit converter', 'Converts units');
    await persona(p1, 'Rainy day ideas', 'Things to do indoors');

    const install = async (title: string, owner: Owner) => {
      const res = await t.request('POST', `/api/v1/marketplace/listings/${made[title]!.id}/install`, { token: owner.token });
      if (res.status !== 201) throw new Error(`install failed: ${res.status} ${res.text}`);
    };
    // Installs: Travel planner 3, Invoice parser 2, Unit converter 2, Weather 1, others 0.
    for (const r of raters) await install('Travel planner', r);
    await install('Invoice parser', raters[0]!);
    await install('Invoice parser', raters[1]!);
    await install('Unit converter', raters[0]!);
    await install('Unit converter', raters[2]!);
    await install('Weather forecast', raters[0]!);

    const rate = async (title: string, owner: Owner, rating: number) => {
      const res = await t.request('POST', `/api/v1/marketplace/listings/${made[title]!.id}/rate`, { token: owner.token, body: { rating } });
      if (res.status !== 200) throw new Error(`rate failed: ${res.status} ${res.text}`);
    };
    // Averages: Stoic 5 (1 rating), Unit 5 (2 ratings), Weather 4.5, Invoice 3; Travel and Rainy unrated.
    await rate('Stoic coach', raters[0]!, 5);
    await rate('Unit converter', raters[0]!, 5);
    await rate('Unit converter', raters[1]!, 5);
    await rate('Weather forecast', raters[0]!, 4);
    await rate('Weather forecast', raters[1]!, 5);
    await rate('Invoice parser', raters[2]!, 3);
  });
  afterAll(async () => t.close());

  it('lists every publisher\'s listings, newest first, without snapshots', async () => {
    const page = await list({});
    expect(titles(page)).toEqual(['Rainy day ideas', 'Unit converter', 'Stoic coach', 'Invoice parser', 'Travel planner', 'Weather forecast']);
    expect(page.nextCursor).toBeNull();
    for (const item of page.data) expect(Object.keys(item).sort()).toEqual(SUMMARY_KEYS);
    // Any owner sees the same marketplace.
    expect(titles(await list({}, raters[2]!))).toEqual(titles(page));
  });

  it('filters by type', async () => {
    expect(titles(await list({ type: 'persona' }))).toEqual(['Rainy day ideas', 'Stoic coach', 'Travel planner']);
    expect(titles(await list({ type: 'skill' }))).toEqual(['Unit converter', 'Invoice parser', 'Weather forecast']);
  });

  it('sorts by installs (most first, newest first among equals)', async () => {
    const page = await list({ sort: 'installs' });
    expect(titles(page)).toEqual(['Travel planner', 'Unit converter', 'Invoice parser', 'Weather forecast', 'Rainy day ideas', 'Stoic coach']);
  });

  it('sorts by rating (highest average, then most ratings; unrated last)', async () => {
    const page = await list({ sort: 'rating' });
    expect(titles(page)).toEqual(['Unit converter', 'Stoic coach', 'Weather forecast', 'Invoice parser', 'Rainy day ideas', 'Travel planner']);
    expect(page.data.map((l) => l.ratingAverage)).toEqual([5, 5, 4.5, 3, null, null]);
  });

  it('pages every sort by cursor without gaps or repeats', async () => {
    for (const sort of ['newest', 'installs', 'rating']) {
      const all = (await list({ sort })).data.map((l) => l.id);
      for (const limit of [1, 2, 4]) {
        expect(await walk({ sort }, limit)).toEqual(all);
      }
      const typed = (await list({ sort, type: 'skill' })).data.map((l) => l.id);
      expect(await walk({ sort, type: 'skill' }, 2)).toEqual(typed);
    }
    const first = await list({ limit: 6 });
    expect(first.nextCursor).toBeNull();
    const firstOfFive = await list({ limit: 5 });
    expect(firstOfFive.nextCursor).toEqual(expect.any(String));
  });

  it('searches title and description with q: every word, prefixes too; combines with type and sort', async () => {
    expect(titles(await list({ q: 'weather' }))).toEqual(['Travel planner', 'Weather forecast']);
    expect(titles(await list({ q: 'WEATH' }))).toEqual(['Travel planner', 'Weather forecast']);
    expect(titles(await list({ q: 'weather daily' }))).toEqual(['Weather forecast']);
    expect(titles(await list({ q: 'weather', type: 'persona' }))).toEqual(['Travel planner']);
    expect(titles(await list({ q: 'weather', sort: 'rating' }))).toEqual(['Weather forecast', 'Travel planner']);
    expect(titles(await list({ q: 'receipts' }))).toEqual(['Invoice parser']);
    expect(titles(await list({ q: 'nothing-like-this' }))).toEqual([]);
    // Search syntax in the words is inert.
    expect(titles(await list({ q: '"weather" OR NEAR(' }))).toEqual([]);
    expect(titles(await list({ q: '!!!' }))).toEqual([]);
    expect(await walk({ q: 'weather', sort: 'installs' }, 1)).toEqual([made['Travel planner']!.id, made['Weather forecast']!.id]);
  });

  it('a renamed listing is found by its new title only', async () => {
    const id = made['Stoic coach']!.id;
    await t.request('PUT', `/api/v1/marketplace/listings/${id}`, { token: p2.token, body: { title: 'Serene mentor' } });
    expect(titles(await list({ q: 'stoic' }))).toEqual([]);
    expect(titles(await list({ q: 'serene' }))).toEqual(['Serene mentor']);
    await t.request('PUT', `/api/v1/marketplace/listings/${id}`, { token: p2.token, body: { title: 'Stoic coach' } });
  });

  it('my-listings answers the caller\'s own, with the same filters and paging', async () => {
    const path = '/api/v1/marketplace/my-listings';
    expect(titles(await list({}, p1, path))).toEqual(['Rainy day ideas', 'Travel planner', 'Weather forecast']);
    expect(titles(await list({}, p2, path))).toEqual(['Unit converter', 'Stoic coach', 'Invoice parser']);
    expect(titles(await list({ type: 'skill', sort: 'installs' }, p2, path))).toEqual(['Unit converter', 'Invoice parser']);
    expect(await walk({}, 1, path)).toEqual([made['Rainy day ideas']!.id, made['Travel planner']!.id, made['Weather forecast']!.id]);
    expect(titles(await list({}, raters[0]!, path))).toEqual([]);
  });

  it('answers 400 for a bad limit, sort, type or cursor, and for a cursor of another sort', async () => {
    const bad: Array<Record<string, string | number>> = [
      { limit: 0 },
      { limit: 101 },
      { limit: 'many' },
      { sort: 'popular' },
      { type: 'plugin' },
      { cursor: 'not base64 json!' },
      { cursor: 'garbage' },
      { q: '' },
    ];
    for (const query of bad) {
      expectError(await t.request('GET', '/api/v1/marketplace/listings', { token: p1.token, query }), 400, 'VALIDATION_ERROR');
    }
    const newest = await list({ limit: 1 });
    const error = expectError(
      await t.request('GET', '/api/v1/marketplace/listings', { token: p1.token, query: { sort: 'rating', cursor: newest.nextCursor! } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toContain('sort=rating');
    expect((error.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['querystring.cursor']);
    const forged = Buffer.from(JSON.stringify(['installs', -1, 'x'])).toString('base64url');
    expectError(
      await t.request('GET', '/api/v1/marketplace/listings', { token: p1.token, query: { sort: 'installs', cursor: forged } }),
      400,
      'VALIDATION_ERROR',
    );
  });
});
