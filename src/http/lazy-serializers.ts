import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer'] & {};
type Serializer = (data: unknown) => string;

/** A TypeBox Literal of a string (`{ const, type: 'string' }`), or any schema that is one string constant. */
function isStringConstant(schema: unknown): schema is { const: string } {
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  return typeof s.const === 'string' && (s.type === undefined || s.type === 'string');
}

/** `{ type: 'null' }` alone: the null member of a nullable union. */
function isNullType(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  return s.type === 'null' && Object.keys(s).every((key) => key === 'type' || key === 'description');
}

/**
 * A schema of one JSON type with no union of its own, which `nullable` can extend (not a $ref, a
 * const, or a type list). Not one with a `default`: fast-json-stringify writes a member's default
 * for a missing property once the member is the property's schema, which it did not inside the union.
 */
function isPlainTyped(schema: unknown): schema is Record<string, unknown> {
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  return (
    typeof s.type === 'string' &&
    s.type !== 'null' &&
    s.const === undefined &&
    s.default === undefined &&
    s.anyOf === undefined &&
    s.oneOf === undefined &&
    s.allOf === undefined &&
    s.$ref === undefined
  );
}

/**
 * `schema` as the serializer is given it. fast-json-stringify writes a union (`anyOf`) by
 * running an Ajv validator against each member for every value it writes: the first answer of
 * nearly every route built an Ajv instance and compiled those validators (about a megabyte once a
 * server answered its first health check), and every answer ran them (a memory entry's eleven
 * nullable fields cost a write's answer about 4 KB of garbage and two µs). So two unions become
 * what it writes without validating:
 * - a union of string constants (TypeBox's Union of Literals: a status, a kind) becomes a string
 *   with those values;
 * - a member or null (TypeBox's `Union([X, Null()])`) becomes X with `nullable: true`: null is
 *   written as null, anything else as X is, exactly as X's fields are written where they are not
 *   nullable (the route's types keep the value to X).
 * A value is written the same either way. The schema the route validates with and documents is
 * not changed; parts without such a union are shared.
 */
export function literalUnionsAsEnums(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    let out: unknown[] | undefined;
    schema.forEach((item, i) => {
      const next = literalUnionsAsEnums(item);
      if (next !== item) (out ??= [...schema])[i] = next;
    });
    return out ?? schema;
  }
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0 && s.anyOf.every(isStringConstant)) {
    const { anyOf, ...rest } = s;
    return { ...rest, type: 'string', enum: (anyOf as { const: string }[]).map((member) => member.const) };
  }
  if (Array.isArray(s.anyOf) && s.anyOf.length === 2 && s.anyOf.some(isNullType)) {
    const { anyOf, ...rest } = s;
    const member = literalUnionsAsEnums((anyOf as unknown[]).find((m) => !isNullType(m)));
    // Keywords beside the union (a description) stay; the member's own say how it is written.
    if (isPlainTyped(member)) return { ...rest, ...member, nullable: true };
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(s)) {
    const next = literalUnionsAsEnums(s[key]);
    if (next !== s[key]) (out ??= { ...s })[key] = next;
  }
  return out ?? schema;
}

/**
 * Response serializers compiled on first use, once per distinct schema. Fastify's default
 * compiles every status of every route when the app gets ready (about 400 serializers here,
 * fewer than 100 distinct: every route shares the error body of its 4xx and 5xx answers),
 * which was a large part of the start-up time and of the memory a fresh server holds. Each
 * serializer is the one Fastify would have built, by the compiler Fastify itself depends on
 * (`@fastify/fast-json-stringify-compiler`, installed with Fastify); only when it is built
 * changes.
 */
export function lazySerializers(): SerializerFactory {
  const defaultFactory = SerializerSelector();
  return (externalSchemas, options) => {
    let compile: ReturnType<SerializerFactory> | undefined;
    const compiled = new Map<string, Serializer>();
    return (route) => {
      let serialize: Serializer | undefined;
      return (data: unknown) => {
        if (!serialize) {
          const key = JSON.stringify(route.schema);
          serialize = compiled.get(key);
          if (!serialize) {
            compile ??= defaultFactory(externalSchemas, options);
            serialize = compile({ ...route, schema: literalUnionsAsEnums(route.schema) }) as Serializer;
            compiled.set(key, serialize);
          }
        }
        return serialize(data);
      };
    };
  };
}

/**
 * The serializer a route with this 200 schema gets (see lazySerializers: the same compiler, the
 * same schema rewrite, no shared schemas and no serializer options, as the app has none), made
 * outside any request: for answers the front door sends before Fastify sees the request (see
 * http/prepared.ts).
 */
export function compileResponseSerializer(schema: object): Serializer {
  return SerializerSelector()({}, undefined)({ schema: literalUnionsAsEnums(schema) as object, method: 'GET', url: '', httpStatus: '200' }) as Serializer;
}
