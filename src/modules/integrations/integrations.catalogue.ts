import { readFileSync } from 'node:fs';
import { FormatRegistry, Type, type Static } from '@sinclair/typebox';
// Check and Errors alone, not the Value namespace: that one pulls every value operation
// (cast, convert, create, diff, ...) into the server's bundle.
import { Errors } from '@sinclair/typebox/errors';
import { Check } from '@sinclair/typebox/value';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { issueMessage } from '../../http/errors.js';
import { ApiStyle, ReadMethods } from '../vault/vault.schemas.js';

/**
 * The built-in service catalogue: a data file (catalogue.json), validated once at start-up, so
 * that a broken catalogue stops the server from starting instead of failing one request at a
 * time. Each params schema is checked then (a valid JSON Schema, no keyword Ajv does not know)
 * and compiled on its method's first call: compiling all of them took a third of a second of
 * every start for methods most servers never call.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
const BODILESS: ReadonlySet<string> = new Set(['GET', 'DELETE', 'HEAD', 'OPTIONS']);
export const methodTakesBody = (method: string) => !BODILESS.has(method);

// TypeBox's checker knows no formats until they are registered: `uri` as Ajv checks it.
if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (value) => (fullFormats.uri as (value: string) => boolean)(value));

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
    /** rpc: writes may come over GET (Slack); only the readMethods are reads. Default rest. */
    apiStyle: Type.Optional(ApiStyle),
    readMethods: Type.Optional(ReadMethods),
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

/** A method ready to run: its definition and its params validator (compiled on first use). */
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
export function createParamsAjv(options: { strict: boolean; validateSchema?: boolean } = { strict: true }): Ajv {
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
    validateSchema: options.validateSchema ?? true,
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

/** Keywords whose value is a map of subschemas, a subschema, or a list of subschemas. */
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']);
const SUBSCHEMAS = new Set(['additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const COUNTS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains']);
const NUMBERS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Whether Ajv compiles `source` as a regular expression (it uses the `u` flag). */
function isRegExp(source: string): boolean {
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What is wrong with one keyword's own value (its subschemas are looked at by the caller). */
function keywordProblem(ajv: Ajv, keyword: string, value: unknown): string | undefined {
  if (!ajv.RULES.keywords[keyword]) return 'is not a JSON Schema keyword';
  if (keyword === 'type') {
    const types = Array.isArray(value) ? value : [value];
    return types.length > 0 && types.every((t) => typeof t === 'string' && JSON_TYPES.has(t)) ? undefined : `names no JSON type (${JSON_TYPES.size} exist)`;
  }
  if (keyword === 'required') return Array.isArray(value) && value.every((n) => typeof n === 'string') ? undefined : 'must list property names';
  if (keyword === 'enum') return Array.isArray(value) && value.length > 0 ? undefined : 'must list the allowed values';
  if (keyword === 'pattern') return typeof value === 'string' && isRegExp(value) ? undefined : 'is not a regular expression';
  if (keyword === 'format') return typeof value === 'string' && ajv.formats[value] ? undefined : 'is not a format Ajv knows';
  if (COUNTS.has(keyword)) return Number.isInteger(value) && (value as number) >= 0 ? undefined : 'must be a whole number';
  if (NUMBERS.has(keyword)) return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
  if (keyword === 'items') return isPlainObject(value) || typeof value === 'boolean' || Array.isArray(value) ? undefined : 'must be a schema';
  if (SUBSCHEMAS.has(keyword)) return isPlainObject(value) || typeof value === 'boolean' ? undefined : 'must be a schema';
  if (SUBSCHEMA_LISTS.has(keyword)) return Array.isArray(value) && value.length > 0 ? undefined : 'must list schemas';
  if (SUBSCHEMA_MAPS.has(keyword)) return isPlainObject(value) ? undefined : 'must map names to schemas';
  return undefined;
}

/**
 * What Ajv would refuse in a params schema when it compiles it, found without compiling: a
 * keyword it does not know (strict mode: `propertiez`), a type that does not exist, a pattern
 * that is not a regular expression, an unknown format, a bound or list of the wrong kind.
 * Answers the first problem with its place. The compile itself waits for the method's first
 * call (the catalogue test compiles every one); compiling Ajv's meta-schema to check these
 * would cost a tenth of a second of every start.
 */
export function schemaProblem(ajv: Ajv, schema: unknown, at = ''): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isPlainObject(schema)) return `${at || '/'} must be a schema (an object)`;
  for (const [keyword, value] of Object.entries(schema)) {
    const where = `${at}/${keyword}`;
    const problem = keywordProblem(ajv, keyword, value);
    if (problem) return `${where} ${problem}`;
    let found: string | undefined;
    if (SUBSCHEMA_MAPS.has(keyword)) {
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
        if (keyword === 'patternProperties' && !isRegExp(name)) return `${where}/${name} is not a regular expression`;
        // draft-07 `dependencies` may also list property names.
        found = keyword === 'dependencies' && Array.isArray(sub) ? undefined : schemaProblem(ajv, sub, `${where}/${name}`);
        if (found) return found;
      }
    } else if (SUBSCHEMA_LISTS.has(keyword) || (keyword === 'items' && Array.isArray(value))) {
      for (let i = 0; i < (value as unknown[]).length; i++) {
        found = schemaProblem(ajv, (value as unknown[])[i], `${where}/${i}`);
        if (found) return found;
      }
    } else if (SUBSCHEMAS.has(keyword) || keyword === 'items') {
      found = schemaProblem(ajv, value, where);
    }
    if (found) return found;
  }
  return undefined;
}

/**
 * Validates the catalogue file's content: its shape, the rules between its fields, and that
 * every params schema is a JSON Schema Ajv will compile (schemaProblem). Each params validator
 * is compiled on first use.
 */
export function buildCatalogue(raw: unknown): Catalogue {
  // The file's shape, checked by TypeBox's interpreter: compiling a validator for a file read
  // once would cost more than the check itself.
  if (!Check(CatalogueFile, raw)) {
    const problems = [...Errors(CatalogueFile, raw)].slice(0, 5).map((e) => `${e.path || '/'} ${e.message}`);
    throw new CatalogueError(`Service catalogue: not in the expected shape: ${problems.join('; ')}`);
  }
  const file = raw as CatalogueFile;
  // Each params schema is checked below (schemaProblem), so compiling it on first use need not
  // check it against the meta-schema again; strict mode still refuses what the check missed.
  const ajv = createParamsAjv({ strict: true, validateSchema: false });
  const categoryIds = new Set(file.categories.map((c) => c.id));
  check(categoryIds.size === file.categories.length, 'two categories share an id');
  const seen = new Set<string>();
  const services: CatalogueService[] = file.services.map((service) => {
    check(!seen.has(service.id), `two services are named ${service.id}`);
    seen.add(service.id);
    check(categoryIds.has(service.category), `${service.id} has unknown category ${service.category}`);
    check(!service.baseUrl.endsWith('/'), `${service.id}: baseUrl must not end with /`);
    // An RPC API with no read declared would make every call a write, which is safe but
    // surely a mistake in the file; read methods on a REST API would be ignored.
    if (service.apiStyle === 'rpc') check(service.readMethods?.length, `${service.id}: an rpc service lists its readMethods`);
    else check(service.readMethods === undefined, `${service.id}: readMethods only applies to apiStyle rpc`);
    for (const name of Object.keys(service.defaultHeaders ?? {})) {
      check(name === name.toLowerCase(), `${service.id}: default header names are lower case (${name})`);
    }
    const names = new Set<string>();
    const methods = service.methods.map((method): MethodSpec => {
      const where = `${service.id}.${method.name}`;
      check(method.name !== 'request', `${where}: "request" is the generic method every service has`);
      check(!names.has(method.name), `${service.id} has two methods named ${method.name}`);
      names.add(method.name);
      const problem = schemaProblem(ajv, method.params);
      check(!problem, `${where} params is not a valid JSON Schema: ${problem}`);
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
      let validate: ValidateFunction | undefined;
      return {
        ...method,
        params: method.params as Record<string, unknown>,
        get validate() {
          validate ??= ajv.compile(method.params);
          return validate;
        },
      };
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
