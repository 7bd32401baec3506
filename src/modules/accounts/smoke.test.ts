import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/harness.js';
let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => t.close());
it('registers and reads me', async () => {
  const owner = await t.createOwner();
  const res = await t.request('GET', '/api/v1/auth/me', { token: owner.token });
  expect(res.status).toBe(200);
  expect(res.body.data.id).toBe(owner.id);
});
