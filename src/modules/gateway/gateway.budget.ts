import { estimateJsonTokens, estimateTokens } from '../../lib/token-estimate.js';
import type { SectionBudget } from './gateway.section.js';

/**
 * Fitting the gateway context to a token budget (`?maxTokens=`).
 *
 * Tokens are estimated on the JSON an agent receives (lib/token-estimate.ts: a quarter token per
 * ASCII character, one per other character). The estimate of a text is never more than the sum
 * of the estimates of its parts, so the answer is fitted part by part: the envelope, each
 * section's `"name":value,`, each item of a list. What the parts add up to bounds the whole.
 *
 * Order of service: the pinned sections (those without a `budget`) whole; the others' empty forms
 * (each section is always present, as its schema says); then each tier of the others, lowest
 * first, shares what is left by their `share`. A section whose whole value fits
 * its share takes only what it needs, and the rest goes to the others of its tier; those that do
 * not fit are cut by their own `fit`, and what they leave still goes on to the next tier.
 */

/** The smallest and largest budgets a caller may ask for. */
export const MIN_CONTEXT_TOKENS = 500;
export const MAX_CONTEXT_TOKENS = 32_000;

/** What the answer says about its budget (`data.budget`). */
export interface BudgetReport {
  maxTokens: number;
  usedTokens: number;
  truncated: boolean;
  trimmed: string[];
}

export interface LoadedSection {
  name: string;
  value: unknown;
  budget?: SectionBudget<unknown> | undefined;
}

/** Tokens of one section as it stands in `data`: its key, its value and a comma. */
export function sectionTokens(name: string, value: unknown): number {
  return estimateTokens(`${JSON.stringify(name)}:${JSON.stringify(value)},`);
}

/** Tokens of a section's key and separators alone, so that its value gets the rest of its share. */
function keyTokens(name: string): number {
  return estimateTokens(`${JSON.stringify(name)}:,`);
}

/**
 * The envelope around the sections, `{"data":{ … "budget":{…}}}`, counted with the widest
 * budget report it can carry (every cut section named, the largest number), so that the report
 * written afterwards never pushes the answer over.
 */
export function envelopeTokens(maxTokens: number, budgeted: readonly string[]): number {
  const widest: BudgetReport = { maxTokens, usedTokens: Math.max(maxTokens, 99_999), truncated: false, trimmed: [...budgeted] };
  return estimateTokens(`{"data":{"budget":${JSON.stringify(widest)}}}`);
}

/**
 * Each section's value within `available` tokens (the budget less the envelope), and the names
 * of the sections that were cut. Pure: the values are the sections' own, cut by their `fit`.
 */
export function fitSections(sections: readonly LoadedSection[], available: number): { values: unknown[]; trimmed: string[] } {
  const values = sections.map((section) => section.value);
  const trimmed: string[] = [];
  const members = sections.flatMap((section, i) => {
    if (!section.budget) return [];
    // What the section costs at the least (its key and its value's empty form), set aside first:
    // a section is never left out altogether, so this much is spent whatever its share.
    const floor = keyTokens(section.name) + estimateJsonTokens(section.budget.fit(section.value, 0));
    const whole = sectionTokens(section.name, section.value);
    return [{ section, i, budget: section.budget, floor, extra: Math.max(0, whole - floor), share: section.budget.share ?? 1 }];
  });
  let left = available;
  for (const section of sections) if (!section.budget) left -= sectionTokens(section.name, section.value);
  for (const m of members) left -= m.floor;

  const tiers = [...new Set(members.map((m) => m.budget.tier))].sort((a, b) => a - b);
  for (const tier of tiers) {
    let pool = Math.max(0, left);
    // Those whose whole value fits their share take what they need; the others share the rest.
    let open = members.filter((m) => m.budget.tier === tier);
    for (;;) {
      const total = open.reduce((sum, m) => sum + m.share, 0);
      const fits = open.filter((m) => m.extra <= (pool * m.share) / total);
      if (fits.length === 0) break;
      for (const m of fits) pool -= m.extra;
      open = open.filter((m) => !fits.includes(m));
      if (open.length === 0) break;
    }
    if (open.length > 0) {
      const total = open.reduce((sum, m) => sum + m.share, 0);
      /** Cuts each open section to its floor and its part of `tokens`; answers what they use beyond their floors. */
      const cut = (tokens: number) => {
        let used = 0;
        for (const m of open) {
          const value = m.budget.fit(m.section.value, m.floor - keyTokens(m.section.name) + Math.floor((tokens * m.share) / total));
          values[m.i] = value;
          used += Math.max(0, sectionTokens(m.section.name, value) - m.floor);
        }
        return used;
      };
      let used = cut(pool);
      // Items are kept whole, so a cut section usually leaves some of its part unused: one more
      // round offers that to the cut sections of the tier before it passes on.
      const spare = pool - used;
      if (spare > 0 && open.length > 1) {
        const again = cut(pool + spare);
        used = again <= pool ? again : cut(pool);
      }
      pool -= used;
      for (const m of open) trimmed.push(m.section.name);
    }
    left = pool;
  }
  return { values, trimmed };
}

/**
 * For a section's `fit`: the items kept in order, each whole, while the value built from them
 * fits `tokens`. An item too large for what is left is skipped and the next ones are tried, so
 * that one long entry does not crowd out the rest. `build` makes the section's value from the
 * kept items (and says in it that some were left out); `part` is what of an item its JSON holds.
 */
export function keepWhileFits<T, V>(items: readonly T[], tokens: number, build: (kept: T[]) => V, part: (item: T) => unknown = (item) => item): V {
  const kept: T[] = [];
  let used = estimateJsonTokens(build([]));
  for (const item of items) {
    const cost = estimateTokens(`${JSON.stringify(part(item))},`);
    if (used + cost > tokens) continue;
    kept.push(item);
    used += cost;
  }
  let value = build(kept);
  // The parts bound the whole; this only guards a `build` whose frame grows with what it keeps.
  while (kept.length > 0 && estimateJsonTokens(value) > tokens) {
    kept.pop();
    value = build(kept);
  }
  return value;
}
