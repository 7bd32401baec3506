import { Type, type Static } from '@sinclair/typebox';
import { hasScope, type Principal } from '../../http/access.js';
import { keepWhileFits } from '../gateway/gateway.budget.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import { MemoryEntrySchema, type MemoryEntry } from './memory.schemas.js';
import type { MemoryService } from './memory.service.js';

/**
 * The most entries the gateway context carries by default (GATEWAY_MEMORY_LIMIT). The
 * specification says all entries are in the context; a cap keeps one call, and an agent's
 * prompt, bounded, and `truncated` with `total` tells an agent to page through GET /memory for
 * the rest. An owner who wants every entry in the context raises the setting.
 */
export const MEMORY_CONTEXT_CAP = 100;

/**
 * An entry as the context carries it: without how often, when and by whom it was stored again
 * (the review's business, on GET /memory): the context repeats its fields for every entry, within a budget.
 */
const MemoryContextEntry = Type.Omit(MemoryEntrySchema, ['seenCount', 'lastSeenAt', 'lastSeenBy'], { title: 'MemoryContextEntry' });
type ContextEntry = Static<typeof MemoryContextEntry>;

/** The entry without the fields the context leaves out. */
function contextEntry(entry: MemoryEntry): ContextEntry {
  const { seenCount: _count, lastSeenAt: _at, lastSeenBy: _by, ...rest } = entry;
  return rest;
}

const MemoryContextSchema = Type.Object(
  {
    entries: Type.Array(MemoryContextEntry),
    total: Type.Integer({ description: 'How many entries the owner has' }),
    truncated: Type.Boolean({
      description: `True when not every entry is shown: only the newest (GATEWAY_MEMORY_LIMIT, default ${MEMORY_CONTEXT_CAP}), or, with task or maxTokens, those chosen for them`,
    }),
    relevant: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Only with task: the first `relevant` entries are those that match the task, best first (the ranking of GET /memory?q=); the newest others follow while they fit',
      }),
    ),
  },
  {
    description: `The current memory entries (neither superseded nor expired) with ids and timestamps, newest first, at most GATEWAY_MEMORY_LIMIT (default ${MEMORY_CONTEXT_CAP}); with task, those relevant to it first (scope \`memory\`)`,
  },
);
type MemoryContext = Static<typeof MemoryContextSchema>;

/**
 * Cut to a token budget: entries whole (a cut note can say the opposite of the note), in their
 * order, the ones matching the task first; one too long for what is left is skipped for the next.
 */
function fitMemory(value: MemoryContext, tokens: number): MemoryContext {
  const relevantIds = new Set(value.entries.slice(0, value.relevant ?? 0).map((entry) => entry.id));
  return keepWhileFits(value.entries, tokens, (kept: ContextEntry[]) => ({
    entries: kept,
    total: value.total,
    truncated: value.truncated || kept.length < value.entries.length,
    ...(value.relevant === undefined ? {} : { relevant: kept.filter((entry) => relevantIds.has(entry.id)).length }),
  }));
}

/**
 * `memory` in the gateway context, for tokens holding `memory`: the newest entries; with a task,
 * the entries its words and meaning match first (the memory service's own ranked search, as
 * GET /memory?q= answers it), then the newest others, up to the same cap.
 */
export function createMemoryContextSection(memory: Pick<MemoryService, 'recent' | 'list'>, cap = MEMORY_CONTEXT_CAP): ContextSection<typeof MemoryContextSchema> {
  return {
    name: 'memory',
    schema: MemoryContextSchema,
    tables: ['memory_entries'],
    visibleTo: (principal: Principal) => hasScope(principal, 'memory'),
    async load(ownerId, _principal, options) {
      const task = options?.task;
      if (task === undefined) {
        const recent = await memory.recent(ownerId, cap);
        return { ...recent, entries: recent.entries.map(contextEntry) };
      }
      const [matching, newest] = await Promise.all([memory.list(ownerId, { q: task, limit: cap, match: 'any' }), memory.recent(ownerId, cap)]);
      const ids = new Set(matching.entries.map((entry) => entry.id));
      const entries = [...matching.entries, ...newest.entries.filter((entry) => !ids.has(entry.id))].slice(0, cap).map(contextEntry);
      return { entries, total: newest.total, truncated: entries.length < newest.total, relevant: matching.entries.length };
    },
    // Memory and knowledge share what the pinned sections leave, memory twice knowledge's part:
    // an agent's notes about the person are what the context is for; documents are a search away.
    budget: { tier: 1, share: 2, fit: fitMemory },
  };
}
