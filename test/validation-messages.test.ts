/**
 * Validation errors speak to people: a refused value is explained in words (never a regular
 * expression or Ajv's jargon), and a missing field says what it is for. The details keep their
 * `{ field, message }` shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATTERN_MESSAGE } from '../src/http/schemas.js';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from './harness.js';

let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Validation');
});

afterAll(async () => t.close());

type Detail = { field: string; message: string };

/** Ajv's own wording, which must never reach a client. */
const JARGON = /must match pattern|must NOT have|must have required property|must match format|must be equal to constant|must match a schema in anyOf|must be (string|integer|number|boolean|object|array|null)\b|must be [<>]=?/;

function detailsOf(res: ApiResponse): Detail[] {
  const body = expectError(res, 400, 'VALIDATION_ERROR');
  const details = body.details as Detail[];
  expect(Array.isArray(details)).toBe(true);
  for (const d of details) {
    expect(Object.keys(d).sort()).toEqual(['field', 'message']);
    expect(d.message).not.toMatch(JARGON);
  }
  expect(body.message).not.toMatch(JARGON);
  return details;
}

const messageFor = (details: Detail[], field: string) => details.find((d) => d.field === field)?.message;

describe('validation messages in words', () => {
  it('a skill name that does not fit says what a skill name is, not the pattern', async () => {
    const res = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: '-no good!' } });
    const details = detailsOf(res);
    expect(details).toEqual([
      {
        field: 'body.name',
        message: 'is not valid: a skill name is 1–100 letters, digits, dots, dashes or underscores, starting with a letter or digit',
      },
    ]);
    expect(res.body.message).toBe(`Invalid request: body.name ${details[0]!.message}`);
  });

  it('a missing field says it is required and what it is for', async () => {
    const skill = detailsOf(await t.request('POST', '/api/v1/skills', { token: owner.token, body: {} }));
    expect(messageFor(skill, 'body.name')).toMatch(/^is required: the skill name, which is also its slug: 1 to 100 ASCII letters/);

    const handshake = detailsOf(await t.request('POST', '/api/v1/handshakes', { body: { requestedScopes: ['read'], message: 'hi' } }));
    expect(handshake).toEqual([{ field: 'body.agentId', message: 'is required: a unique id the agent chooses for itself' }]);

    const token = detailsOf(await t.request('POST', '/api/v1/tokens', { token: owner.token, body: {} }));
    expect(messageFor(token, 'body.name')).toMatch(/^is required: .{10,}/);
    expect(messageFor(token, 'body.scopes')).toMatch(/^is required: .{10,}/);
  });

  it('a value outside a closed list names the accepted values once', async () => {
    const res = await t.request('POST', '/api/v1/handshakes', { body: { agentId: 'a-1', requestedScopes: ['vault'], message: 'hi' } });
    expect(detailsOf(res)).toEqual([{ field: 'body.requestedScopes.0', message: 'must be one of: read, professional, availability' }]);
  });

  it('lengths, numbers, lists, formats and types read as plain words', async () => {
    const tokensRes = await t.request('POST', '/api/v1/tokens', {
      token: owner.token,
      body: { name: '', scopes: ['memory', 'memory'], expiresAt: 'next tuesday' },
    });
    const tokens = detailsOf(tokensRes);
    expect(tokensRes.body.message).toBe('Invalid request: body.name must not be empty (and 2 more in details)');
    expect(messageFor(tokens, 'body.name')).toBe('must not be empty');
    expect(tokens).toHaveLength(3);
    expect(messageFor(tokens, 'body.scopes')).toBe('must not repeat an item (items 0 and 1 are the same)');
    // A date or null: one detail naming both forms.
    expect(tokens.filter((d) => d.field === 'body.expiresAt')).toEqual([
      { field: 'body.expiresAt', message: 'must be a date and time in ISO 8601 with a time zone, e.g. 2026-01-31T09:30:00Z, or null' },
    ]);

    const long = detailsOf(
      await t.request('POST', '/api/v1/handshakes', { body: { agentId: 'a-1', requestedScopes: [], message: 'x'.repeat(1001) } }),
    );
    expect(messageFor(long, 'body.message')).toBe('must be at most 1000 characters long');
    expect(messageFor(long, 'body.requestedScopes')).toBe('must not be empty: give at least one item');

    const query = detailsOf(await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { limit: 'ten' } }));
    expect(messageFor(query, 'querystring.limit')).toBe('must be a whole number');
    const over = detailsOf(await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { limit: 500 } }));
    expect(messageFor(over, 'querystring.limit')).toBe('must be at most 200');

    const typed = detailsOf(await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: { text: 'hi' } } }));
    expect(messageFor(typed, 'body.content')).toBe('must be a string');
  });

  it('an id with characters no id has says which characters an id is made of', async () => {
    const details = detailsOf(await t.request('GET', '/api/v1/tokens/not*an*id', { token: owner.token }));
    expect(details).toEqual([
      { field: 'params.id', message: 'is not valid: only letters, digits, dashes (-) and underscores (_) are accepted' },
    ]);
  });

  it("a service method's params are explained the same way, from the catalogue's descriptions", async () => {
    const api = await t.tokenWithScopes(owner, ['services:write']);
    const res = await t.request('POST', '/api/v1/services/github/execute', {
      token: api,
      body: { method: 'createIssue', params: { owner: 'octo', repo: '', labels: 'bug' } },
    });
    // Params are checked before any credential is looked up, so no connection is needed for this.
    const details = detailsOf(res);
    expect(messageFor(details, 'body.params.title')).toBe("is required: the issue's title");
    expect(messageFor(details, 'body.params.repo')).toBe('must not be empty');
    expect(messageFor(details, 'body.params.labels')).toBe('must be a list (a JSON array)');
  });

  it('the refusal of non-finite numbers keeps its own words', async () => {
    const details = detailsOf(await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { limit: '1e999' } }));
    expect(messageFor(details, 'querystring.limit')).toMatch(/finite number/);
  });
});

/** Every request schema of the OpenAPI document: parameters and bodies. */
function requestSchemas(doc: any): Array<{ where: string; schema: unknown }> {
  const out: Array<{ where: string; schema: unknown }> = [];
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      if (!op || typeof op !== 'object') continue;
      for (const p of op.parameters ?? []) out.push({ where: `${method.toUpperCase()} ${path} ${p.in}.${p.name}`, schema: p.schema });
      for (const [type, content] of Object.entries<any>(op.requestBody?.content ?? {})) {
        out.push({ where: `${method.toUpperCase()} ${path} body (${type})`, schema: content.schema });
      }
    }
  }
  return out;
}

function walk(node: unknown, visit: (schema: Record<string, unknown>, path: string) => void, path = ''): void {
  if (Array.isArray(node)) return node.forEach((n, i) => walk(n, visit, `${path}/${i}`));
  if (!node || typeof node !== 'object') return;
  visit(node as Record<string, unknown>, path);
  for (const [key, value] of Object.entries(node)) walk(value, visit, `${path}/${key}`);
}

describe('the published contract', () => {
  it('every pattern of the OpenAPI document has words saying what it accepts', async () => {
    const { body: doc } = await t.request('GET', '/openapi.json');
    const without: string[] = [];
    let patterns = 0;
    walk(doc, (s, path) => {
      // A schema's `pattern` is a string; `properties.pattern` (a field named pattern) is an object.
      if (typeof s.pattern !== 'string') return;
      patterns++;
      const words = s[PATTERN_MESSAGE];
      if (typeof words !== 'string' || words.trim().length < 10) without.push(`${path}: ${s.pattern}`);
    });
    expect(requestSchemas(doc).length).toBeGreaterThan(100);
    expect(patterns).toBeGreaterThan(50);
    expect(without).toEqual([]);
  });

  it('every required body field says what it is for, so that its absence can be explained', async () => {
    const { body: doc } = await t.request('GET', '/openapi.json');
    const without: string[] = [];
    for (const { where, schema } of requestSchemas(doc)) {
      if (!where.includes(' body ')) continue;
      walk(schema, (s, path) => {
        const properties = s.properties as Record<string, { description?: unknown }> | undefined;
        if (!properties || !Array.isArray(s.required)) return;
        for (const name of s.required as string[]) {
          const description = properties[name]?.description;
          if (typeof description !== 'string' || !description.trim()) without.push(`${where}${path}.${name}`);
        }
      });
    }
    expect(without).toEqual([]);
  });
});
