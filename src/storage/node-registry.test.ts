import { once } from 'node:events';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../test/harness.js';
import type { Storage } from './storage.js';

describe.skipIf(ENGINE !== 'sqlite')('the node registry of one node alone', () => {
  it('knows this node only, and writes nothing', async () => {
    const t = await createTestApp();
    try {
      const { nodes } = t.storage;
      expect(nodes.alive(nodes.nodeId)).toBe(true);
      expect(nodes.alive('0123456789ab')).toBe(false);
      expect(await t.storage.db.selectFrom('cluster_nodes').selectAll().execute()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(ENGINE !== 'postgres')('the node registry of nodes sharing PostgreSQL', () => {
  const HEARTBEAT_MS = 100;
  let t: TestApp;
  let a: Storage;
  let b: Storage;
  const rows = async () => (await sql<{ node_id: string }>`SELECT node_id FROM cluster_nodes ORDER BY node_id`.execute(a.db)).rows.map((r) => r.node_id);

  beforeAll(async () => {
    t = await createTestApp({ config: { clusterHeartbeatMs: HEARTBEAT_MS } });
    a = t.storage;
    b = await t.openStorage();
  });
  let bClosed = false;
  afterAll(async () => {
    if (!bClosed) await b?.close();
    await t?.close();
  });

  it('each node has its row, and each sees the other alive after a heartbeat', async () => {
    expect(await rows()).toEqual([a.nodes.nodeId, b.nodes.nodeId].sort());
    expect(a.nodes.nodeId).toBe(a.bus.nodeId);
    expect(a.nodes.deadAfterMs).toBe(HEARTBEAT_MS * 3);
    await expect.poll(() => a.nodes.alive(b.nodes.nodeId) && b.nodes.alive(a.nodes.nodeId), { interval: 20, timeout: 2_000 }).toBe(true);
  });

  it('a node whose row was removed as long dead writes it again and says it rejoined', async () => {
    const rejoined = once(b.nodes.events, 'rejoined');
    await sql`DELETE FROM cluster_nodes WHERE node_id = ${b.nodes.nodeId}`.execute(a.db);
    await rejoined;
    expect(await rows()).toContain(b.nodes.nodeId);
  });

  it('a node closing removes its row: the other counts it out at its next look', async () => {
    const leaving = b.nodes.nodeId;
    await expect.poll(() => a.nodes.alive(leaving), { interval: 20, timeout: 5_000 }).toBe(true);
    // Said once b leaves; on a loaded machine a may also have taken b for dead a moment earlier
    // (one heartbeat late), and then said it then.
    const saidDown: string[] = [];
    a.nodes.events.on('down', (id: string) => saidDown.push(id));
    await b.close();
    bClosed = true;
    expect(await rows()).toEqual([a.nodes.nodeId]);
    await expect.poll(() => a.nodes.alive(leaving), { interval: 20, timeout: 5_000 }).toBe(false);
    await expect.poll(() => saidDown, { interval: 20, timeout: 5_000 }).toContain(leaving);
  });
});
