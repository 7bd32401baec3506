// @engine-independent: the published OpenAPI document is the same on either engine (its tests are skipped on PostgreSQL already)
/**
 * The served /openapi.json lints clean with Redocly CLI (`recommended`) and Spectral
 * (`spectral:oas`): any error or warning fails, except the ones kept on purpose, each with its
 * reason, in redocly.yaml / .redocly.lint-ignore.yaml / .spectral.yaml. It also checks what
 * the linters cannot: shared shapes are named components, the access rule of every route is in
 * the document in machine-readable form, and optional bodies are not marked required.
 *
 * The document does not depend on the storage engine, so this file runs on SQLite only.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogRoute } from '../src/http/access.js';
import { OPENAPI_TAGS } from '../src/http/openapi.js';
import { createTestApp, ENGINE, type TestApp } from './harness.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '..');

/** A package's command-line entry point, run with this Node (no npx, no network). */
function binOf(pkg: string, name: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name]!;
  return path.join(path.dirname(manifestPath), bin);
}

/** The linters read nothing from the network: no usage data, no update check. */
const LINT_ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NO_COLOR: '1',
};

async function lint(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, env: LINT_ENV, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A linter's JSON report; a linter that could not run says why in the failure. */
function parseReport(out: { code: number; stdout: string; stderr: string }): unknown {
  try {
    return JSON.parse(out.stdout);
  } catch {
    throw new Error(`The linter printed no JSON report (exit ${out.code}): ${out.stderr.slice(0, 2000)} ${out.stdout.slice(0, 2000)}`);
  }
}

describe.skipIf(ENGINE !== 'sqlite')('the published OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  let dir: string;
  let catalog: CatalogRoute[];

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    catalog = t.app.routeCatalog;
    // The configs name the document `openapi.json` beside them, as when one lints a saved copy by hand.
    dir = mkdtempSync(path.join(tmpdir(), 'hearth-openapi-lint-'));
    writeFileSync(path.join(dir, 'openapi.json'), res.text);
    for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml', '.spectral.yaml']) copyFileSync(path.join(ROOT, file), path.join(dir, file));
  });

  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Redocly (recommended) reports no error and no warning', async () => {
    const out = await lint([binOf('@redocly/cli', 'redocly'), 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'], dir);
    const report = parseReport(out) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>;
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(out.code, out.stderr).toBe(0);
  });

  it('Spectral (spectral:oas) reports nothing at all', async () => {
    const out = await lint(
      [binOf('@stoplight/spectral-cli', 'spectral'), 'lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet'],
      dir,
    );
    const results = parseReport(out) as Array<{ code: string; severity: number; message: string; path: string[] }>;
    const problems = results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
    expect(problems).toEqual([]);
    expect(out.code, out.stderr).toBe(0);
  });

  it('names the shared shapes under components.schemas and refers to them', () => {
    const names = Object.keys(doc.components.schemas);
    // The error body, a pagination envelope and a resource of each of several modules.
    expect(names).toEqual(expect.arrayContaining(['ErrorResponse', 'MemoryEntry', 'MemoryEntryPage', 'Token', 'Persona', 'Skill', 'VaultToken', 'AfpDevice']));
    const responses = doc.paths['/api/v1/memory'].get.responses;
    for (const status of ['4XX', '5XX']) expect(responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    const page = responses['200'].content['application/json'].schema;
    expect(page).toEqual({ $ref: '#/components/schemas/MemoryEntryPage' });
    expect(doc.components.schemas.MemoryEntryPage.properties.data.items).toEqual({ $ref: '#/components/schemas/MemoryEntry' });
    // Every named shape is used: nothing is hoisted that no operation reaches.
    const text = JSON.stringify(doc);
    const unused = names.filter((n) => !text.includes(`"#/components/schemas/${n}"`));
    expect(unused).toEqual([]);
  });

  it("states each route's access rule in x-access and x-required-scopes, and lists no scope under the token schemes", () => {
    const problems: string[] = [];
    for (const route of catalog) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      const where = `${route.method} ${route.path}`;
      if (!op) {
        problems.push(`${where}: not in the document`);
        continue;
      }
      if (op['x-access'] !== route.access.kind) problems.push(`${where}: x-access ${op['x-access']}, expected ${route.access.kind}`);
      const scopes = route.access.kind === 'scope' ? [...route.access.anyOf] : undefined;
      if (JSON.stringify(op['x-required-scopes']) !== JSON.stringify(scopes)) problems.push(`${where}: x-required-scopes ${JSON.stringify(op['x-required-scopes'])}`);
      for (const requirement of op.security ?? []) {
        for (const [scheme, list] of Object.entries<unknown[]>(requirement)) if (list.length > 0) problems.push(`${where}: scopes under ${scheme}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents the wildcard pass-through with a named path parameter and a free-form query', () => {
    expect(doc.paths['/api/v1/services/{service}/{*}']).toBeUndefined();
    const op = doc.paths['/api/v1/services/{service}/{path}'].get;
    const byName = Object.fromEntries(op.parameters.map((p: any) => [`${p.in}:${p.name}`, p]));
    expect(byName['path:service']).toMatchObject({ required: true });
    expect(byName['path:path']).toMatchObject({ required: true, schema: { type: 'string', 'x-allow-reserved': true } });
    expect(byName['query:query']).toMatchObject({ style: 'form', explode: true, schema: { type: 'object', additionalProperties: { type: 'string' } } });
  });

  it('does not mark as required a body that may be left out', () => {
    for (const [p, method] of [
      ['/api/v1/tokens/master/regenerate', 'post'],
      ['/api/v1/tokens/{id}/regenerate', 'post'],
      ['/api/v1/handshakes/{id}/approve', 'post'],
    ] as const) {
      expect(doc.paths[p]?.[method]?.requestBody, `${method} ${p}`).toMatchObject({ required: false });
    }
    expect(doc.paths['/api/v1/memory'].post.requestBody.required).toBe(true);
  });

  it('describes every tag it uses, and uses every tag it describes', () => {
    const used = new Set<string>();
    for (const item of Object.values<any>(doc.paths)) for (const op of Object.values<any>(item)) for (const tag of op.tags ?? []) used.add(tag);
    expect([...used].sort()).toEqual(OPENAPI_TAGS.map((tag) => tag.name).sort());
    expect(doc.tags.every((tag: any) => typeof tag.description === 'string' && tag.description.length > 0)).toBe(true);
  });
});
