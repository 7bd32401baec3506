/**
 * The cluster bus against a PostgreSQL login that is not Hearth's: a role with no rights on any
 * of Hearth's tables can still LISTEN and NOTIFY on every channel of the database. It learns the
 * channel names as anyone can (the nodes' ids are in pg_stat_activity), records what the nodes
 * say to each other while an owner uses a remote PC through node B (its link held by node A),
 * and then sends its own messages: made up in the bus's old clear form, sealed-looking ones it
 * cannot seal, and the nodes' own sealed messages played again or on another channel.
 *
 * What must hold: it reads nothing of the owner's from the traffic, nothing it sends runs on the
 * PC or is answered, every message it sends is dropped and counted, and the operation the owner
 * did ask for is in node A's audit log too.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Link } from '../daemon/link.js';
import type { Storage } from '../src/storage/storage.js';
import { ignoreFailure } from '../src/lib/ignore-failure.js';
import { connectDaemon, deviceWithStatus, waitFor } from './afp.helpers.js';
import { createTestApp, ENGINE, type Owner, type TestApp } from './harness.js';

const HEARTBEAT_MS = 1_000;

describe.skipIf(ENGINE !== 'postgres')('the cluster bus against a database login that is not Hearth', () => {
  let b: TestApp;
  let aStorage: Storage;
  let aApp: FastifyInstance;
  let aBase: string;
  let owner: Owner;
  let token: string;
  let link: Link;
  let deviceId: string;
  let dir: string;
  let root: string;
  const secretFile = () => path.join(root, 'diary.txt');
  const daemonLog: string[] = [];

  const role = `hearth_intruder_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let intruder: pg.Client;
  /** Every notification the intruder heard, with its channel. */
  const heard: Array<{ channel: string; payload: string }> = [];
  let schemaKey: string;
  const channel = (suffix: string) => `hearth_bus_${schemaKey}_${suffix}`;
  const notify = (to: string, payload: string) => intruder.query('SELECT pg_notify($1, $2)', [to, payload]);
  /** A node id of the intruder's own, on whose channel it waits for answers. */
  const fakeNode = randomBytes(6).toString('hex');
  /** The nodes' own broadcasts, recorded before the intruder sent anything. */
  let broadcasts: string[] = [];
  let broadcastsAt = 0;

  beforeAll(async () => {
    b = await createTestApp({ config: { clusterHeartbeatMs: HEARTBEAT_MS } });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await b.createOwner('Bus owner');
    token = await b.tokenWithScopes(owner, ['devices']);

    // Node A, in this process on the same schema, so that its counts can be read.
    ({ app: aApp, storage: aStorage } = await b.openNode());
    await aApp.listen({ port: 0, host: '127.0.0.1' });
    aBase = `http://127.0.0.1:${(aApp.server.address() as AddressInfo).port}`;

    // The intruder: a login role with no grant of any kind, connecting as PUBLIC allows.
    const url = process.env.TEST_DATABASE_URL!;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    const intruderUrl = new URL(url);
    intruderUrl.username = role;
    intruderUrl.password = '';
    intruder = new pg.Client({ connectionString: intruderUrl.toString() });
    await intruder.connect();
    // It finds the nodes' ids and the schema's key in the listening connections' names.
    const names = await intruder.query<{ application_name: string }>(`SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'hearth\\_%'`);
    const mine = names.rows.map((r) => /^hearth_([0-9a-f]{16})_([0-9a-f]{12})$/.exec(r.application_name)).find((m) => m?.[2] === b.storage.bus.nodeId);
    expect(mine, 'the node ids are visible to any login').toBeTruthy();
    schemaKey = mine![1]!;
    intruder.on('notification', (message) => heard.push({ channel: message.channel, payload: message.payload ?? '' }));
    for (const name of [channel('all'), channel(aStorage.bus.nodeId), channel(b.storage.bus.nodeId), channel(fakeNode), `hearth_changes_${schemaKey}`]) {
      await intruder.query(`LISTEN "${name}"`);
    }

    dir = mkdtempSync(path.join(tmpdir(), 'hearth-bus-intruder-'));
    root = path.join(dir, 'root');
    mkdirSync(root, { recursive: true });
    writeFileSync(secretFile(), 'the combination is 31-41-59\n');
    ({ link, deviceId } = await connectDaemon(aBase, { token, name: 'private-laptop', root, privilege: 'exec', log: (line) => daemonLog.push(line) }));
    await deviceWithStatus(b, token, 'private-laptop', 'online');
  }, 60_000);

  afterAll(async () => {
    await link?.stop();
    if (intruder) await ignoreFailure(intruder.end(), 'the server may have closed the connection already');
    await aApp?.close();
    await b?.close();
    if (admin) {
      await ignoreFailure(admin.query(`DROP ROLE IF EXISTS ${role}`), 'a role left behind has no rights on anything, and the next run makes its own under a new name');
      await admin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the intruder has no rights on any table, and reads nothing of the owner in the traffic', async () => {
    await expect(intruder.query(`SELECT * FROM ${(await sql<{ s: string }>`SELECT current_schema() AS s`.execute(b.storage.db)).rows[0]!.s}.afp_payloads`)).rejects.toThrow(/permission denied/);

    const read = await b.request('GET', `/api/v1/afp/${deviceId}/read`, { token, query: { path: secretFile() } });
    expect(read.status).toBe(200);
    expect(read.body.data.content).toContain('31-41-59');
    const ran = await b.request('POST', `/api/v1/afp/${deviceId}/exec`, { token, body: { cmd: 'echo the-word-is-swordfish' } });
    expect(ran.status).toBe(200);
    expect(ran.body.data.stdout).toBe('the-word-is-swordfish\n');

    // It heard the request go to A and the answers come back, and the device come online.
    await waitFor(() => heard.filter((h) => h.channel === channel(aStorage.bus.nodeId)).length >= 2, 'the relayed requests on the wire');
    await waitFor(() => heard.some((h) => h.channel === channel(b.storage.bus.nodeId)), 'the answers on the wire');
    const traffic = heard.map((h) => h.payload).join('\n');
    for (const secret of ['31-41-59', 'swordfish', 'diary.txt', 'private-laptop', owner.id, deviceId, token]) {
      expect(traffic, `"${secret}" travels in clear`).not.toContain(secret);
    }
    for (const { payload } of heard) expect(payload).toMatch(/^h1\.rk_[0-9a-f]{16}\.[A-Za-z0-9_-]+$/);
    broadcasts = heard.filter((h) => h.channel === channel('all')).map((h) => h.payload);
    broadcastsAt = Date.now();
  });

  it('a request in the old clear form runs nothing, is answered nothing, and is counted', async () => {
    const before = { ...aStorage.bus.dropped };
    const forgedTarget = path.join(root, 'forged.txt');
    const answersBefore = heard.filter((h) => h.channel === channel(fakeNode)).length;
    const request = { id: `${fakeNode}.1`, owner: owner.id, device: deviceId, op: 'exec', timeoutMs: 5_000, args: { cmd: `id > ${forgedTarget}`, timeout: 5_000 } };
    await notify(channel(aStorage.bus.nodeId), `${fakeNode} afp.request ${JSON.stringify(request)}`);
    // Claiming to be node B does not help either.
    await notify(channel(aStorage.bus.nodeId), `${b.storage.bus.nodeId} afp.request ${JSON.stringify({ ...request, id: `${b.storage.bus.nodeId}.999` })}`);
    const readRequest = { id: `${fakeNode}.2`, owner: owner.id, device: deviceId, op: 'read', timeoutMs: 5_000, args: { path: secretFile() } };
    await notify(channel('all'), `${fakeNode} afp.request ${JSON.stringify(readRequest)}`);
    await waitFor(() => aStorage.bus.dropped.unsealed >= before.unsealed + 3, 'node A to count the forgeries');
    // Something that did run would have been answered on the intruder's channel by now; give it
    // one more round trip through both nodes to be sure nothing is still on its way.
    const ping = await b.request('GET', `/api/v1/afp/${deviceId}/stat`, { token, query: { path: secretFile() } });
    expect(ping.status).toBe(200);
    expect(existsSync(forgedTarget)).toBe(false);
    expect(heard.filter((h) => h.channel === channel(fakeNode)).length).toBe(answersBefore);
    expect(daemonLog.join('\n')).not.toContain('forged.txt');
    // The broadcast reached B as well, and was counted there.
    expect(b.storage.bus.dropped.unsealed).toBeGreaterThanOrEqual(1);
  });

  it('a message it cannot seal, and one sealed for another channel, are dropped as forged', async () => {
    const before = { ...aStorage.bus.dropped };
    const captured = heard.find((h) => h.channel === channel(aStorage.bus.nodeId))!;
    const keyId = captured.payload.split('.')[1]!;
    await notify(channel(aStorage.bus.nodeId), `h1.rk_0123456789abcdef.${randomBytes(120).toString('base64url')}`);
    await notify(channel(aStorage.bus.nodeId), `h1.${keyId}.${randomBytes(120).toString('base64url')}`);
    // One of the bits flipped in a real message.
    const raw = Buffer.from(captured.payload.split('.')[2]!, 'base64url');
    raw[20] = raw[20]! ^ 1;
    await notify(channel(aStorage.bus.nodeId), `h1.${keyId}.${raw.toString('base64url')}`);
    // A real request to A, played on the channel every node hears: sealed for A's channel, it does not open there.
    await notify(channel('all'), captured.payload);
    await waitFor(() => aStorage.bus.dropped.forged >= before.forged + 3 && aStorage.bus.dropped.unknownKey >= before.unknownKey + 1, 'node A to count them');
    expect(aStorage.bus.dropped.forged - before.forged).toBe(3);
    expect(aStorage.bus.dropped.unknownKey - before.unknownKey).toBe(1);
  });

  it("a node's own sealed messages played again are dropped as replayed, and the PC runs the command once", async () => {
    const counter = path.join(root, 'count.txt');
    const start = heard.length;
    const ran = await b.request('POST', `/api/v1/afp/${deviceId}/exec`, { token, body: { cmd: `echo once >> ${counter}` } });
    expect(ran.status).toBe(200);
    const toA = await waitFor(() => heard.slice(start).find((h) => h.channel === channel(aStorage.bus.nodeId)), 'the request on the wire');
    const toB = await waitFor(() => heard.slice(start).find((h) => h.channel === channel(b.storage.bus.nodeId)), 'its answer on the wire');
    const before = { a: aStorage.bus.dropped.replayed, b: b.storage.bus.dropped.replayed };
    await notify(toA.channel, toA.payload);
    await notify(toA.channel, toA.payload);
    await notify(toB.channel, toB.payload);
    await waitFor(() => aStorage.bus.dropped.replayed >= before.a + 2 && b.storage.bus.dropped.replayed >= before.b + 1, 'the replays to be counted');
    const again = await b.request('GET', `/api/v1/afp/${deviceId}/stat`, { token, query: { path: counter } });
    expect(again.status).toBe(200);
    expect(readFileSync(counter, 'utf8')).toBe('once\n');
  });

  it('a node that starts later refuses what was recorded before it started', async () => {
    // The device coming online was told to every node.
    const recorded = broadcasts;
    expect(recorded.length).toBeGreaterThan(0);
    // What a node refuses is what was sealed before it started, beyond the slack of a message on its way (250 ms).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, broadcastsAt + 500 - Date.now())));
    const c = await b.openStorage();
    try {
      await c.ready;
      const heardByC: string[] = [];
      const off = c.bus.subscribe('events', (message) => heardByC.push(message));
      for (const payload of recorded) await notify(channel('all'), payload);
      await waitFor(() => c.bus.dropped.stale + c.bus.dropped.replayed >= recorded.length, `node C to drop the recordings ${JSON.stringify(c.bus.dropped)} ${recorded.length}`);
      expect(heardByC).toEqual([]);
      off();
    } finally {
      await c.close();
    }
  });

  it("node A, which ran the owner's operations for node B, has them in its audit log", async () => {
    const { rows } = await sql<{ action: string; token_id: string | null; details: string }>`
      SELECT action, token_id, details FROM audit_log WHERE owner_id = ${owner.id} AND action = 'afp.relay.serve' ORDER BY created_at`.execute(aStorage.db);
    const ops = rows.map((r) => JSON.parse(r.details) as { op: string; fromNode: string; path?: string; cmd?: string });
    expect(ops.map((o) => o.op)).toEqual(expect.arrayContaining(['read', 'exec', 'stat']));
    expect(ops.every((o) => o.fromNode === b.storage.bus.nodeId)).toBe(true);
    expect(ops.find((o) => o.op === 'exec')?.cmd).toBe('echo the-word-is-swordfish');
    // The exec carries the token that asked; the reads, made by the read routes, name the owner only.
    const exec = rows.find((r) => r.details.includes('swordfish'))!;
    expect(exec.token_id).not.toBeNull();
  });
});
