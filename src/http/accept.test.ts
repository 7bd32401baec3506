// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { prefersMarkdown, wantsEventStream } from './accept.js';

describe('prefersMarkdown', () => {
  it.each([
    [undefined, false],
    ['application/json', false],
    ['*/*', false],
    ['text/markdown', true],
    ['text/*', true],
    ['text/markdown, */*', true],
    ['text/markdown, application/json', false],
    ['text/markdown;q=1, application/json;q=0.5', true],
    ['application/json;q=1, text/markdown;q=0.9', false],
    ['text/markdown;q=0', false],
    ['TEXT/MARKDOWN', true],
  ])('%s → %s', (accept, expected) => {
    expect(prefersMarkdown(accept)).toBe(expected);
  });
});

describe('wantsEventStream', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['text/*', false],
    ['text/event-stream', true],
    ['text/event-stream, */*', true],
    ['text/event-stream, application/json', false],
    ['application/json;q=0.5, text/event-stream', true],
    ['text/event-stream;q=0', false],
  ])('%s → %s', (accept, expected) => {
    expect(wantsEventStream(accept)).toBe(expected);
  });
});
