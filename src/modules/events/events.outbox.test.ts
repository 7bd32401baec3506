/**
 * Events stored by another process (the command line) reach the running servers: each one is
 * published by exactly one node, with the id and time it was stored with, and the table is left
 * empty; on PostgreSQL the owner's listeners on every node hear it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import type { AccountEvent } from './events.schemas.js';
import { createOutboxWriter } from './events.outbox.js';

let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner();
});
afterAll(async () => t?.close());

async function until(done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('the event outbox', () => {
  it('publishes what another process stored once, on one node, with its id, oldest first, and keeps nothing', async () => {
    const other = await t.openNode();
    const taken = new Map<string, string[]>();
    const heardByOwner: AccountEvent[] = [];
    const stops = [
      t.container.events.subscribeAll((ownerId, event) => taken.set(event.id, [...(taken.get(event.id) ?? []), `a:${ownerId}`])),
      other.container.events.subscribeAll((ownerId, event) => taken.set(event.id, [...(taken.get(event.id) ?? []), `b:${ownerId}`])),
      t.container.events.subscribe(owner.id, (event) => heardByOwner.push(event)),
    ];
    try {
      // As the command line does: its own connection, events written, flushed, closed.
      const storage = await t.openStorage();
      const writer = createOutboxWriter(storage.db);
      // More than one batch.
      const stored = Array.from({ length: 150 }, (_, i) => writer.publish(owner.id, { type: 'token.revoked', data: { tokenId: `tok_${i}`, kind: 'session' } }));
      await writer.flush();
      await storage.close();

      await until(() => taken.size >= stored.length);
      expect(taken.size).toBe(stored.length);
      for (const event of stored) {
        const by = taken.get(event.id)!;
        expect(by, event.id).toHaveLength(1);
        expect(by[0]!.slice(2)).toBe(owner.id);
      }
      expect(await t.storage.db.selectFrom('event_outbox').select('id').execute()).toEqual([]);
      // This node's listeners of the owner: every event it took, or with PostgreSQL every event
      // (the other node's come over the cluster bus), with the stored id, time and data.
      const mine = stored.filter((event) => taken.get(event.id)![0]!.startsWith('a:'));
      if (ENGINE === 'postgres') await until(() => heardByOwner.length >= stored.length);
      const expected = ENGINE === 'postgres' ? stored : mine;
      expect(heardByOwner.map((event) => event.id).sort()).toEqual(expected.map((event) => event.id).sort());
      const byId = new Map(stored.map((event) => [event.id, event]));
      for (const event of heardByOwner) expect(event).toEqual(byId.get(event.id));
      // Oldest first, on the node that took them.
      const local = heardByOwner.filter((event) => mine.some((m) => m.id === event.id)).map((event) => event.id);
      expect(local).toEqual([...local].sort());
    } finally {
      for (const stop of stops) stop();
      await other.app.close();
    }
  }, 60_000);
});
