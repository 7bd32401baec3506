import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { PATTERN_MESSAGE } from './schemas.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

/**
 * The first number in `value` that is not finite, as a JSON pointer, or undefined. Only strings
 * coerced by Ajv can produce one (JSON itself has no Infinity), but the walk does not assume it.
 * Request values are at most MAX_JSON_DEPTH deep (bodies) or flat (query, params, headers).
 */
function nonFinitePath(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFinitePath(value[i], `${path}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const found = nonFinitePath((value as Record<string, unknown>)[key], `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The request validator: Ajv with the options the routes are written for (query strings are
 * coerced to the declared types, defaults filled in, every issue reported), plus one rule Ajv
 * lacks. Ajv coerces a numeric string to a number without checking the result is finite, and
 * checks `minimum`/`maximum` only on finite numbers, so `?limit=Infinity`, `1e999` or a
 * 400-digit number passed every integer bound and reached the database as Infinity. Any value
 * that validates but holds a non-finite number is refused here, for every route at once.
 *
 * Issues are `verbose`: each carries the schema it failed, so the error answer can say in words
 * what a field is for (its `description`) and what its pattern accepts (PATTERN_MESSAGE).
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
  return ({ schema }) => {
    const validate: ValidateFunction = ajv.compile(schema as object);
    const checked = function (this: unknown, data: unknown, context?: { parentData?: Record<string, unknown>; parentDataProperty?: string }) {
      const ok = validate.call(this, data, context as never);
      if (!ok) {
        checked.errors = validate.errors;
        return false;
      }
      // Ajv replaces a coerced root value in its parent; read it from there when it is given.
      const value = context?.parentData && context.parentDataProperty !== undefined ? context.parentData[context.parentDataProperty] : data;
      const bad = nonFinitePath(value, '');
      if (bad !== undefined) {
        checked.errors = [
          {
            instancePath: bad,
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
    } as ((data: unknown, context?: unknown) => boolean) & { errors: ValidateFunction['errors']; schemaEnv?: unknown };
    // Fastify passes the parent only to Ajv functions (recognised by this property).
    checked.schemaEnv = validate.schemaEnv;
    return checked;
  };
}
