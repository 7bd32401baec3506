// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { spliceChains, type ChainRow } from './memory.repo.js';

/** Mending the chains that lose forgotten entries (memory.repo.ts, spliceChains). */
const row = (id: string, by: string | null, supersedes: string[] = []): ChainRow => ({
  id,
  superseded_by: by,
  superseded_at: by === null ? null : '2026-01-01T00:00:00.000Z',
  supersedes: JSON.stringify(supersedes),
});
const forgotten = (...rows: ChainRow[]) => new Map(rows.map((r) => [r.id, r]));

describe('spliceChains', () => {
  it('makes an entry current again when what replaced it is forgotten and nothing kept followed', () => {
    const changes = spliceChains(forgotten(row('f1', null, ['k1'])), [row('k1', 'f1')]);
    expect(changes).toEqual([{ id: 'k1', supersededBy: null, supersededAt: null, supersedes: [], restored: true }]);
  });

  it('links across a run of forgotten entries to the first kept one after them', () => {
    const changes = spliceChains(forgotten(row('f1', 'f2', ['k1']), row('f2', 'k2', ['f1'])), [row('k1', 'f1'), row('k2', null, ['f2', 'k0'])]);
    expect(changes).toEqual([
      { id: 'k1', supersededBy: 'k2', supersededAt: '2026-01-01T00:00:00.000Z', supersedes: [], restored: false },
      { id: 'k2', supersededBy: null, supersededAt: null, supersedes: ['k0', 'k1'], restored: false },
    ]);
  });

  it('drops a forgotten entry from what a kept one replaced, and changes nothing else', () => {
    const changes = spliceChains(forgotten(row('f1', 'k2')), [row('k2', null, ['f1']), row('k3', null, ['k4'])]);
    expect(changes).toEqual([{ id: 'k2', supersededBy: null, supersededAt: null, supersedes: [], restored: false }]);
  });

  it('ends on a loop of forgotten entries (which no write makes) as if nothing followed', () => {
    const changes = spliceChains(forgotten(row('f1', 'f2', ['k1']), row('f2', 'f1', ['f1'])), [row('k1', 'f1')]);
    expect(changes).toEqual([{ id: 'k1', supersededBy: null, supersededAt: null, supersedes: [], restored: true }]);
  });
});
