/**
 * Concurrent writers of memory entries and the ledger of what was acknowledged, for the tests
 * that kill servers under load (durability.e2e.test.ts: one server; cluster/: several behind a
 * proxy): every write answered 2xx must be stored exactly once afterwards.
 */
import { expect } from 'vitest';

export interface Ledger {
  /** Contents the server answered 2xx for. */
  acknowledged: Set<string>;
  /** Every content sent, answered or not. */
  sent: Set<string>;
}

export const newLedger = (): Ledger => ({ acknowledged: new Set(), sent: new Set() });

export interface WritersOptions {
  base: string;
  token: string;
  writers: number;
  /** Makes the contents of this run unique. */
  label: string;
  ledger: Ledger;
  /** Sees the count of writes acknowledged in this run. */
  onAck?: (count: number) => void;
  /**
   * What a write whose answer never came (the connection dropped, or a proxy's 502) means:
   * `stop` – the server is gone, the writer stops; `continue` – another server takes the next
   * one. Either way that write's fate is unknown.
   */
  onDrop: 'stop' | 'continue';
  /** Checked before each write; the writers stop when it answers false. */
  keepGoing?: () => boolean;
}

/**
 * `writers` concurrent writers of POST /api/v1/memory, each sending its next entry as soon as the
 * last is answered. Any answer other than 2xx (or a drop, see `onDrop`) fails the run.
 */
export function writeConcurrently(options: WritersOptions): Promise<void> {
  const { base, token, ledger, label } = options;
  let count = 0;
  const writer = async (w: number) => {
    for (let seq = 0; options.keepGoing?.() ?? true; seq++) {
      const content = `${label} writer ${w} entry ${seq}`;
      ledger.sent.add(content);
      let status: number;
      try {
        const response = await fetch(`${base}/api/v1/memory`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content }),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        if (options.onDrop === 'stop') return;
        continue;
      }
      if (status === 502 && options.onDrop === 'continue') continue;
      if (status < 200 || status >= 300) throw new Error(`write answered ${status}`);
      ledger.acknowledged.add(content);
      options.onAck?.(++count);
    }
  };
  return Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w))).then(() => undefined);
}

/** Every memory entry's content, all pages. */
export async function listAll(base: string, token: string): Promise<string[]> {
  const contents: string[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `${base}/api/v1/memory?limit=200${cursor ? `&cursor=${cursor}` : ''}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Array<{ content: string }>; nextCursor: string | null };
    for (const entry of body.data) contents.push(entry.content);
    cursor = body.nextCursor;
  } while (cursor);
  return contents;
}

/** Fails unless every acknowledged write is stored, none twice, and nothing that was never sent. */
export function expectLedgerKept(stored: string[], ledger: Ledger): void {
  const counts = new Map<string, number>();
  for (const content of stored) counts.set(content, (counts.get(content) ?? 0) + 1);
  const lost = [...ledger.acknowledged].filter((content) => !counts.has(content));
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([content]) => content);
  const unknown = [...counts.keys()].filter((content) => !ledger.sent.has(content));
  expect(lost).toEqual([]);
  expect(duplicated).toEqual([]);
  expect(unknown).toEqual([]);
}
