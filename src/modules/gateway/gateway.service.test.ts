// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { hasScope, type Principal } from '../../http/access.js';
import { Type } from '@sinclair/typebox';
import type { ContextSection } from './gateway.section.js';
import { createGatewayService } from './gateway.service.js';

const principal: Principal = {
  tokenId: 'tok_1',
  ownerId: 'usr_1',
  kind: 'api',
  allScopes: false,
  scopes: new Set(['read', 'memory']),
  role: 'user',
  name: 'test',
  agent: null,
};

describe('createGatewayService', () => {
  it('loads only the sections the token may see, in parallel, keyed by name', async () => {
    const loaded: string[] = [];
    // Each of these two sections waits for the other to start: sequential loading would never finish.
    let startA!: () => void;
    let startB!: () => void;
    const aStarted = new Promise<void>((r) => (startA = r));
    const bStarted = new Promise<void>((r) => (startB = r));
    const sections: ContextSection[] = [
      { name: 'a', schema: Type.Unknown(), tables: [], visibleTo: () => true, load: async () => (startA(), await bStarted, loaded.push('a'), { value: 'A' }) },
      { name: 'b', schema: Type.Unknown(), tables: [], visibleTo: () => true, load: async (ownerId) => (startB(), await aStarted, loaded.push('b'), { ownerId }) },
      {
        name: 'secret',
        schema: Type.Unknown(),
        tables: [],
        visibleTo: (p) => hasScope(p, 'vault'),
        load: async () => {
          loaded.push('secret');
          return 'hidden';
        },
      },
    ];
    const gateway = createGatewayService({ sections });
    const data = await gateway.context(principal);
    expect(data).toEqual({ a: { value: 'A' }, b: { ownerId: 'usr_1' } });
    expect(loaded.sort()).toEqual(['a', 'b']);
    expect(gateway.sectionNames()).toEqual(['a', 'b', 'secret']);
  });

  it('refuses two sections with the same name', () => {
    const section: ContextSection = { name: 'user', schema: Type.Unknown(), tables: [], visibleTo: () => true, load: async () => ({}) };
    expect(() => createGatewayService({ sections: [section, { ...section }] })).toThrow(/user/);
  });
});
