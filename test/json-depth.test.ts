/**
 * JSON nested without bound: every JSON body has a depth limit (400 beyond it, before anything
 * recursive touches it), and an upstream answer nested deeper than that is handed back as
 * text instead of overflowing the stack when the answer is serialized.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/lib/json-depth.js';
import { createTestApp, expectError, type Owner, type TestApp } from './harness.js';

let t: TestApp;
let owner: Owner;
let upstream: Server;
let upstreamUrl: string;
let received = 0;
const DEEP_ANSWER = '{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

beforeAll(async () => {
  // An upstream that answers JSON nested 100,000 deep (a hostile or broken API).
  upstream = createServer((req, res) => {
    received += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url?.startsWith('/deep') ? DEEP_ANSWER : '{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  t = await createTestApp({ config: { allowPrivateNetwork: true } });
  owner = await t.createOwner();
  const created = await t.request('POST', '/api/v1/connectors', { token: owner.token, body: { name: 'deep', baseUrl: upstreamUrl, authType: 'none' } });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

const raw = (url: string, text: string) =>
  t.request('POST', url, { token: owner.token, body: text, headers: { 'content-type': 'application/json' } });

describe('JSON request bodies', () => {
  it('a proxy or execute body nested 100,000 deep answers 400 naming the limit, and nothing is sent', async () => {
    const before = received;
    const proxy = await raw('/api/v1/services/deep/proxy', `{"method":"POST","path":"/x","body":${nested(100_000)}}`);
    expectError(proxy, 400, 'VALIDATION_ERROR');
    expect(proxy.body.message).toContain(`${MAX_JSON_DEPTH} levels`);
    const execute = await raw(
      '/api/v1/services/deep/execute',
      `{"method":"request","params":{"httpMethod":"POST","path":"/x","body":${nested(100_000)}}}`,
    );
    expectError(execute, 400, 'VALIDATION_ERROR');
    expect(received).toBe(before);
  });

  it('applies to every JSON route, just past the limit', async () => {
    // The body object itself is one level; its field one more.
    const over = await raw('/api/v1/memory', `{"content":${nested(MAX_JSON_DEPTH)}}`);
    expectError(over, 400, 'VALIDATION_ERROR');
    expect(over.body.message).toMatch(/levels deep/);
    const prefs = await raw('/api/v1/preferences', `{"a":${nested(MAX_JSON_DEPTH)}}`);
    expectError(prefs, 400, 'VALIDATION_ERROR');
  });

  it('a body at the limit is served, and brackets inside strings do not count', async () => {
    const atLimit = await raw('/api/v1/services/deep/proxy', `{"method":"POST","path":"/x","body":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(atLimit.status, atLimit.text).toBe(200);
    const text = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: '['.repeat(10_000) } });
    expect(text.status).toBe(201);
  });
});

describe('upstream JSON answers', () => {
  it('nested 100,000 deep is answered as text, not a 500', async () => {
    const res = await t.request('POST', '/api/v1/services/deep/proxy', { token: owner.token, body: { method: 'GET', path: '/deep' } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.data.encoding).toBe('text');
    expect(res.body.data.body).toBe(DEEP_ANSWER);
  });
});
