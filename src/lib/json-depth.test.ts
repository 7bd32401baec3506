// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { jsonNestingExceeds, MAX_JSON_DEPTH, openingsExceed } from './json-depth.js';

describe('jsonNestingExceeds', () => {
  it('counts arrays and objects together', () => {
    expect(jsonNestingExceeds('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonNestingExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonNestingExceeds('1', 0)).toBe(false);
    expect(jsonNestingExceeds('[]', 0)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds(JSON.stringify({ a: '[[[[[[{{{{' }), 1)).toBe(false);
    expect(jsonNestingExceeds(JSON.stringify({ a: 'say \\"[[[[ and "[[[[' }), 1)).toBe(false);
    expect(jsonNestingExceeds('["\\\\", [[1]]]', 2)).toBe(true);
  });

  it('measures depth, not the number of containers', () => {
    const wide = JSON.stringify(Array.from({ length: 10_000 }, () => ({ a: [1] })));
    expect(jsonNestingExceeds(wide, 3)).toBe(false);
    expect(jsonNestingExceeds('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestingExceeds('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('scans 100,000 levels linearly, without recursion', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(jsonNestingExceeds(deep)).toBe(true);
  });
});

describe('the count that clears most text before the scan', () => {
  it('counts { and [ anywhere, strings included, and stops past the limit', () => {
    expect(openingsExceed('{"a":[1,{"b":"[["}]}', 4)).toBe(true);
    expect(openingsExceed('{"a":[1,{"b":"[["}]}', 5)).toBe(false);
    expect(openingsExceed('no brackets', 0)).toBe(false);
    expect(openingsExceed('['.repeat(1_000_000), 64)).toBe(true);
  });

  it('text with no more openings than the limit is within it, whatever their order', () => {
    const max = 8;
    for (const text of ['['.repeat(max), '{'.repeat(max) + '}'.repeat(max), '[{"a":"x"}]'.repeat(max / 2), '']) {
      expect(jsonNestingExceeds(text, max), text).toBe(false);
    }
    expect(jsonNestingExceeds('['.repeat(max + 1), max)).toBe(true);
  });

  it('text with more openings than the limit gets the full scan: shallow is allowed, deep is not', () => {
    const max = 8;
    const manyInStrings = JSON.stringify({ a: '{['.repeat(50), b: [[1]] });
    expect(openingsExceed(manyInStrings, max)).toBe(true);
    expect(jsonNestingExceeds(manyInStrings, max)).toBe(false);
    const wide = JSON.stringify(Array.from({ length: 100 }, () => [1]));
    expect(jsonNestingExceeds(wide, max)).toBe(false);
    const deepAfterStrings = JSON.stringify({ a: '[[[[' }).slice(0, -1) + ',"b":' + '['.repeat(max) + ']'.repeat(max) + '}';
    expect(jsonNestingExceeds(deepAfterStrings, max)).toBe(true);
  });
});
