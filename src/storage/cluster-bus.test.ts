import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../test/harness.js';
import { createRootKeys } from '../modules/keyring/keyring.watch.js';
import { createBusSeal } from './bus-seal.js';
import { createLocalBus, type ClusterBus } from './cluster-bus.js';
import type { Storage } from './storage.js';

/** The next message under `topic` on `bus`, with its sender. */
const nextMessage = (bus: ClusterBus, topic: string) =>
  new Promise<{ message: string; from: string }>((resolve) => {
    const off = bus.subscribe(topic, (message, from) => {
      off();
      resolve({ message, from });
    });
  });

describe('the bus of one node alone', () => {
  it('delivers what a node sends to itself, later, and has nobody else to publish to', async () => {
    const bus = createLocalBus();
    const heard: string[] = [];
    bus.subscribe('greeting', (message) => heard.push(message));
    bus.publish('greeting', 'to the others');
    bus.sendTo(bus.nodeId, 'greeting', 'to myself');
    expect(heard).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['to myself']);
  });

  it('refuses a topic that is not a short word', () => {
    const bus = createLocalBus();
    expect(() => bus.publish('two words', 'x')).toThrow(/topic/);
    expect(() => bus.subscribe('', () => {})).toThrow(/topic/);
  });
});

describe.skipIf(ENGINE !== 'postgres')('the bus between nodes sharing PostgreSQL', () => {
  let app: TestApp;
  let a: Storage;
  let b: Storage;
  let c: Storage;

  beforeAll(async () => {
    app = await createTestApp();
    a = app.storage;
    b = await app.openStorage();
    c = await app.openStorage();
  });
  afterAll(async () => {
    await c?.close();
    await b?.close();
    await app?.close();
  });

  it('gives every node its own id', () => {
    expect(new Set([a.bus.nodeId, b.bus.nodeId, c.bus.nodeId]).size).toBe(3);
    expect(a.bus.nodeId).toMatch(/^[0-9a-f]{12}$/);
  });

  it('publishes to every other node, not to the sender', async () => {
    const heardByA: string[] = [];
    const offA = a.bus.subscribe('news', (message) => heardByA.push(message));
    const atB = nextMessage(b.bus, 'news');
    const atC = nextMessage(c.bus, 'news');
    a.bus.publish('news', 'the device is online');
    expect(await atB).toEqual({ message: 'the device is online', from: a.bus.nodeId });
    expect(await atC).toEqual({ message: 'the device is online', from: a.bus.nodeId });
    // A's own broadcast came back on the same connection before B's and C's copies were answered; it was skipped.
    const echo = nextMessage(a.bus, 'news');
    b.bus.publish('news', 'from b');
    expect((await echo).message).toBe('from b');
    expect(heardByA).toEqual(['from b']);
    offA();
  });

  it('sends to one node only, itself included, in the order sent', async () => {
    const heardByC: string[] = [];
    const offC = c.bus.subscribe('direct', (message) => heardByC.push(message));
    const received: string[] = [];
    const all = new Promise<void>((resolve) => {
      const off = b.bus.subscribe('direct', (message) => {
        received.push(message);
        if (received.length === 20) {
          off();
          resolve();
        }
      });
    });
    for (let i = 0; i < 20; i++) a.bus.sendTo(b.bus.nodeId, 'direct', String(i));
    await all;
    expect(received).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    const self = nextMessage(a.bus, 'direct');
    a.bus.sendTo(a.bus.nodeId, 'direct', 'note to self');
    expect(await self).toEqual({ message: 'note to self', from: a.bus.nodeId });
    expect(heardByC).toEqual([]);
    offC();
  });

  // Messages asked for together go in one statement (pg-listener.ts). Sealed, no two payloads
  // are identical, so PostgreSQL's folding of identical notifications of one transaction never
  // swallows a message repeated on purpose.
  it('sends the messages asked for together in order, whatever they hold, a repeated one included', async () => {
    const odd = ['NULL', '{a,b}', 'say "hi"', 'back\\slash', 'ünïcödé ✓', '', 'a,b c'];
    const received: string[] = [];
    let heardLast!: () => void;
    const all = new Promise<void>((resolve) => (heardLast = resolve));
    const hear = (topic: string) => (message: string) => {
      received.push(`${topic}:${message}`);
      if (message === 'last') heardLast();
    };
    const offs = [b.bus.subscribe('batch', hear('batch')), b.bus.subscribe('batch.direct', hear('batch.direct'))];
    const sent: string[] = [];
    for (const [i, message] of odd.entries()) {
      if (i % 2 === 0) a.bus.publish('batch', message);
      else a.bus.sendTo(b.bus.nodeId, 'batch.direct', message);
      sent.push(`${i % 2 === 0 ? 'batch' : 'batch.direct'}:${message}`);
    }
    a.bus.publish('batch', 'same');
    a.bus.publish('batch', 'same');
    a.bus.publish('batch', 'last');
    await all;
    offs.forEach((off) => off());
    expect(received).toEqual([...sent, 'batch:same', 'batch:same', 'batch:last']);
  });

  it('sends more than one statement takes as several batches, every message in its order', async () => {
    const count = 700;
    const filler = 'x'.repeat(1_000);
    const received: number[] = [];
    let heardAll!: () => void;
    const all = new Promise<void>((resolve) => (heardAll = resolve));
    const off = b.bus.subscribe('many', (message) => {
      received.push(Number(message.slice(0, message.indexOf(' '))));
      if (received.length === count) heardAll();
    });
    for (let i = 0; i < count; i++) a.bus.sendTo(b.bus.nodeId, 'many', `${i} ${filler}`);
    await all;
    off();
    expect(received).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it('refuses a message too large for a notification, saying what to do instead', () => {
    expect(() => a.bus.publish('big', 'x'.repeat(8_000))).toThrow(/put the data in a table/);
    expect(() => a.bus.sendTo('not-a-node', 'big', 'x')).toThrow(/node id/);
  });

  it('says when messages stop arriving, and delivers again once its connection is back', async () => {
    const down = once(b.bus.events, 'down');
    const up = once(b.bus.events, 'up');
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE ${`%\\_${b.bus.nodeId}`}`.execute(a.db);
    await down;
    expect(b.bus.connected).toBe(false);
    await up;
    expect(b.bus.connected).toBe(true);
    const atB = nextMessage(b.bus, 'news');
    c.bus.publish('news', 'after the reconnection');
    expect((await atB).message).toBe('after the reconnection');
  });

  // A holder of the key (a node of the cluster) that is not a live node: one that left, or a
  // process with the key but no place in the registry. Its messages open and are still dropped;
  // those of a node that registered since the receiver's last look are heard, in order.
  it('delivers only from a node alive in the registry, asking it about a node started since its last look', async () => {
    const schema = (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(a.db)).rows[0]!.schema;
    const schemaKey = createHash('sha256').update(schema).digest('hex').slice(0, 16);
    const nodeId = randomBytes(6).toString('hex');
    const outsider = createBusSeal({ nodeId, keys: createRootKeys({ dataDir: app.config.dataDir }), scope: schemaKey });
    const target = `hearth_bus_${schemaKey}_${b.bus.nodeId}`;
    const send = (body: string) => sql`SELECT pg_notify(${target}, ${outsider.seal(target, body)!})`.execute(a.db);
    const heard: string[] = [];
    const off = b.bus.subscribe('registry', (message, from) => heard.push(`${from}:${message}`));
    const before = b.bus.dropped.unknownSender;
    await send('registry not registered');
    await send('registry still not');
    for (let i = 0; b.bus.dropped.unknownSender < before + 2 && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(b.bus.dropped.unknownSender).toBe(before + 2);
    // It registers; the registry's next look has not come yet.
    await sql`INSERT INTO cluster_nodes (node_id, started_at, heartbeat_at) VALUES (${nodeId}, clock_timestamp(), clock_timestamp())`.execute(a.db);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the 1 s for which a node found dead is not asked about again
    const both = new Promise<void>((resolve) => {
      const stop = b.bus.subscribe('registry', () => heard.length >= 2 && (stop(), resolve()));
    });
    await send('registry first');
    await send('registry second');
    await both;
    expect(heard).toEqual([`${nodeId}:first`, `${nodeId}:second`]);
    expect(b.bus.dropped.unknownSender).toBe(before + 2);
    off();
    await sql`DELETE FROM cluster_nodes WHERE node_id = ${nodeId}`.execute(a.db);
  });
});
