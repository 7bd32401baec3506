import type { Principal } from '../../http/access.js';
import { estimateTokens } from '../../lib/token-estimate.js';
import { isoNow } from '../../lib/time.js';
import { createDerivedCache, uncached, type DerivedCache } from '../../storage/derived-cache.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import { envelopeTokens, fitSections, type BudgetReport } from './gateway.budget.js';
import { BUDGET_KEY, gatewayContextSchema } from './gateway.schemas.js';
import type { ContextOptions, ContextSection } from './gateway.section.js';

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

/** A rendered context as kept, with the instant it stops being true without a write, if any. */
interface KeptContext {
  body: Buffer;
  expiresAt: string | undefined;
}

/** What makes two principals see the same context: the token and everything its access rests on. */
function principalKey(principal: Principal): string {
  return `${principal.ownerId}|${principal.tokenId}|${principal.kind}|${principal.role}|${principal.allScopes ? '*' : [...principal.scopes].sort().join(',')}|${principal.memoryTags ? principal.memoryTags.join(',') : '*'}`;
}

export function createGatewayService(deps: GatewayServiceOptions) {
  const names = new Set<string>([BUDGET_KEY]);
  for (const section of deps.sections) {
    if (names.has(section.name)) {
      throw new Error(section.name === BUDGET_KEY ? `The gateway context keeps ${BUDGET_KEY} for its budget report; name the section otherwise` : `Two gateway context sections are named ${section.name}`);
    }
    names.add(section.name);
  }
  const sections = [...deps.sections];
  const contextSchema = gatewayContextSchema(sections);
  const tables = [...new Set(sections.flatMap((section) => section.tables))];
  const cache: DerivedCache<KeptContext> = deps.writes
    ? createDerivedCache<KeptContext>({ tracker: deps.writes, tables, maxEntries: CACHE_ENTRIES, maxWeight: CACHE_BYTES, weigh: (kept) => kept.body.length })
    : uncached<KeptContext>();
  /** A kept context holds until its tables change, and until the first of its sections' values ends (`expiresAt`). */
  const stillTrue = (kept: KeptContext) => kept.expiresAt === undefined || kept.expiresAt > isoNow();
  // Principals are kept per token while the token is unchanged, so the key is worked out once per principal.
  const keys = new WeakMap<Principal, string>();

  /**
   * The context for one token: every section it may see, loaded in parallel. With a budget, the
   * sections that can give way are cut to it and `budget` reports what the answer holds (its
   * `usedTokens` is filled in once the answer is rendered).
   */
  async function context(principal: Principal, options: ContextOptions = {}): Promise<Record<string, unknown>> {
    return (await contextUntil(principal, options)).data;
  }

  /**
   * The context, and the first instant a section's loaded value stops being true without a write
   * (ContextSection.expiresAt): judged on the values as loaded, before a budget cuts them or an
   * omission empties them, since what a section takes decides what the others get.
   */
  async function contextUntil(principal: Principal, options: ContextOptions): Promise<{ data: Record<string, unknown>; expiresAt: string | undefined }> {
    const visible = sections.filter((section) => section.visibleTo(principal));
    const loaded = await Promise.all(visible.map((section) => section.load(principal.ownerId, principal, options)));
    let expiresAt: string | undefined;
    visible.forEach((section, i) => {
      const end = section.expiresAt?.(loaded[i] as never);
      if (end !== undefined && (expiresAt === undefined || end < expiresAt)) expiresAt = end;
    });
    return { data: fitted(visible, loaded, options), expiresAt };
  }

  /** The loaded values as the answer holds them: omitted sections empty, a budget's cuts made. */
  function fitted(visible: readonly ContextSection[], loaded: readonly unknown[], options: ContextOptions): Record<string, unknown> {
    const omitted = new Set(options.omit ?? []);
    // A section left out is sent in its empty form, so the answer keeps the shape its schema says.
    const values = visible.map((section, i) => (omitted.has(section.name) && section.budget ? section.budget.fit(loaded[i], 0) : loaded[i]));
    const left = visible.filter((section) => omitted.has(section.name) && section.budget).map((section) => section.name);
    const data: Record<string, unknown> = {};
    if (options.maxTokens === undefined) {
      visible.forEach((section, i) => (data[section.name] = values[i]));
      return data;
    }
    const budgeted = visible.filter((section) => section.budget).map((section) => section.name);
    const available = options.maxTokens - envelopeTokens(options.maxTokens, budgeted);
    const fitted = fitSections(
      visible.map((section, i) => ({ name: section.name, value: values[i], budget: section.budget as ContextSection['budget'] })),
      available,
    );
    visible.forEach((section, i) => (data[section.name] = fitted.values[i]));
    const trimmed = [...left, ...fitted.trimmed.filter((name) => !omitted.has(name))];
    const report: BudgetReport = { maxTokens: options.maxTokens, usedTokens: options.maxTokens, truncated: trimmed.length > 0, trimmed };
    data[BUDGET_KEY] = report;
    return data;
  }

  function keyOf(principal: Principal): string {
    let key = keys.get(principal);
    if (!key) keys.set(principal, (key = principalKey(principal)));
    return key;
  }

  /** The sections a caller may ask to have left out: those that can give way under a budget. */
  function omittable(): string[] {
    return sections.filter((section) => section.budget).map((section) => section.name);
  }

  /** Renders a context, and with a budget writes into it the tokens its rendering holds. */
  function renderMeasured(data: Record<string, unknown>, render: (data: Record<string, unknown>) => string): Buffer {
    let body = render(data);
    const report = data[BUDGET_KEY] as BudgetReport | undefined;
    if (report) {
      // Rendered first with the budget itself as the count; the count written in changes the
      // answer's length by a digit at most, so a round or two settle on the answer's own count.
      // Should two counts alternate (a digit across a round number), the larger one stays.
      const seen = new Set<number>();
      for (;;) {
        const used = estimateTokens(body);
        if (used === report.usedTokens) break;
        if (seen.has(used)) {
          report.usedTokens = Math.max(used, report.usedTokens);
          body = render(data);
          break;
        }
        seen.add(used);
        report.usedTokens = used;
        body = render(data);
      }
    }
    return Buffer.from(body, 'utf8');
  }

  return {
    context,

    /**
     * The context rendered to its JSON answer by `render`, as bytes ready for the socket, from the
     * cache while nothing it was built from has changed. Agents call this first in every session,
     * often many times. An answer for a task is never cached: tasks rarely repeat, and keeping
     * each would only push out the answers that do.
     */
    async renderedContext(principal: Principal, render: (data: Record<string, unknown>) => string, options: ContextOptions = {}): Promise<Buffer> {
      const build = async (): Promise<KeptContext> => {
        const { data, expiresAt } = await contextUntil(principal, options);
        return { body: renderMeasured(data, render), expiresAt };
      };
      if (options.task !== undefined) return (await build()).body;
      const key = keyOf(principal);
      const variant = options.maxTokens === undefined && !options.omit?.length ? key : `${key}|${options.maxTokens ?? ''}|${[...(options.omit ?? [])].sort().join(',')}`;
      return (await cache.get(variant, build, stillTrue)).body;
    },

    /**
     * The whole context (no task, budget or omission) `renderedContext` would send `principal`
     * now from its cache, without waiting; undefined when it must build it. For the front door.
     */
    cachedContext(principal: Principal): Buffer | undefined {
      return cache.peek(keyOf(principal), stillTrue)?.body;
    },

    /** The response schema of GET /gateway/context: the sections' schemas, in their order. */
    contextSchema,

    omittable,

    sectionNames(): string[] {
      return sections.map((section) => section.name);
    },
  };
}

export type GatewayService = ReturnType<typeof createGatewayService>;
