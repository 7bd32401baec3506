import type { Static, TSchema } from '@sinclair/typebox';
import type { Principal } from '../../http/access.js';
import type { TableName } from '../../storage/derived-cache.js';

/** What the caller of GET /gateway/context asked for beyond the token's own view. */
export interface ContextOptions {
  /**
   * What the agent is about to do (`?task=`), trimmed and never blank. A section that can rank
   * its items puts what serves the task first (memory and knowledge answer with their own
   * search); the others ignore it.
   */
  task?: string | undefined;
  /**
   * The token budget of the whole answer (`?maxTokens=`), when one is asked for. No section can
   * use more than this, so a section may load no more than it could fill; the gateway then cuts
   * each section that has a `budget` to its share (see gateway.budget.ts).
   */
  maxTokens?: number | undefined;
  /**
   * Sections the caller asked to have sent empty (`?omit=`); only sections with a `budget` can
   * be. The gateway handles it; a section's `load` may ignore it.
   */
  omit?: readonly string[] | undefined;
}

/**
 * How a section gives way under a token budget. Sections without one are pinned: always whole,
 * counted first (who the owner is, the token, the persona to adopt, identity and preferences).
 */
export interface SectionBudget<V> {
  /**
   * Lower tiers are served first from what the pinned sections leave; the sections of one tier
   * share what reaches it by `share`, and what one of them leaves unused passes to the others,
   * then to the next tier.
   */
  tier: number;
  /** This section's part of its tier (default 1). */
  share?: number;
  /**
   * The value cut to at most `tokens` (estimated on its JSON, `estimateJsonTokens`), keeping
   * what matters most: the best items whole, in order. Called only when the whole value does
   * not fit; `tokens` may be too few for anything but the value's empty form, which is then
   * the answer.
   */
  fit(value: V, tokens: number): V;
}

/**
 * One part of the gateway context. Each module that has something an agent should see at the
 * start of a session contributes a section, with the schema of its value beside the code that
 * loads it; the gateway itself knows none of them and imports no module.
 */
export interface ContextSection<S extends TSchema = TSchema> {
  /** The key of the section in `data`. */
  name: string;
  /** The section's value, as documented in the OpenAPI document and used to serialize it. */
  schema: S;
  /** Shown to every token (not optional in the schema); other sections depend on scopes. */
  always?: boolean;
  /**
   * When the value `load` answered stops being true with nothing written (an entry read until
   * its validity ends: one shown, or one that decided a count), as an ISO date-time; undefined
   * when only a write can change it. Asked of the value as loaded, before a budget cuts it. A
   * kept context is built again from then on.
   */
  expiresAt?(value: Static<S>): string | undefined;
  /**
   * Every table the section reads (including tables whose rows it names, like attached titles).
   * The gateway caches contexts on the embedded engine and serves a cached one only while none
   * of these tables has been written since.
   */
  tables: readonly TableName[];
  /** Whether this token may see the section at all; hidden sections are not even loaded. */
  visibleTo(principal: Principal): boolean;
  /** Without options (or with none set: no task, no budget) the section as it always was. */
  load(ownerId: string, principal: Principal, options?: ContextOptions): Promise<Static<S>>;
  /** Present when the section may be cut to fit a token budget; absent: pinned. */
  budget?: SectionBudget<Static<S>>;
}
