/**
 * Catalogue services whose credential is the owner's OAuth connection: Google's methods,
 * execute and the pass-through, against the fake Google (GOOGLE_ENDPOINT_OVERRIDE), including
 * an access token Google refuses before its time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGoogle, startFakeGoogle, type FakeGoogle } from '../../../test/fakes/google.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

const CLIENT_ID = 'hearth-services-test.apps.googleusercontent.com';
const CLIENT_SECRET = 'GOCSPX-services-test-secret';

let google: FakeGoogle;
let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  google = await startFakeGoogle({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  t = await createTestApp({
    config: { allowPrivateNetwork: true, google: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, endpointOverride: google.url } },
  });
  owner = await t.createOwner('OAuth Services Owner');
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});

describe('Google through the OAuth connection', () => {
  it('is not connected before consent, and says how to connect', async () => {
    const list = await t.request('GET', '/api/v1/services', { token: owner.token, query: { category: 'productivity' } });
    expect(list.body.data.find((s: { id: string }) => s.id === 'google')).toMatchObject({ connected: false });
    const error = expectError(await t.request('POST', '/api/v1/services/google/execute', { token: owner.token, body: { method: 'gmail.listMessages' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(error.message).toContain('GET /api/v1/oauth/authorize/google');
  });

  it('calls Gmail with the connection, through execute and the pass-through', async () => {
    expect((await connectGoogle(t, google, owner)).status).toBe(200);
    google.addMessage({ from: 'a@example.com', to: 'owner@gmail.test', subject: 'Hello', text: 'Hi there' });
    const list = await t.request('GET', '/api/v1/services', { token: owner.token, query: { connected: true } });
    expect(list.body.data.map((s: { id: string }) => s.id)).toContain('google');

    const res = await t.request('POST', '/api/v1/services/google/execute', { token: owner.token, body: { method: 'gmail.listMessages', params: { maxResults: 5 } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 200, encoding: 'json', body: { resultSizeEstimate: 1, messages: [{ id: expect.any(String) }] } });

    const profile = await t.request('GET', '/api/v1/services/google/gmail/v1/users/me/profile', { token: owner.token });
    expect(profile.body.data).toMatchObject({ status: 200, body: { emailAddress: 'owner@gmail.test' } });
    for (const token of google.issuedTokens()) expect(res.text + profile.text).not.toContain(token);
  });

  it('refreshes once and retries when Google refuses the access token before its time', async () => {
    const refreshesBefore = google.count('token.refresh_token');
    const listsBefore = google.count('gmail.messages.list');
    google.expireAccessTokens();
    const res = await t.request('POST', '/api/v1/services/google/execute', { token: owner.token, body: { method: 'gmail.listMessages' } });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe(200);
    expect(google.count('token.refresh_token')).toBe(refreshesBefore + 1);
    // The refused call and its one retry.
    expect(google.count('gmail.messages.list')).toBe(listsBefore + 2);
  });

  it('hands back what Google answers, errors included, as data', async () => {
    const res = await t.request('POST', '/api/v1/services/google/execute', { token: owner.token, body: { method: 'drive.listFiles', params: { pageSize: 10 } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 200, body: { files: expect.any(Array) } });
    const invalid = await t.request('POST', '/api/v1/services/google/execute', {
      token: owner.token,
      body: { method: 'request', params: { httpMethod: 'GET', path: '/gmail/v1/users/me/messages', query: { pageToken: 'not-a-token' } } },
    });
    expect(invalid.status).toBe(200);
    expect(invalid.body.data).toMatchObject({ status: 400, body: { error: { code: 400 } } });
  });

  it('a connection revoked at Google reads as needing consent again', async () => {
    google.revokeAllGrants();
    google.expireAccessTokens();
    const res = await t.request('POST', '/api/v1/services/google/execute', { token: owner.token, body: { method: 'gmail.listMessages' } });
    // Google refused the token and the refresh: the upstream 401 stands, the connection is marked.
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe(401);
    const again = expectError(await t.request('POST', '/api/v1/services/google/execute', { token: owner.token, body: { method: 'gmail.listMessages' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(again.message).toMatch(/renewed|reconnect/);
  });
});
