// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { exceedsDepth, mergePatch, type JsonValue } from './json-merge-patch.js';

describe('mergePatch', () => {
  // The examples of RFC 7396, appendix A.
  const cases: Array<[JsonValue, JsonValue, JsonValue]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('%j patched with %j is %j', (target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });

  it('changes neither input', () => {
    const target = { a: { b: 1 }, keep: [1] };
    const patch = { a: { c: 2 } };
    mergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 }, keep: [1] });
    expect(patch).toEqual({ a: { c: 2 } });
  });

  it('keeps __proto__ as an ordinary key', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true}}') as JsonValue;
    const result = mergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"__proto__":{"polluted":true}}');
  });
});

describe('exceedsDepth', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(exceedsDepth('x', 0)).toBe(false);
    expect(exceedsDepth({ a: 1 }, 1)).toBe(false);
    expect(exceedsDepth({ a: [1] }, 1)).toBe(true);
    expect(exceedsDepth({ a: [{}] }, 3)).toBe(false);
  });

  it('handles nesting far deeper than the stack allows for recursion', () => {
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
    expect(exceedsDepth(deep, 32)).toBe(true);
  });
});
