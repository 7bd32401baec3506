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
    total: Type.Integer({ description: 'How many entries the owner has (a token limited to memory tags: how many it sees)' }),
    truncated: Type.Boolean({
      description: `True when not every entry is shown: only the newest (GATEWAY_MEMORY_LIMIT, default ${MEMORY_CONTEXT_CAP}), or, with task or maxTokens, those chosen for them`,
    }),
    pinned: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "Only when the owner pinned entries: the first `pinned` entries are the pinned profile (core facts, standing instructions), in the owner's order (GET /memory/profile)",
      }),
    ),
    relevant: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Only with task: the `relevant` entries after the pinned ones are those that match the task, best first (the ranking of GET /memory?q=); the newest others follow while they fit',
      }),
    ),
  },
  {
    description: `The current memory entries (neither superseded nor expired) with ids and timestamps: the pinned profile first, in the owner's order, then the newest, at most GATEWAY_MEMORY_LIMIT (default ${MEMORY_CONTEXT_CAP}) in all; with task, those relevant to it after the profile (scope \`memory\`)`,
  },
);
type MemoryContext = Static<typeof MemoryContextSchema>;

/**
 * Cut to a token budget: entries whole (a cut note can say the opposite of the note), in their
 * order, the ones matching the task first; one too long for what is left is skipped for the next.
 */
function fitMemory(value: MemoryContext, tokens: number): MemoryContext {
  const pinnedIds = new Set(value.entries.slice(0, value.pinned ?? 0).map((entry) => entry.id));
  const relevantIds = new Set(value.entries.slice(value.pinned ?? 0, (value.pinned ?? 0) + (value.relevant ?? 0)).map((entry) => entry.id));
  const build = (kept: ContextEntry[]): MemoryContext => ({
    entries: kept,
    total: value.total,
    truncated: value.truncated || kept.length < value.entries.length,
    ...(value.pinned === undefined ? {} : { pinned: kept.filter((entry) => pinnedIds.has(entry.id)).length }),
    ...(value.relevant === undefined ? {} : { relevant: kept.filter((entry) => relevantIds.has(entry.id)).length }),
  });
  const fitted = keepWhileFits(value.entries, tokens, build);
  // The profile comes before any other memory: when a pinned entry had to go, no other entry
  // takes the room it left (only the pinned ones after it that fit, in the owner's order).
  if ((fitted.pinned ?? 0) < pinnedIds.size) return keepWhileFits(value.entries.slice(0, pinnedIds.size), tokens, build);
  return fitted;
}

/**
 * `memory` in the gateway context, for tokens holding `memory`: the newest entries; with a task,
 * the entries its words and meaning match first (the memory service's own ranked search, as
 * GET /memory?q= answers it), then the newest others, up to the same cap.
 */
export function createMemoryContextSection(memory: Pick<MemoryService, 'recent' | 'list' | 'profile'>, cap = MEMORY_CONTEXT_CAP): ContextSection<typeof MemoryContextSchema> {
  // When each loaded value stops being true: the first validUntil among every entry read for it,
  // those shown and the one read past the cap (which decides `truncated` and `total`).
  const ends = new WeakMap<MemoryContext, string>();
  const earliest = (endsAt: string | undefined, entries: readonly MemoryEntry[]): string | undefined =>
    entries.reduce<string | undefined>((first, entry) => (entry.validUntil !== null && (first === undefined || entry.validUntil < first) ? entry.validUntil : first), endsAt);
  const ending = (value: MemoryContext, endsAt: string | undefined): MemoryContext => {
    if (endsAt !== undefined) ends.set(value, endsAt);
    return value;
  };
  return {
    name: 'memory',
    schema: MemoryContextSchema,
    tables: ['memory_entries'],
    visibleTo: (principal: Principal) => hasScope(principal, 'memory'),
    async load(ownerId, principal, options) {
      // A token limited to memory tags reads, and counts, only the entries carrying one of them.
      const scope = principal.memoryTags ?? null;
      const task = options?.task;
      const [profile, matching, newest] = await Promise.all([
        memory.profile(ownerId, cap, scope),
        task === undefined ? undefined : memory.list(ownerId, { q: task, limit: cap, match: 'any', scope }),
        memory.recent(ownerId, cap, scope),
      ]);
      if (profile.length === 0 && matching === undefined) {
        return ending({ entries: newest.entries.map(contextEntry), total: newest.total, truncated: newest.truncated }, newest.endsAt);
      }
      // The profile leads, in the owner's order; then what matches the task; then the newest.
      const pinnedIds = new Set(profile.map((entry) => entry.id));
      const relevant = (matching?.entries ?? []).filter((entry) => !pinnedIds.has(entry.id));
      const seen = new Set([...pinnedIds, ...relevant.map((entry) => entry.id)]);
      const entries = [...profile, ...relevant, ...newest.entries.filter((entry) => !seen.has(entry.id))].slice(0, cap).map(contextEntry);
      return ending(
        {
          entries,
          total: newest.total,
          truncated: newest.truncated || entries.length < newest.total,
          ...(profile.length > 0 ? { pinned: Math.min(profile.length, cap) } : {}),
          ...(matching === undefined ? {} : { relevant: Math.max(0, Math.min(relevant.length, cap - profile.length)) }),
        },
        earliest(earliest(newest.endsAt, profile), matching?.entries ?? []),
      );
    },
    // An entry read until its validity ends: the context kept with it holds until then.
    expiresAt: (value) => ends.get(value),
    // Memory and knowledge share what the pinned sections leave, memory twice knowledge's part:
    // an agent's notes about the person are what the context is for; documents are a search away.
    budget: { tier: 1, share: 2, fit: fitMemory },
  };
}
