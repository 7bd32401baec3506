import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { PATTERN_MESSAGE } from './schemas.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

/**
 * Whether `value` holds a number that is not finite. A plain walk with no allocation: it runs on
 * every validated value of a route that can hold numbers. Request values are at most
 * MAX_JSON_DEPTH deep (bodies) or flat (query, params, headers).
 */
function holdsNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsNonFinite(value[i])) return true;
    return false;
  }
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key) && holdsNonFinite((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** The JSON pointer of the first non-finite number in `value`; built only once one is known to be there. */
function nonFinitePath(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (holdsNonFinite(value[i])) return nonFinitePath(value[i], `${path}/${i}`);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (holdsNonFinite(item)) return nonFinitePath(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
  return undefined;
}

// Keywords whose subschemas are read below; a schema with any other applicator is not analysed.
const OPAQUE = ['$ref', '$dynamicRef', 'not', 'if', 'then', 'else', 'contains', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames'];

/**
 * Whether a value valid against `schema` can hold a number: a `number`/`integer` type anywhere, or
 * a part that accepts any value (no type, `{}`, `true`, an array without `items`, anything not
 * analysed here). Routes whose schema says no (most: strings, booleans, objects of them) skip the
 * finiteness walk. Undeclared object properties are not counted: the route's types (Static<>)
 * never read them, and JSON.stringify writes a stray Infinity as null.
 */
export function mayHoldNumber(schema: unknown): boolean {
  if (schema === false) return false;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return true;
  const s = schema as Record<string, unknown>;
  if (OPAQUE.some((keyword) => keyword in s)) return true;
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[keyword];
    if (Array.isArray(list) && list.some(mayHoldNumber)) return true;
  }
  // A fixed value (const/enum) is whatever the schema lists, and a schema lists finite numbers only.
  if ('const' in s || 'enum' in s) return false;
  const types = s.type === undefined ? undefined : Array.isArray(s.type) ? (s.type as unknown[]) : [s.type];
  if (types === undefined) {
    // Only a composition constrains an untyped schema; without one it accepts anything.
    return !('anyOf' in s || 'oneOf' in s || 'allOf' in s);
  }
  if (types.includes('number') || types.includes('integer')) return true;
  if (types.includes('object')) {
    for (const keyword of ['properties', 'patternProperties'] as const) {
      const map = s[keyword];
      if (map && typeof map === 'object' && Object.values(map).some(mayHoldNumber)) return true;
    }
    const extra = s.additionalProperties;
    if (extra !== undefined && typeof extra !== 'boolean' && mayHoldNumber(extra)) return true;
  }
  if (types.includes('array')) {
    const items = s.items;
    const prefix = s.prefixItems;
    if (items === undefined && prefix === undefined) return true;
    if (Array.isArray(items) ? items.some(mayHoldNumber) : items !== undefined && mayHoldNumber(items)) return true;
    if (Array.isArray(prefix) && prefix.some(mayHoldNumber)) return true;
    if (Array.isArray(items) || Array.isArray(prefix)) {
      const rest = Array.isArray(items) ? s.additionalItems : items;
      if (rest === undefined || rest === true || (typeof rest === 'object' && mayHoldNumber(rest))) return true;
    }
  }
  return false;
}

type RouteValidator = ((data: unknown, context?: unknown) => boolean) & { errors?: ValidateFunction['errors']; schemaEnv?: unknown };

/**
 * Ajv's function for `schema`, wrapped with the finiteness check when the schema can hold a
 * number (see createValidatorCompiler); Ajv's own function when it cannot.
 */
export function withFinitenessCheck(validate: ValidateFunction, schema: unknown): RouteValidator {
  if (!mayHoldNumber(schema)) return validate as RouteValidator;
  const checked = function (this: unknown, data: unknown, context?: { parentData?: Record<string, unknown>; parentDataProperty?: string }) {
    const ok = validate.call(this, data, context as never);
    if (!ok) {
      checked.errors = validate.errors;
      return false;
    }
    // Ajv replaces a coerced root value in its parent; read it from there when it is given.
    const value = context?.parentData && context.parentDataProperty !== undefined ? context.parentData[context.parentDataProperty] : data;
    if (holdsNonFinite(value)) {
      checked.errors = [
        {
          instancePath: nonFinitePath(value, '') ?? '',
          schemaPath: '#',
          keyword: 'type',
          params: {},
          message: 'must be a finite number (Infinity, 1e999 and numbers beyond about 1.8e308 are not numbers here)',
        },
      ] as ErrorObject[];
      return false;
    }
    checked.errors = null;
    return true;
  } as RouteValidator;
  // Fastify passes the parent only to Ajv functions (recognised by this property).
  checked.schemaEnv = validate.schemaEnv;
  return checked;
}

/**
 * The request validator: Ajv with the options the routes are written for (query strings are
 * coerced to the declared types, defaults filled in, every issue reported), plus one rule Ajv
 * lacks. Ajv coerces a numeric string to a number without checking the result is finite, and
 * checks `minimum`/`maximum` only on finite numbers, so `?limit=Infinity`, `1e999` or a
 * 400-digit number passed every integer bound and reached the database as Infinity. JSON itself
 * can carry one too (`JSON.parse('{"a":1e999}')` is Infinity): Ajv's strictNumbers refuses that in a
 * typed number field, but not in an untyped one. So any value that validates but holds a
 * non-finite number is refused here, for every route whose schema can hold a number at all.
 *
 * Issues are `verbose`: each carries the schema it failed, so the error answer can say in words
 * what a field is for (its `description`) and what its pattern accepts (PATTERN_MESSAGE).
 *
 * Compiled on first use, once per distinct schema. Fastify asks for every route's validators
 * when the app gets ready; compiling them all then was most of the start-up time and memory,
 * for routes a server may never see. Routes repeat the same shapes (an `{id}` path, a page
 * query), so one function serves every route whose schema reads the same. A schema is code,
 * not configuration: the route tests compile them, and a compile error fails the request it
 * belongs to (500), never silently.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const ajv = new Ajv({
    coerceTypes: 'array',
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    addUsedSchema: false,
    verbose: true,
  });
  addFormats(ajv);
  // An annotation: it validates nothing, the error answer reads it.
  ajv.addKeyword({ keyword: PATTERN_MESSAGE, schemaType: 'string' });
  const compiled = new Map<string, RouteValidator>();
  const compile = (schema: unknown): RouteValidator => {
    const key = JSON.stringify(schema);
    let validator = compiled.get(key);
    if (!validator) {
      validator = withFinitenessCheck(ajv.compile(schema as object), schema);
      compiled.set(key, validator);
    }
    return validator;
  };
  return ({ schema }) => {
    let validator: RouteValidator | undefined;
    const lazy = function (this: unknown, data: unknown, context?: unknown) {
      validator ??= compile(schema);
      const ok = validator.call(this, data, context);
      lazy.errors = validator.errors;
      return ok;
    } as RouteValidator;
    // Fastify passes the parent (where Ajv writes a coerced root value) only to functions that
    // carry this property, as Ajv's do; every function here ends in Ajv's.
    lazy.schemaEnv = true;
    return lazy;
  };
}

type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator'] & {};

/**
 * `compiler` as Fastify's `schemaController.compilersFactory.buildValidator`: what
 * `setValidatorCompiler` installs, given when the instance is made, so that Fastify does not
 * load its own Ajv compiler first. Fastify types this option for its Ajv pool only; at run time
 * it takes any compiler, as setValidatorCompiler does.
 */
export function validatorFactory(compiler: FastifySchemaCompiler<unknown>): ValidatorFactory {
  return (() => compiler) as unknown as ValidatorFactory;
}
