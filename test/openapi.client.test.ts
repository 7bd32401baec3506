/**
 * A client generated from the served /openapi.json covers the whole API:
 * 1. openapi-typescript generates types from the live document;
 * 2. the client program (test/client/hearth.client.ts, openapi-fetch) type-checks against them;
 * 3. run against a listening server, it calls every route family, the wildcard pass-through
 *    with a path of several segments and a query string included, and every answer validates
 *    against the schema the document declares for its status, with undeclared fields refused.
 *
 * The document does not depend on the storage engine, but the answers do (rows read back from
 * the database), so the calls run on both engines; the type-check runs on SQLite only.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientRunResult, Exchange, RunClientProgram } from './client/client.types.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai.js';
import { startFakeUpstream, type FakeUpstream } from './fakes/upstream.js';
import { createTestApp, ENGINE, type TestApp } from './harness.js';

const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;
const ROOT = path.resolve(import.meta.dirname, '..');
const PROGRAM = path.join(ROOT, 'test/client/hearth.client.ts');
const GENERATED = path.join(ROOT, 'test/client/hearth-api.generated.ts');

/** The route families an integrator uses; each must be called at least once (tags in the document). */
const FAMILIES = [
  'accounts',
  'tokens',
  'handshakes',
  'identity',
  'preferences',
  'personas',
  'skills',
  'memory',
  'knowledge',
  'vault',
  'services',
  'connectors',
  'oauth',
  'afp',
  'chat',
  'marketplace',
  'billing',
  'audit',
  'discovery',
  'gateway',
];

type Json = Record<string, any>;

/**
 * The document's schemas made strict: an object that lists its properties and says nothing of
 * others accepts no others, so an answer carrying a field the document does not declare fails.
 * `$ref`s to components point into the schema registered as `hearth`.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace('#/components/schemas/', 'hearth#/$defs/');
    else out[key] = ['default', 'examples', 'example', 'const', 'enum'].includes(key) ? value : strict(value);
  }
  if (out.properties && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Type-checks the client program with the project's compiler options, the generated types served from memory. */
function typeCheck(generated: string): string[] {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const isGenerated = (file: string) => path.resolve(file) === GENERATED;
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => isGenerated(file) || fileExists.call(host, file);
  host.readFile = (file) => (isGenerated(file) ? generated : readFile.call(host, file));
  host.getSourceFile = (file, language, onError, create) =>
    isGenerated(file) ? ts.createSourceFile(file, generated, language, true) : getSourceFile.call(host, file, language, onError, create);
  const program = ts.createProgram({ rootNames: [PROGRAM], options: { ...options, noEmit: true }, host });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? path.relative(ROOT, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

let t: TestApp;
let upstream: FakeUpstream;
let llm: FakeOpenAI;
let doc: Json;
let generated: string;
let baseUrl: string;
let result: ClientRunResult;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  llm = await startFakeOpenAI();
  t = await createTestApp({
    config: {
      // The echo service listens on loopback.
      allowPrivateNetwork: true,
      llm: { baseUrl: `${llm.url}/v1`, apiKey: llm.apiKey, model: 'test-model', timeoutMs: 5000 },
    },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('the test server has no port');
  const res = await t.request('GET', '/openapi.json');
  doc = res.body;
  baseUrl = `http://127.0.0.1:${address.port}`;
  // Fields with a default are optional in requests (the server fills them in).
  generated = astToString(await openapiTS(doc as never, { defaultNonNullable: false }));
});

afterAll(async () => {
  await t?.close();
  await upstream?.close();
  await llm?.close();
});

describe('a client generated from /openapi.json', () => {
  it('generates named types for the shared shapes', () => {
    expect(generated).toMatch(/\bMemoryEntryPage: \{/);
    expect(generated).toMatch(/\bErrorResponse: \{/);
    expect(generated).toContain('"/api/v1/services/{service}/{path}"');
  });

  // The document is the same on both engines; checking the program once saves CI several seconds.
  // A whole TypeScript program to check: nearer 20 s than 5 on a busy machine.
  it.skipIf(ENGINE !== 'sqlite')('type-checks the client program against the generated types', () => {
    expect(typeCheck(generated)).toEqual([]);
  }, 60_000);

  describe('run against a listening server', () => {
    beforeAll(async () => {
      // Loaded by address so that the project's type-check, which cannot see the generated
      // types, does not follow it; typeCheck above checks it against them.
      const { runClientProgram } = (await import(pathToFileURL(PROGRAM).href)) as { runClientProgram: RunClientProgram };
      result = await runClientProgram({ baseUrl, upstreamUrl: upstream.url, upstreamKey: upstream.apiKey });
    });

    it('calls every route family', () => {
      const tags = new Set<string>();
      for (const e of result.exchanges) for (const tag of doc.paths[e.path]?.[e.method.toLowerCase()]?.tags ?? []) tags.add(tag);
      expect(FAMILIES.filter((f) => !tags.has(f))).toEqual([]);
      expect(result.exchanges.length).toBeGreaterThan(60);
    });

    it('reaches the service through the wildcard pass-through with its path and query string', () => {
      const call = result.exchanges.find((e) => e.path === '/api/v1/services/{service}/{path}');
      expect(call?.status).toBe(200);
      expect(result.passThrough.status).toBe(200);
      const echoed = upstream.requests.find((r) => r.path.startsWith('/repos/'));
      expect(echoed).toMatchObject({ method: 'GET', path: '/repos/octo%20cat/hello', query: { per_page: ['5'], q: ['a&b'] } });
    });

    /** The problems of each exchange against the document; empty when it conforms. */
    function conformance(exchanges: Exchange[]): string[] {
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
      addFormats(ajv);
      ajv.addSchema({ $id: 'hearth', $defs: strict(doc.components.schemas) as object });
      const validators = new Map<string, ValidateFunction>();
      const problems: string[] = [];
      const check = (e: Exchange) => {
        const where = `${e.method} ${e.path} ${e.status}`;
        const responses = doc.paths[e.path]?.[e.method.toLowerCase()]?.responses;
        const declared = responses?.[String(e.status)] ?? responses?.[`${String(e.status)[0]}XX`];
        if (!declared) return problems.push(`${where}: status not declared`);
        const mediaType = e.contentType.split(';')[0]!.trim();
        const schema = declared.content?.[mediaType]?.schema;
        if (!schema) return problems.push(`${where}: answered ${mediaType}, which the document does not declare`);
        const key = `${where} ${mediaType}`;
        let validate = validators.get(key);
        if (!validate) validators.set(key, (validate = ajv.compile(strict(schema) as object)));
        if (!validate(e.body)) {
          problems.push(`${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })} ${validate.errors?.map((x) => JSON.stringify(x.params)).join(' ')}`);
        }
        return undefined;
      };
      for (const e of exchanges) check(e);
      return problems;
    }

    it('every answer has a declared status and validates against its declared schema, with no undeclared field', () => {
      expect(conformance(result.exchanges)).toEqual([]);
    });

    it('an answer with a field the document does not declare would be caught (the check is not vacuous)', () => {
      const page = result.exchanges.find((e) => e.method === 'GET' && e.path === '/api/v1/memory' && e.status === 200)!;
      const body = page.body as { data: Array<Record<string, unknown>> };
      expect(body.data.length).toBeGreaterThan(0);
      const extra = { ...page, body: { ...body, data: [{ ...body.data[0], undeclared: true }] } };
      expect(conformance([extra]).join('\n')).toMatch(/must NOT have additional properties.*undeclared/);
      expect(conformance([{ ...page, status: 302 }])).toEqual(['GET /api/v1/memory 302: status not declared']);
    });
  });
});
