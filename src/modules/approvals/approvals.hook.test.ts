// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { ambiguousAddress } from './approvals.hook.js';

describe('which held addresses could run as another route', () => {
  it('refuses a path that a URL parser reads as another', () => {
    expect(ambiguousAddress('/api/v1/services/weather\\..\\github/proxy')?.reason).toMatch(/backslash/);
    expect(ambiguousAddress('/api/v1/services/weather%5C..%5Cgithub/proxy')?.reason).toMatch(/backslash/);
    expect(ambiguousAddress('/api/v1/services/weather/../github/proxy')).toMatchObject({ readAs: '/api/v1/services/github/proxy' });
    expect(ambiguousAddress('/api/v1/services/weather/%2e%2e/github/proxy')).toMatchObject({ readAs: '/api/v1/services/github/proxy' });
  });

  // The parser re-encodes some characters of a query string (`'` as %27); they decode the same,
  // and the query does not route.
  it('holds a query string that a parser would only re-encode', () => {
    expect(ambiguousAddress("/api/v1/services/slack/chat.postMessage?channel=C1&text=it's")).toBeNull();
    expect(ambiguousAddress("/api/v1/services/google/drive/v3/files?q=name%20contains%20'x'")).toBeNull();
    expect(ambiguousAddress('/api/v1/memory/mem_1')).toBeNull();
  });
});
