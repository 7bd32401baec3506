import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { issueMessage } from '../../http/errors.js';

/**
 * The built-in service catalogue: a data file (catalogue.json), validated once at start-up.
 * Every params schema is compiled here once; a broken catalogue stops the server from
 * starting instead of failing one request at a time.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
const BODILESS: ReadonlySet<string> = new Set(['GET', 'DELETE', 'HEAD', 'OPTIONS']);
export const methodTakesBody = (method: string) => !BODILESS.has(method);

const Id = Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$' });
const HeaderName = Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" });

const CatalogueAuth = Type.Union([
  Type.Object({ kind: Type.Literal('oauth'), provider: Id }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('bearer') }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('header'), headerName: HeaderName }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('query'), param: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);

const CatalogueMethod = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_.]{0,99}$' }),
    description: Type.String({ minLength: 1 }),
    httpMethod: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))),
    path: Type.String({ pattern: '^/' }),
    params: Type.Object({ type: Type.Literal('object') }, { additionalProperties: true }),
    queryParams: Type.Optional(Type.Array(Type.String())),
    bodyTemplate: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    bodyKey: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$' })),
    docsUrl: Type.Optional(Type.String({ format: 'uri' })),
  },
  { additionalProperties: false },
);

const CatalogueService = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 1 }),
    category: Id,
    baseUrl: Type.String({ pattern: '^https://[^/?#]+(/[^?#]*)?$' }),
    docsUrl: Type.String({ format: 'uri' }),
    auth: CatalogueAuth,
    credentialHelp: Type.String({ minLength: 1 }),
    defaultHeaders: Type.Optional(Type.Record(Type.String(), Type.String())),
    methods: Type.Array(CatalogueMethod, { minItems: 1 }),
  },
  { additionalProperties: false },
);

const CatalogueFile = Type.Object(
  {
    $comment: Type.Optional(Type.String()),
    categories: Type.Array(
      Type.Object({ id: Id, name: Type.String({ minLength: 1 }), description: Type.String() }, { additionalProperties: false }),
      { minItems: 1 },
    ),
    services: Type.Array(CatalogueService, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type CatalogueServiceDef = Static<typeof CatalogueService>;
export type CatalogueFile = Static<typeof CatalogueFile>;
export type AuthKind = 'oauth' | 'bearer' | 'header' | 'query' | 'none';

/** A method ready to run: its definition and its compiled params validator. */
export interface MethodSpec {
  name: string;
  description: string;
  httpMethod: HttpMethod;
  path: string;
  params: Record<string, unknown>;
  queryParams?: string[] | undefined;
  bodyTemplate?: Record<string, unknown> | undefined;
  bodyKey?: string | undefined;
  docsUrl?: string | undefined;
  validate: ValidateFunction;
}

export interface CatalogueService extends Omit<CatalogueServiceDef, 'methods'> {
  methods: MethodSpec[];
}

export interface Catalogue {
  categories: CatalogueFile['categories'];
  services: CatalogueService[];
  get(id: string): CatalogueService | undefined;
}

export class CatalogueError extends Error {}

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

/**
 * The validator for method params: strict about schema keywords (a typo in the catalogue fails
 * start-up), never coercing or filling in (what the caller sent is what is sent on).
 */
export function createParamsAjv(options: { strict: boolean } = { strict: true }): Ajv {
  // `verbose`: each issue carries its schema, so a missing param is explained by its description.
  const ajv = new Ajv({
    allErrors: true,
    strict: options.strict,
    allowUnionTypes: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    validateFormats: true,
    verbose: true,
  });
  addFormats(ajv);
  return ajv;
}

/** `{owner}`-style placeholders of a path, in order. */
export function placeholders(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

/** Ajv's errors as `details` entries in words (`params.owner`: `is required: the account that owns the repository`). */
export function paramsErrors(errors: ErrorObject[] | null | undefined, root = 'params'): Array<{ field: string; message: string }> {
  return (errors ?? []).map((error) => {
    let field = error.instancePath ? `${root}${error.instancePath.replace(/\//g, '.')}` : root;
    if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') field = `${field}.${error.params.missingProperty}`;
    if (error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string') {
      return { field: `${field}.${error.params.additionalProperty}`, message: 'is not a parameter of this method' };
    }
    if (error.keyword === 'enum') return { field, message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
    return { field, message: issueMessage(error) };
  });
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CatalogueError(`Service catalogue: ${message}`);
}

/** Validates the catalogue file's content and compiles every params schema. */
export function buildCatalogue(raw: unknown): Catalogue {
  const shapeAjv = createParamsAjv({ strict: false });
  const validShape = shapeAjv.compile(CatalogueFile);
  if (!validShape(raw)) {
    const problems = (validShape.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new CatalogueError(`Service catalogue: not in the expected shape: ${problems.join('; ')}`);
  }
  const file = raw as CatalogueFile;
  const ajv = createParamsAjv();
  const categoryIds = new Set(file.categories.map((c) => c.id));
  check(categoryIds.size === file.categories.length, 'two categories share an id');
  const seen = new Set<string>();
  const services: CatalogueService[] = file.services.map((service) => {
    check(!seen.has(service.id), `two services are named ${service.id}`);
    seen.add(service.id);
    check(categoryIds.has(service.category), `${service.id} has unknown category ${service.category}`);
    check(!service.baseUrl.endsWith('/'), `${service.id}: baseUrl must not end with /`);
    for (const name of Object.keys(service.defaultHeaders ?? {})) {
      check(name === name.toLowerCase(), `${service.id}: default header names are lower case (${name})`);
    }
    const names = new Set<string>();
    const methods = service.methods.map((method): MethodSpec => {
      const where = `${service.id}.${method.name}`;
      check(method.name !== 'request', `${where}: "request" is the generic method every service has`);
      check(!names.has(method.name), `${service.id} has two methods named ${method.name}`);
      names.add(method.name);
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(method.params);
      } catch (error) {
        throw new CatalogueError(`Service catalogue: ${where} params is not a valid JSON Schema: ${(error as Error).message}`);
      }
      const schema = method.params as { properties?: Record<string, { type?: unknown }>; required?: string[] };
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      for (const name of placeholders(method.path)) {
        check(required.has(name), `${where}: path placeholder {${name}} must be a required param`);
        check(['string', 'integer'].includes(String(properties[name]?.type)), `${where}: path param ${name} must be a string or integer`);
      }
      for (const name of method.queryParams ?? []) check(name in properties, `${where}: queryParams names unknown param ${name}`);
      check(!method.queryParams?.length || methodTakesBody(method.httpMethod), `${where}: queryParams only applies to methods with a body`);
      check(!(method.bodyTemplate || method.bodyKey) || methodTakesBody(method.httpMethod), `${where}: a ${method.httpMethod} has no body`);
      return { ...method, params: method.params as Record<string, unknown>, validate };
    });
    return { ...service, methods };
  });
  const byId = new Map(services.map((s) => [s.id, s]));
  return { categories: file.categories, services, get: (id) => byId.get(id) };
}

let loaded: Catalogue | undefined;

/** The built-in catalogue, read and validated on first use (once per process). */
export function loadCatalogue(): Catalogue {
  if (!loaded) {
    const text = readFileSync(new URL('./catalogue.json', import.meta.url), 'utf8');
    loaded = buildCatalogue(JSON.parse(text));
  }
  return loaded;
}

/** Names a connector cannot take: the built-in services and the fixed segments under /services. */
export function reservedServiceNames(catalogue: Catalogue): Set<string> {
  return new Set([...catalogue.services.map((s) => s.id), 'categories']);
}
