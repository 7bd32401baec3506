import { describe, expect, it } from 'vitest';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from './json-depth.js';

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
