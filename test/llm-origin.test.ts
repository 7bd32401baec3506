/**
 * The configured language model's origin (LLM_BASE_URL, here a local fake on 127.0.0.1) is
 * trusted by the chat's own client only. With ALLOW_PRIVATE_NETWORK off, nothing else (a
 * connector, the services proxy, API discovery) may reach it, while chat still does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai.js';
import { createTestApp, expectError, type Owner, type TestApp } from './harness.js';

let fake: FakeOpenAI;
let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({ config: { llm: { baseUrl: `${fake.url}/v1`, apiKey: fake.apiKey, model: 'test-model', timeoutMs: 2000 } } });
  expect(t.config.allowPrivateNetwork).toBe(false);
  owner = await t.createOwner('LLM Origin Owner');
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('the LLM origin is trusted by the chat only', () => {
  it('a scoped token cannot proxy to the LLM origin through a connector', async () => {
    const write = await t.tokenWithScopes(owner, ['services:read', 'services:write']);
    const created = await t.request('POST', '/api/v1/connectors', {
      token: write,
      body: { name: 'llm-backdoor', baseUrl: fake.url, authType: 'none' },
    });
    expect(created.status, created.text).toBe(201);
    fake.reset();
    const proxied = await t.request('POST', '/api/v1/services/llm-backdoor/proxy', {
      token: write,
      body: { method: 'POST', path: '/v1/chat/completions', body: { model: 'test-model', messages: [] } },
    });
    expect(expectError(proxied, 400, 'VALIDATION_ERROR').message).toMatch(/^Refusing to call 127\.0\.0\.1/);
    const passthrough = await t.request('GET', '/api/v1/services/llm-backdoor/v1/models', { token: write });
    expectError(passthrough, 400, 'VALIDATION_ERROR');
    expect(fake.requests).toHaveLength(0);
  });

  it('API discovery cannot reach the LLM origin', async () => {
    fake.reset();
    const res = await t.request('POST', '/api/v1/vault/discover-api', { token: owner.token, body: { websiteUrl: `${fake.url}/v1` } });
    expect(expectError(res, 400, 'VALIDATION_ERROR').message).toMatch(/Refusing to call/);
    expect(fake.requests).toHaveLength(0);
  });

  it('the shared outbound client trusts no origin; the chat client trusts exactly the LLM origin', async () => {
    const shared = await t.container.outbound.request({ url: `${fake.url}/v1/models` }).catch((e: unknown) => e);
    expect((shared as { code?: string }).code).toBe('VALIDATION_ERROR');
    // The chat's client still refuses every other private address.
    const other = await t.container.llmOutbound!.request({ url: `http://127.0.0.1:1/v1` }).catch((e: unknown) => e);
    expect((other as { code?: string }).code).toBe('VALIDATION_ERROR');
  });

  it('chat still reaches the configured model', async () => {
    fake.reset();
    fake.reply = 'Hello from the model';
    const res = await t.request('POST', '/api/v1/brain/chat', { token: owner.token, body: { message: 'Hi there' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ reply: 'Hello from the model', mode: 'llm' });
    expect(fake.requests).toHaveLength(1);
  });
});
