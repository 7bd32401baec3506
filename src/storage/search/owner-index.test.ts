// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { createBuilder } from './owner-index.js';

const fullText = { table: 'notes', rowKey: 'id', columns: [{ name: 'content', weight: 1 }] };
const rows = Array.from({ length: 40 }, (_, i) => ({ id: `n${String(i).padStart(2, '0')}`, content: `note ${i} about the garden and word${i}`, tags: '[]' }));

function build(payloadMaxCost: number | undefined, maxCost = Infinity) {
  const builder = createBuilder<string>(fullText, [], ['content', 'tags'], undefined, maxCost, payloadMaxCost);
  for (const row of rows) if (!builder.add(row)) return undefined;
  return builder.finish(1);
}

describe("an owner's index with kept columns (payload)", () => {
  const postings = build(undefined)!.cost - rows.reduce((sum, row) => sum + 2 + (row.content.length >> 2) + 2, 0);

  it('keeps each row\'s columns, counted apart from the postings when the payload has a bound of its own', () => {
    const index = build(10_000, postings)!;
    expect(index.rows?.map((row) => row.content).sort()).toEqual(rows.map((row) => row.content).sort());
    // The slots are the index's: each kept row is its slot's document.
    index.ids.forEach((id, slot) => expect(index.rows![slot]!.content).toBe(rows.find((row) => row.id === id)!.content));
    expect(index.cost).toBeGreaterThan(postings);
  });

  it('drops the payload past its bound and still builds the index, which then answers no rows', () => {
    const index = build(20, postings)!;
    expect(index).toBeDefined();
    expect(index.rows).toBeUndefined();
    expect(index.cost).toBe(postings);
    expect(index.ids).toHaveLength(rows.length);
  });

  it('counts the payload towards the bound of the postings without a bound of its own', () => {
    expect(build(undefined, postings)).toBeUndefined();
    expect(build(undefined)?.rows).toHaveLength(rows.length);
  });
});
