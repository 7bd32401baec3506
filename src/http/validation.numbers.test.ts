// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
/**
 * The finiteness check after Ajv: routes whose schema cannot hold a number skip it (they get
 * Ajv's own function), and where it runs it finds a non-finite number anywhere and names it.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { createValidatorCompiler, mayHoldNumber, withFinitenessCheck } from './validation.js';

type Checked = ((data: unknown, context?: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

function compile(schema: unknown): Checked {
  return createValidatorCompiler()({ schema, method: 'POST', url: '/x', httpPart: 'body' } as never) as Checked;
}

describe('mayHoldNumber', () => {
  it('is false for schemas of strings, booleans, literals and objects or arrays of them', () => {
    for (const schema of [
      Type.String(),
      Type.Object({ name: Type.String(), on: Type.Optional(Type.Boolean()), kind: Type.Union([Type.Literal('a'), Type.Literal('b')]) }),
      Type.Array(Type.String()),
      Type.Object({ tags: Type.Array(Type.Object({ label: Type.String() })) }),
      Type.Record(Type.String(), Type.String()),
      Type.Object({ a: Type.String() }, { additionalProperties: false }),
      { type: ['string', 'null'] },
      Type.Literal(3),
      { enum: [1, 2] },
    ]) {
      expect(mayHoldNumber(schema), JSON.stringify(schema)).toBe(false);
    }
  });

  it('is true for numbers, integers and any part that accepts anything', () => {
    for (const schema of [
      Type.Number(),
      Type.Object({ page: Type.Optional(Type.Integer()) }),
      Type.Object({ list: Type.Array(Type.Union([Type.String(), Type.Number()])) }),
      Type.Object({ meta: Type.Unknown() }),
      Type.Record(Type.String(), Type.Any()),
      Type.Object({ items: Type.Array(Type.Unknown()) }),
      { type: 'array' },
      { type: 'object', properties: { a: { $ref: 'other#' } } },
      { type: 'object', additionalProperties: { type: 'number' } },
      { type: 'array', prefixItems: [{ type: 'string' }] },
      {},
      true,
    ]) {
      expect(mayHoldNumber(schema), JSON.stringify(schema)).toBe(true);
    }
  });
});

describe('the compiled validator', () => {
  it('compiles on first use, once for every schema that reads the same', () => {
    const compiler = createValidatorCompiler();
    const route = (schema: unknown) => compiler({ schema, method: 'GET', url: '/x', httpPart: 'querystring' } as never) as Checked;
    // An invalid schema is not compiled until a request needs it.
    const broken = route({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } });
    expect(() => broken({ a: 'x' })).toThrow();
    const one = route(Type.Object({ limit: Type.Integer({ maximum: 10 }) }));
    const two = route(Type.Object({ limit: Type.Integer({ maximum: 10 }) }));
    expect(one({ limit: '5' })).toBe(true);
    expect(two({ limit: '50' })).toBe(false);
    expect(two.errors?.[0]?.instancePath).toBe('/limit');
    expect(one({ limit: '1e999' })).toBe(false);
    expect(one.errors?.[0]?.message).toMatch(/finite/);
  });

  it("keeps Ajv's own function when the schema cannot hold a number, which still validates", () => {
    const ajv = new Ajv();
    const wrap = (schema: object) => withFinitenessCheck(ajv.compile(schema), schema);
    // The finiteness wrapper is the function named `checked`; Ajv's own are `validate…`.
    expect(wrap(Type.Object({ name: Type.String() })).name).not.toBe('checked');
    expect(wrap(Type.Object({ n: Type.Number() })).name).toBe('checked');
    const checked = compile(Type.Object({ name: Type.String() }));
    expect(checked({ name: 'x' })).toBe(true);
    expect(checked({ name: 5 })).toBe(true); // coerced to "5"
    expect(checked({})).toBe(false);
  });

  it('refuses a non-finite number anywhere in an untyped part and names its path', () => {
    const checked = compile(Type.Object({ name: Type.String(), meta: Type.Unknown() }));
    expect(checked({ name: 'x', meta: { a: [1, 2, { ok: 3 }] } })).toBe(true);
    expect(checked.errors).toBeNull();
    expect(checked(JSON.parse('{"name":"x","meta":{"a":[1,{"b/c~d":1e999}]}}'))).toBe(false);
    expect(checked.errors?.[0]?.instancePath).toBe('/meta/a/1/b~1c~0d');
    expect(checked.errors?.[0]?.message).toMatch(/finite/);
    expect(checked({ name: 'x', meta: [{}, -Infinity] })).toBe(false);
    expect(checked.errors?.[0]?.instancePath).toBe('/meta/1');
  });

  it('refuses a coerced non-finite number in a typed field', () => {
    const checked = compile(Type.Object({ limit: Type.Integer({ maximum: 100 }) }));
    expect(checked({ limit: '5' })).toBe(true);
    expect(checked({ limit: '1e999' })).toBe(false);
    expect(checked.errors?.[0]?.instancePath).toBe('/limit');
  });
});
