/**
 * Stopping the server while searches are in flight (issue 33's leftover): the app closes its
 * container, storage last, only once the requests already being answered are done, so each gets
 * its answer and nothing is logged as failed. Through `inject` (nothing else waits for those
 * requests) and over HTTP while the server closes its listener first, as main.ts does on SIGTERM.
 */
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

async function seeded(): Promise<{ t: TestApp; lines: string[]; token: string }> {
  const lines: string[] = [];
  const t = await createTestApp({ logStream: { write: (line: string) => void lines.push(line) }, config: { logLevel: 'warn' } });
  const owner = await t.createOwner();
  for (let i = 0; i < 30; i++) {
    const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: `Note ${i}: the plumber in Lisbon said the boiler needs a new valve before January` } });
    expect(res.status).toBe(201);
  }
  return { t, lines, token: owner.token };
}

const WORDS = ['plumber', 'boiler', 'valve', 'Lisbon', 'January', 'note', 'new', 'said'];
/** Enough searches at once that some are still being answered when closing would reach storage. */
const QUESTIONS = Array.from({ length: 60 }, (_, i) => `what did the ${WORDS[i % 8]} say about the ${WORDS[(i * 3 + 1) % 8]} ${i}`);

describe('stopping with searches in flight', () => {
  it('answers every search already received, then closes storage, with no error logged (inject)', async () => {
    const { t, lines, token } = await seeded();
    const inFlight = QUESTIONS.map((q) => t.request('GET', `/api/v1/search?q=${encodeURIComponent(q)}&types=memory`, { token }));
    const closed = t.app.close();
    const answers = await Promise.all(inFlight);
    await closed;
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.length).toBeGreaterThan(0);
    }
    expect(lines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  });

  it('answers every search already received when the listener was closed first, as main.ts stops (HTTP)', async () => {
    const { t, lines, token } = await seeded();
    const base = await t.listen();
    // Stopped once the server holds the three requests, as a SIGTERM in the middle of a load would find them.
    let received = 0;
    const allReceived = new Promise<void>((resolve) => t.app.server.on('request', () => ++received === QUESTIONS.length && resolve()));
    const inFlight = QUESTIONS.map((q) => fetch(`${base}/api/v1/search?q=${encodeURIComponent(q)}&types=memory`, { headers: { authorization: `Bearer ${token}` } }));
    await allReceived;
    t.app.server.close();
    const closed = t.app.close();
    const answers = await Promise.all(inFlight.map(async (r) => { const res = await r; return { status: res.status, body: await res.json() }; }));
    await closed;
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(lines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  });
});
