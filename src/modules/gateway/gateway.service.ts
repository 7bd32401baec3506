import type { Principal } from '../../http/access.js';
import { createDerivedCache, uncached, type DerivedCache } from '../../storage/derived-cache.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import { gatewayContextSchema } from './gateway.schemas.js';
import type { ContextSection } from './gateway.section.js';

export interface GatewayServiceOptions {
  sections: ContextSection[];
  /** Caches rendered contexts while their tables are unchanged (see storage/derived-cache.ts). */
  writes?: WriteTracker | undefined;
}

/**
 * Rendered contexts kept; each is some kilobytes of JSON (25 KB with 1,000 memory entries, 100
 * documents and 10,000 skills). Weighed in characters: 8 MB holds some 300 such contexts, far
 * more than an owner has tokens, and keeps the cache a small part of the server's memory.
 */
const CACHE_ENTRIES = 1000;
const CACHE_BYTES = 8 * 1024 * 1024;

/** What makes two principals see the same context: the token and everything its access rests on. */
function principalKey(principal: Principal): string {
  return `${principal.ownerId}|${principal.tokenId}|${principal.kind}|${principal.role}|${principal.allScopes ? '*' : [...principal.scopes].sort().join(',')}`;
}

export function createGatewayService(deps: GatewayServiceOptions) {
  const names = new Set<string>();
  for (const section of deps.sections) {
    if (names.has(section.name)) throw new Error(`Two gateway context sections are named ${section.name}`);
    names.add(section.name);
  }
  const sections = [...deps.sections];
  const contextSchema = gatewayContextSchema(sections);
  const tables = [...new Set(sections.flatMap((section) => section.tables))];
  const cache: DerivedCache<Buffer> = deps.writes
    ? createDerivedCache<Buffer>({ tracker: deps.writes, tables, maxEntries: CACHE_ENTRIES, maxWeight: CACHE_BYTES, weigh: (body) => body.length })
    : uncached<Buffer>();
  // Principals are kept per token while the token is unchanged, so the key is worked out once per principal.
  const keys = new WeakMap<Principal, string>();

  async function context(principal: Principal): Promise<Record<string, unknown>> {
    const visible = sections.filter((section) => section.visibleTo(principal));
    const values = await Promise.all(visible.map((section) => section.load(principal.ownerId, principal)));
    const data: Record<string, unknown> = {};
    visible.forEach((section, i) => {
      data[section.name] = values[i];
    });
    return data;
  }

  return {
    /** The context for one token: every section it may see, loaded in parallel. */
    context,

    /**
     * The context rendered to its JSON answer by `render`, as bytes ready for the socket, from the
     * cache while nothing it was built from has changed. Agents call this first in every session,
     * often many times.
     */
    async renderedContext(principal: Principal, render: (data: Record<string, unknown>) => string): Promise<Buffer> {
      let key = keys.get(principal);
      if (!key) keys.set(principal, (key = principalKey(principal)));
      return cache.get(key, async () => Buffer.from(render(await context(principal)), 'utf8'));
    },

    /** The response schema of GET /gateway/context: the sections' schemas, in their order. */
    contextSchema,

    sectionNames(): string[] {
      return sections.map((section) => section.name);
    },
  };
}

export type GatewayService = ReturnType<typeof createGatewayService>;
