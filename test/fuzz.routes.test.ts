/**
 * A seeded fuzz of every route the OpenAPI document lists: bodies of every wrong type (arrays,
 * numbers, strings, null, nested garbage, a wrong type for each declared property, each
 * required property left out, huge strings within the body limit, content types the route does
 * not take) and malformed path and query parameters. Whatever the input, the answer is a
 * refusal or an answer, never a 5xx: a malformed request is the caller's mistake, and a 500
 * hides what to fix. Runs on both engines.
 *
 * Deterministic: the inputs come from the document and a seeded generator (FUZZ_SEED to try
 * another seed; a failure names the seed, the request and the answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES } from '../src/modules/permissions/permissions.scopes.js';
import { ACTION_CLASS_NAMES } from '../src/modules/permissions/permissions.actions.js';
import { loadConfig } from '../src/config.js';
import { policyToken } from './approvals.helpers.js';
import { createTestApp, type Owner, type TestApp } from './harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);

/** mulberry32: a small seeded generator, the same sequence for the same seed everywhere. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Schema = Record<string, any>;

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  method: string;
  path: string;
  access: string;
  /** The route's action class (`by-request` when the request decides), when a policy may hold it. */
  actionClass: string | undefined;
  parameters: Parameter[];
  /** Content type → schema of the request body, when the route takes one. */
  bodies: Record<string, Schema>;
}

/** One request the fuzz sends. */
interface Probe {
  url: string;
  contentType?: string;
  payload?: string;
  /** Headers beside the token and the content type. */
  headers?: Record<string, string>;
  /** Sent without the route's token (a credential of its own is in `headers`). */
  anonymous?: boolean;
  what: string;
}

let t: TestApp;
let admin: Owner;
let doc: { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };

beforeAll(async () => {
  // Google and Stripe configured (at a closed local port), so that their routes answer as they
  // do for real: 503 PROVIDER_NOT_CONFIGURED is the right answer on a server without them,
  // whatever the request, and would hide what they do with a malformed one.
  const outside = loadConfig({
    GOOGLE_CLIENT_ID: 'fuzz-client',
    GOOGLE_CLIENT_SECRET: 'fuzz-secret',
    GOOGLE_ENDPOINT_OVERRIDE: 'http://127.0.0.1:9',
    STRIPE_SECRET_KEY: 'sk_test_fuzz',
    STRIPE_WEBHOOK_SECRET: 'whsec_fuzz',
    STRIPE_API_BASE_URL: 'http://127.0.0.1:9',
  });
  // Many held requests per token (the second pass holds whatever validates); the bytes keep their cap.
  t = await createTestApp({ config: { google: outside.google, stripe: outside.stripe, approvalLimits: { ...outside.approvalLimits, pendingPerToken: 100_000, pendingPerOwner: 1_000_000 } } });
  admin = await t.createOwner('Fuzz admin'); // the first account: every right
  doc = (await t.request('GET', '/openapi.json')).body;
});
afterAll(async () => t.close());

function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 20 && typeof current.$ref === 'string'; i++) {
    current = doc.components?.schemas?.[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return current;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // A stream never ends by itself (the account's events, MCP's server-to-client stream).
      const ok = op.responses?.['200']?.content ?? {};
      if (method === 'get' && Object.keys(ok).length > 0 && Object.keys(ok).every((type) => type.includes('event-stream'))) continue;
      const bodies: Record<string, Schema> = {};
      for (const [type, content] of Object.entries<any>(op.requestBody?.content ?? {})) bodies[type] = resolve(content.schema);
      out.push({ method: method.toUpperCase(), path, access: String(op['x-access']), actionClass: op['x-action-class'], parameters: op.parameters ?? [], bodies });
    }
  }
  // Master-only routes first: a later route may replace the master token (its regeneration).
  return out.sort((a, b) => Number(b.access === 'master') - Number(a.access === 'master'));
}

/** The JSON types a schema accepts (none listed: any). */
function typesOf(schema: Schema): Set<string> {
  const s = resolve(schema);
  const types = new Set<string>();
  const add = (type: unknown) => [type].flat().forEach((each) => typeof each === 'string' && types.add(each));
  add(s.type);
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) for (const type of typesOf(branch)) types.add(type);
  if (s.const !== undefined) add(s.const === null ? 'null' : typeof s.const);
  if (Array.isArray(s.enum)) for (const value of s.enum) add(value === null ? 'null' : typeof value);
  if (types.has('integer')) types.add('number');
  return types;
}

/** A value the schema probably accepts: the base the single-property mutations start from. */
function sample(schema: Schema, depth = 0): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
  if (branches.length > 0) return sample(branches.find((b: Schema) => resolve(b).type !== 'null') ?? branches[0], depth + 1);
  const type = [s.type].flat()[0];
  switch (type) {
    case 'string':
      // Only loopback addresses: the server refuses to call them, so nothing leaves the machine.
      if (s.format === 'uri' || s.format === 'url') return 'http://127.0.0.1:9/fuzz';
      if (s.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (s.format === 'email') return 'fuzz@example.test';
      return 'f'.repeat(Math.max(1, Math.min(s.minLength ?? 1, 64)));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 4 || !s.minItems ? [] : Array.from({ length: Math.min(s.minItems, 3) }, () => sample(s.items ?? {}, depth + 1));
    case 'null':
      return null;
    default: {
      if (depth > 4) return {};
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = sample(s.properties?.[name] ?? {}, depth + 1);
      return out;
    }
  }
}

/** Nested garbage: objects and arrays of random depth, keys and leaves. */
function garbage(random: () => number, depth: number): unknown {
  if (depth <= 0) {
    const leaves = [null, true, false, 0, -1, 1.5, 1e308, '', 'x', '\u0000', '💥', '__proto__', '%ZZ', '<script>'];
    return leaves[Math.floor(random() * leaves.length)];
  }
  if (random() < 0.5) return [garbage(random, depth - 1), garbage(random, depth - 1)];
  const keys = ['a', '__proto__', 'constructor', 'content', 'name', 'id', '', '💥'];
  return Object.fromEntries([0, 1, 2].map(() => [keys[Math.floor(random() * keys.length)]!, garbage(random, depth - 1)]));
}

/** An array nested `depth` deep: past any depth a parser or validator means to take. */
const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** Values of every JSON type the schema does not accept. */
function wrongValues(schema: Schema): unknown[] {
  const accepted = typesOf(schema);
  if (accepted.size === 0) return [];
  const candidates: Array<[string, unknown]> = [
    ['string', 'not-what-was-asked'],
    ['number', -1.5],
    ['integer', Number.MAX_SAFE_INTEGER + 2],
    ['boolean', true],
    ['null', null],
    ['array', [null, {}, [1]]],
    ['object', { nested: { garbage: [1, 'x', null] } }],
  ];
  return candidates.filter(([type]) => !accepted.has(type)).map(([, value]) => value);
}

function pick<T>(random: () => number, items: T[], count: number): T[] {
  const copy = [...items];
  const out: T[] = [];
  while (copy.length > 0 && out.length < count) out.push(copy.splice(Math.floor(random() * copy.length), 1)[0]!);
  return out;
}

/** A path with each parameter replaced: `values` for the named one, an accepted value for the others. */
function fill(op: Operation, values: Record<string, string> = {}): string {
  let url = op.path;
  for (const param of op.parameters.filter((p) => p.in === 'path')) {
    const schema = resolve(param.schema);
    const valid = Array.isArray(schema.enum) ? String(schema.enum[0]) : schema.type === 'integer' || schema.type === 'number' ? '1' : 'fuzz_1';
    url = url.replace(`{${param.name}}`, values[param.name] ?? valid);
  }
  return url;
}

/** Path segments no id has: encodings that do not decode, traversal, huge, numbers out of range. */
const BAD_SEGMENTS = ['%', '%ZZ', '%00', '%E0%A4%A', '..', '%2e%2e%2f%2e%2e', 'a'.repeat(501), 'a'.repeat(400), '-1', '0', '1e999', '9'.repeat(40), '%F0%9F%94%91', '%20', '__proto__'];
/** Query values of the wrong kind, some raw (not encoded) on purpose. */
const BAD_QUERY = ['', '%ZZ', '-1', '1e999', 'NaN', 'x'.repeat(5000), 'true', '__proto__', '%00', '[]'];

function probes(op: Operation, random: () => number): Probe[] {
  const out: Probe[] = [];
  const base = fill(op);
  // Path parameters, one at a time.
  for (const param of op.parameters.filter((p) => p.in === 'path')) {
    for (const bad of BAD_SEGMENTS) out.push({ url: fill(op, { [param.name]: bad }), what: `path ${param.name}=${bad.slice(0, 20)}` });
  }
  // Query parameters, one at a time, repeated, and unknown ones.
  for (const param of op.parameters.filter((p) => p.in === 'query')) {
    for (const bad of BAD_QUERY) out.push({ url: `${base}?${param.name}=${bad}`, what: `query ${param.name}=${bad.slice(0, 20)}` });
    out.push({ url: `${base}?${param.name}=1&${param.name}=x`, what: `query ${param.name} repeated` });
  }
  out.push({ url: `${base}?__proto__[x]=1&constructor=1&a[b][c]=%ZZ`, what: 'unknown query parameters' });
  // Headers a client may get wrong: what it accepts, and credentials of the wrong form.
  for (const accept of ['text/markdown', 'text/event-stream', 'application/xml', '*/*;q=nonsense', 'text/html;q=0, application/json;q=0']) {
    out.push({ url: base, headers: { accept }, what: `accept ${accept}` });
  }
  for (const authorization of ['Bearer', 'Bearer hth_', `Bearer ${'x'.repeat(5000)}`, 'Basic !!!', 'Basic ' + Buffer.from('%E0:%').toString('base64'), 'Digest x']) {
    out.push({ url: `${base}?token=${encodeURIComponent('hth_nope')}`, headers: { authorization }, anonymous: true, what: `authorization ${authorization.slice(0, 20)}` });
  }

  const types = Object.keys(op.bodies);
  if (op.method === 'GET') return out;
  const json = (value: unknown, what: string, contentType = 'application/json'): Probe => ({ url: base, contentType, payload: JSON.stringify(value), what });
  // Bodies of every top-level type, whatever the route takes.
  for (const value of [[1], 1, 'a string', null, true, [], {}, garbage(random, 4), garbage(random, 8)]) {
    out.push(json(value, `body ${JSON.stringify(value).slice(0, 40)}`));
  }
  out.push({ url: base, contentType: 'application/json', payload: deep(200), what: 'body nested 200 deep' });
  out.push({ url: base, contentType: 'application/json', payload: JSON.stringify('x'.repeat(900_000)), what: 'body a 900 KB string' });
  // Content types the route may not take, and bodies that do not parse as what they say.
  const raw: Array<[string, string]> = [
    ['text/plain', 'hello'],
    ['application/xml', '<a><b/></a>'],
    ['application/x-www-form-urlencoded', 'a=1&a=2&b=%ZZ&&=&c[]=x'],
    ['multipart/form-data', '--nothing\r\n'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunterminated'],
    ['application/json', '{"a":'],
    ['application/json', ''],
    ['application/json; charset=utf-16', '{}'],
    ['text/markdown', '---\nname: [unclosed\n---\n' + '#'.repeat(10_000)],
    ['application/octet-stream', '\u0000\u0001\u0002'],
  ];
  for (const [contentType, payload] of raw) out.push({ url: base, contentType, payload, what: `${contentType} ${JSON.stringify(payload.slice(0, 20))}` });

  const schema = op.bodies['application/json'];
  if (!schema) return out;
  const object = resolve(schema);
  if ([object.type].flat()[0] !== 'object' && !object.properties) return out;
  const valid = sample(object) as Record<string, unknown>;
  const properties = Object.entries<Schema>(object.properties ?? {});
  // Each declared property with values of the wrong types, the others as accepted.
  for (const [name, property] of pick(random, properties, 12)) {
    for (const wrong of pick(random, wrongValues(property), 3)) out.push(json({ ...valid, [name]: wrong }, `body.${name} = ${JSON.stringify(wrong).slice(0, 30)}`));
    const nested = resolve(property);
    if (nested.type === 'object' || nested.type === 'array') out.push(json({ ...valid, [name]: garbage(random, 5) }, `body.${name} = garbage`));
  }
  // Each required property left out.
  for (const name of object.required ?? []) {
    const { [name]: _left, ...rest } = valid;
    out.push(json(rest, `body without ${name}`));
  }
  // Every string property huge (within the body limit).
  const huge = Object.fromEntries(properties.filter(([, p]) => typesOf(p).has('string')).map(([name]) => [name, 'h'.repeat(100_000)]));
  if (Object.keys(huge).length > 0) out.push(json({ ...valid, ...huge }, 'body with every string 100 KB'));
  if (types.length > 0 && !types.includes('application/json')) out.push(json(valid, 'a JSON body where the route takes another type'));
  return out;
}

describe('every route, fuzzed', () => {
  it('answers every malformed request with a 4xx, never a 5xx', { timeout: 120_000 }, async () => {
    const random = generator(SEED);
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations()) {
      // Owner routes act as a login session of the administrator (a logout ends only that one);
      // the master-only route as the master token.
      const token = op.access === 'public' ? undefined : op.access === 'master' ? admin.token : await t.login(admin);
      for (const probe of probes(op, random)) {
        const headers: Record<string, string> = {};
        if (token && !probe.anonymous) headers.authorization = `Bearer ${token}`;
        Object.assign(headers, probe.headers);
        if (probe.contentType) headers['content-type'] = probe.contentType;
        const res = await t.app.inject({ method: op.method as 'GET', url: probe.url, headers, ...(probe.payload !== undefined ? { payload: probe.payload } : {}) });
        sent++;
        if (res.statusCode >= 500) failures.push(`${op.method} ${probe.url.slice(0, 120)} [${probe.what}] → ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    }
    expect(sent).toBeGreaterThan(3000);
    expect(failures, `seed ${SEED}: ${failures.length} answers were 5xx`).toEqual([]);
  });

  // The owner's own tokens are never held, so the pass above never reaches what holding does
  // with a request (its description, the view of its fields, sealing, the caps, the address
  // check). Here a token with every scope whose policy asks for every class.
  it('answers every malformed request to a route a policy holds with a 4xx or a 202, never a 5xx', { timeout: 120_000 }, async () => {
    const random = generator(SEED + 1);
    const held = await policyToken(t, admin, SCOPE_NAMES, Object.fromEntries(ACTION_CLASS_NAMES.map((name) => [name, 'ask'])));
    const failures: string[] = [];
    let sent = 0;
    let holds = 0;
    for (const op of operations()) {
      if (!op.actionClass || op.access !== 'scope') continue;
      for (const probe of probes(op, random)) {
        const headers: Record<string, string> = {};
        if (!probe.anonymous) headers.authorization = `Bearer ${held.token}`;
        Object.assign(headers, probe.headers);
        if (probe.contentType) headers['content-type'] = probe.contentType;
        const res = await t.app.inject({ method: op.method as 'GET', url: probe.url, headers, ...(probe.payload !== undefined ? { payload: probe.payload } : {}) });
        sent++;
        if (res.statusCode === 202) holds++;
        if (res.statusCode >= 500) failures.push(`${op.method} ${probe.url.slice(0, 120)} [${probe.what}] → ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    }
    expect(sent).toBeGreaterThan(500);
    // Some probes are valid (a wrong Accept, a property of the right type): those were held.
    expect(holds).toBeGreaterThan(20);
    expect(failures, `seed ${SEED + 1}: ${failures.length} answers were 5xx`).toEqual([]);
  });
});
