/**
 * The guides say only true, complete things: every error code the server can answer is in
 * llms.txt and the README, every path they (and the reference in docs/) name is a route, and
 * the documents agree with each other on the base address and the handshake.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/http/errors.js';
import { createTestApp, type TestApp } from './harness.js';

const BASE = 'https://hearth.example.test';
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
/** The README and the reference it links to, one file per area in docs/. */
const DOCS_DIR = new URL('../docs/', import.meta.url);
const readDoc = (name: string) => readFileSync(new URL(name, DOCS_DIR), 'utf8');
const GUIDES = [README, ...readdirSync(DOCS_DIR).filter((name) => name.endsWith('.md')).map(readDoc)].join('\n');

let t: TestApp;
let llms: string;
let routePatterns: Array<{ path: string; regex: RegExp }>;

beforeAll(async () => {
  t = await createTestApp({ config: { publicBaseUrl: BASE } });
  const res = await t.request('GET', '/llms.txt');
  expect(res.status).toBe(200);
  llms = res.text;
  type Operation = { parameters?: Array<{ in: string; name: string; schema?: { 'x-allow-reserved'?: boolean } }> };
  const openapi = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  // `{param}` is one segment; a parameter that may hold slashes (the services pass-through's
  // `{path}`, marked x-allow-reserved) is the rest of the path.
  routePatterns = Object.entries(openapi.paths).map(([path, operations]) => {
    const spanning = new Set(
      Object.values(operations).flatMap((op) => (op.parameters ?? []).filter((p) => p.in === 'path' && p.schema?.['x-allow-reserved']).map((p) => `{${p.name}}`)),
    );
    const source = path
      .split(/(\{[^}]*\})/)
      .map((part) => (spanning.has(part) ? '.+' : part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    return { path, regex: new RegExp(`^${source}$`) };
  });
});

afterAll(async () => t.close());

/**
 * Every `/api/v1/…` address a text names, with `{param}` and `…` placeholders filled in. A
 * trailing `/…` or `/*` ("anything below") is kept as a prefix ending in `/`.
 */
function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/\/api\/v1\/[A-Za-z0-9_{}.*:~…-]*(?:\/[A-Za-z0-9_{}.*:~…-]*)*/g)) {
    let path = match[0].replace(/[.:]+$/, '');
    // The guides show the doubled prefix as the mistake that answers 404; it is not a route.
    if (path.startsWith('/api/v1/api/v1')) continue;
    path = path.replace(/\/(?:…|\*)$/, '/');
    path = path.replace(/\{[^}]*\}/g, 'x').replace(/[^/]*…[^/]*/g, 'x');
    found.add(path);
  }
  return [...found];
}

const routed = (path: string) =>
  path.endsWith('/') && path !== '/api/v1/'
    ? routePatterns.some((r) => r.path.startsWith(path))
    : routePatterns.some((r) => r.regex.test(path));

const unknownPaths = (text: string) => namedPaths(text).filter((path) => !routed(path));

describe('llms.txt and the README', () => {
  it('name every error code the server can answer, with its status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(llms, `llms.txt misses ${code}`).toMatch(new RegExp(`\\b${code} ${status}\\b`));
      expect(README, `README misses ${code}`).toMatch(new RegExp(`\\| ${status} \\| \`${code}\` \\|`));
    }
  });

  it('name only paths the server routes', () => {
    // The check itself tells a route from a made-up address.
    expect(unknownPaths('GET /api/v1/skills/{id}/content, /api/v1/afp/…, /api/v1/nope/{id} and /api/v1/afp/dev_…/nope')).toEqual([
      '/api/v1/nope/x',
      '/api/v1/afp/x/nope',
    ]);
    const inLlms = namedPaths(llms);
    expect(inLlms.length).toBeGreaterThan(100);
    expect(unknownPaths(llms)).toEqual([]);
    expect(namedPaths(GUIDES).length).toBeGreaterThan(30);
    expect(unknownPaths(GUIDES)).toEqual([]);
  });

  it('refer only to what the reader has: llms.txt has no noTokenFlow key, and no internal notes', () => {
    expect(llms).not.toMatch(/noTokenFlow/);
    expect(llms).toContain('No token yet? Follow the steps of "No token yet: the handshake" above.');
    expect(llms).not.toMatch(/\(added:|the specification has/i);
  });
});

describe('the base address', () => {
  it('discovery and quick-start both carry canonicalBaseUrl, which their important guidance names', async () => {
    const discovery = (await t.request('GET', '/api/v1/')).body;
    const quickStart = (await t.request('GET', '/api/v1/quick-start')).body;
    expect(discovery.canonicalBaseUrl).toBe(BASE);
    expect(quickStart.canonicalBaseUrl).toBe(BASE);
    for (const doc of [discovery, quickStart]) expect(doc.important).toMatch(/base address \(canonicalBaseUrl\) exactly as given/);
    expect(llms).toContain(`Base address: ${BASE}`);
  });
});

describe('the README and its reference in docs/ show what a reader needs to act', () => {
  it("the owner's side of a handshake with curl: list, approve with its body, deny", () => {
    expect(README).toMatch(/curl -s '[^']*\/api\/v1\/handshakes\?status=pending' -H "authorization: Bearer \$OWNER"/);
    expect(README).toMatch(/curl -s -X POST \S*\/api\/v1\/handshakes\/[^/\s]+\/approve[\s\S]{0,200}-d '\{"scopes":\[/);
    expect(README).toMatch(/curl -s -X POST \S*\/api\/v1\/handshakes\/[^/\s]+\/deny/);
  });

  it('the POST /tokens body, which the server accepts as written', async () => {
    const match = README.match(/curl -s \S*\/api\/v1\/tokens -H "authorization: Bearer \$OWNER" \\\n\s*-H 'content-type: application\/json' \\\n\s*-d '([^']+)'/);
    expect(match).not.toBeNull();
    const owner = await t.createOwner('Readme');
    const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: JSON.parse(match![1]!) });
    expect(res.status).toBe(201);
    expect(res.body.data.token).toMatch(/^hth_pat_/);
  });

  it('the handshake approval body of the README is accepted as written', async () => {
    const match = README.match(/\/approve -H "authorization: Bearer \$OWNER" \\\n\s*-H 'content-type: application\/json' -d '([^']+)'/);
    expect(match).not.toBeNull();
    const owner = await t.createOwner('Approver');
    const created = await t.request('POST', '/api/v1/handshakes', {
      body: { agentId: 'readme-agent', requestedScopes: ['read', 'availability'], message: 'README check', ownerId: owner.id },
    });
    expect(created.status).toBe(201);
    const approved = await t.request('POST', `/api/v1/handshakes/${created.body.data.handshakeId}/approve`, {
      token: owner.token,
      body: JSON.parse(match![1]!),
    });
    expect(approved.status).toBe(200);
    expect(approved.body.data.handshake.status).toBe('approved');
    // The README's sketch of the answer names the same token kind.
    const kind = (approved.body.data.token as string).slice(0, 'hth_xxx_'.length);
    expect(README).toContain(`"token": "${kind}…"`);
  });

  it("exec's timeout with its unit (docs/remote-pcs.md), and the Stripe event types and fields the webhook reads (docs/billing.md)", () => {
    const remotePcs = readDoc('remote-pcs.md');
    const billing = readDoc('billing.md');
    expect(remotePcs).toMatch(/`timeout` is in \*\*milliseconds\*\*/);
    expect(remotePcs).toMatch(/"timeout":\d{4,}/);
    for (const type of ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'customer.subscription.deleted']) {
      expect(billing).toMatch(new RegExp(`\\| \`${type.replace(/\./g, '\\.')}\` \\|`));
    }
    for (const field of ['client_reference_id', 'metadata.userId', 'metadata.planId', 'payment_status', 'data.object', 'livemode']) {
      expect(billing).toContain(`\`${field}\``);
    }
  });
});
