import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/harness.js';
import { CONSOLE_PAGES, SIGNED_OUT_PAGES } from './console.pages.js';
import { CONSOLE_CSP } from './console.routes.js';
import { CONSOLE_DIR } from './console.files.js';

/**
 * The console as the server serves it (the build's output in dist/web, made by npm install).
 * What the browser does with it is tested in a real browser (test/browser).
 */
let t: TestApp;
const index = readFileSync(path.join(CONSOLE_DIR, 'index.html'), 'utf8');
const scripts = [...index.matchAll(/<script[^>]*\bsrc="\/assets\/([^"]+)"/g)].map((match) => match[1]!);
const styles = [...index.matchAll(/<link[^>]*\bhref="\/assets\/([^"]+\.css)"/g)].map((match) => match[1]!);

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('the console page', () => {
  it.each([...CONSOLE_PAGES, ...SIGNED_OUT_PAGES].map((page) => page.path))('%s answers the console with a strict CSP, never cached stale', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe(index);
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('allows no inline script or style, no other origin and no framing', () => {
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("style-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-|\*|https?:/);
    // The page itself complies: every script is a file of the console, none is inline.
    expect(scripts.length).toBeGreaterThan(0);
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/<style|\son[a-z]+=|style="/);
    expect(index).not.toMatch(/https?:\/\//);
  });

  it('is compressed when the browser accepts it', async () => {
    const br = await get('/', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(index);
    const gzip = await get('/', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString('utf8')).toBe(index);
    expect(gzip.headers.vary).toBe('accept-encoding');
  });

  it('sends a browser that came by another loopback name to the public address, where signing in works', async () => {
    const canonical = new URL(t.config.publicBaseUrl);
    const other = canonical.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    const res = await get('/agents?x=1', { host: `${other}:${canonical.port}` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${canonical.origin}/agents?x=1`);
    // Another port, or a name that is not a loopback one, is served as it comes.
    expect((await get('/', { host: `${other}:1` })).statusCode).toBe(200);
    expect((await get('/', { host: 'hearth.example.org' })).statusCode).toBe(200);
    expect((await get('/', { host: canonical.host })).statusCode).toBe(200);
  });

  it('leaves every other address as it was: unknown ones 404, routes of another method 405, the API untouched', async () => {
    expectError(await t.request('GET', '/nothing-here'), 404, 'ROUTE_NOT_FOUND');
    expectError(await t.request('GET', '/agents/extra'), 404, 'ROUTE_NOT_FOUND');
    expectError(await t.request('GET', '/token'), 405, 'METHOD_NOT_ALLOWED');
    expectError(await t.request('POST', '/agents'), 405, 'METHOD_NOT_ALLOWED');
    expectError(await t.request('GET', '/api/v1/no-such-route'), 404, 'ROUTE_NOT_FOUND');
    expect((await t.request('GET', '/api/v1/')).status).toBe(200);
  });
});

describe("the console's files", () => {
  it('are served with their content type, kept for a year, compressed on request', async () => {
    for (const name of [...scripts, ...styles]) {
      const file = readFileSync(path.join(CONSOLE_DIR, 'assets', name));
      const plain = await get(`/assets/${name}`);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-type']).toBe(name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.rawPayload.equals(file)).toBe(true);
      const br = await get(`/assets/${name}`, { 'accept-encoding': 'br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.rawPayload).equals(file)).toBe(true);
    }
  });

  it('stay inside the console: unknown names and paths out of the folder are 404', async () => {
    expectError(await t.request('GET', '/assets/index-missing.js'), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/assets/..%2F..%2Fpackage.json'), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/assets/..%2Findex.html'), 404, 'NOT_FOUND');
    const traversal = await get('/assets/../../package.json');
    expect(traversal.statusCode).toBe(404);
    expect(traversal.body).not.toContain('"dependencies"');
  });

  it('weigh at most 250 KB of JavaScript, gzipped, on first load', () => {
    const gzipped = scripts.reduce((sum, name) => sum + readFileSync(path.join(CONSOLE_DIR, 'assets', `${name}.gz`)).length, 0);
    expect(gzipped).toBeLessThanOrEqual(250 * 1024);
  });
});
