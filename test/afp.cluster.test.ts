/**
 * Remote PCs across two API nodes on one PostgreSQL schema: node A is a real server process,
 * node B this test's app. A daemon reaches the nodes through a small load balancer (a TCP proxy
 * that sends each connection to the first node that accepts it, A first) and connects to A;
 * every operation through B is served by it, answers keep their statuses, a request runs once
 * on the PC, the device's limit of running requests holds whichever node the requests reach,
 * and once A is killed (SIGKILL: no clean-up of any kind) B shows the device offline within
 * A's heartbeat bound, a request in flight through A's link fails at once with 503, and the
 * daemon reconnects through the load balancer to B, which serves it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLink, type Link } from '../daemon/link.js';
import { createPolicy } from '../daemon/policy.js';
import { deviceWithStatus, listen, newDeviceKey, waitFor } from './afp.helpers.js';
import { createTestApp, ENGINE, expectError, type Owner, type TestApp } from './harness.js';
import { listeningAddress, spawnServer, type ServerChild } from './server-process.js';

/** Each node's heartbeat interval: a node is dead after three. */
const HEARTBEAT_MS = 1_000;

/** A load balancer in front of the nodes: each connection goes to the first node that accepts it. */
function startBalancer(targets: () => number[]) {
  let accepting = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (!accepting) return client.destroy();
    const tryTarget = (ports: number[]) => {
      const [port, ...rest] = ports;
      if (port === undefined) return client.destroy();
      const upstream = net.connect(port, '127.0.0.1');
      let connected = false;
      upstream.on('error', () => (connected ? client.destroy() : tryTarget(rest)));
      upstream.once('connect', () => {
        connected = true;
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      });
    };
    tryTarget(targets());
  });
  return {
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    /** While paused, connections are refused: a node of the pool is not reachable yet. */
    pause: (value: boolean) => (accepting = !value),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(ENGINE !== 'postgres')('remote PCs across two nodes', () => {

  let b: TestApp;
  let bBase: string;
  let aChild: ServerChild;
  let aBase: string;
  let aOutput: () => string;
  let balancer: ReturnType<typeof startBalancer>;
  let lbBase: string;
  let owner: Owner;
  let token: string;
  let dir: string;
  let root: string;
  let link: Link;
  let deviceId: string;
  /** What the daemon logged: its own record of every changing operation it ran. */
  const daemonLog: string[] = [];

  const onB = (method: 'GET' | 'POST' | 'DELETE', op: string, options: { query?: Record<string, string>; body?: unknown; device?: string } = {}) =>
    b.request(method, `/api/v1/afp/${options.device ?? deviceId}/${op}`, { token, ...options });
  const onA = async (method: 'GET' | 'POST', op: string, body: unknown) => {
    const res = await fetch(`${aBase}/api/v1/afp/${deviceId}/${op}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error?: string; message?: string } };
  };
  const linkNode = async () =>
    (await sql<{ node_id: string }>`SELECT node_id FROM afp_links WHERE device_id = ${deviceId}`.execute(b.storage.db)).rows[0]?.node_id;

  beforeAll(async () => {
    b = await createTestApp({ config: { clusterHeartbeatMs: HEARTBEAT_MS } });
    bBase = await listen(b);
    owner = await b.createOwner('Cluster owner');
    token = await b.tokenWithScopes(owner, ['devices']);

    // Node A: the real server on the same schema (and the same vault key file, as every node needs).
    const schema = (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(b.storage.db)).rows[0]!.schema;
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(EXTRACT_|DATABASE_URL|TEST_DATABASE_URL|PORT|HOST|DATA_DIR|LOG_LEVEL|REGISTRATION|CLUSTER_|AFP_)/.test(name)),
    );
    aChild = await spawnServer({
      ...clean,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: b.config.dataDir,
      DATABASE_URL: url.toString(),
      LOG_LEVEL: 'info',
      CLUSTER_HEARTBEAT_MS: String(HEARTBEAT_MS),
    });
    ({ base: aBase, output: aOutput } = await listeningAddress(aChild));
    const aPort = Number(new URL(aBase).port);
    const bPort = Number(new URL(bBase).port);
    balancer = startBalancer(() => [aPort, bPort]);
    lbBase = await balancer.listen();

    dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-cluster-'));
    root = path.join(dir, 'root');
    mkdirSync(path.join(root, 'docs'), { recursive: true });
    link = startLink({
      server: lbBase,
      token,
      deviceKey: newDeviceKey(),
      name: 'cluster-pc',
      platform: `${process.platform}-${process.arch}`,
      version: 'test',
      policy: await createPolicy(root, 'exec'),
      log: (line) => daemonLog.push(line),
      minBackoffMs: 50,
      maxBackoffMs: 300,
    });
    deviceId = await link.registered();
    // B sees it online once A has recorded the link.
    await deviceWithStatus(b, token, 'cluster-pc', 'online');
  }, 60_000);

  afterAll(async () => {
    await link?.stop();
    await balancer?.close();
    if (aChild && aChild.exitCode === null && aChild.signalCode === null) aChild.kill('SIGKILL');
    await b?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the link is held by node A, and node B shows the device online', async () => {
    const node = await linkNode();
    expect(node).toBeDefined();
    expect(node).not.toBe(b.storage.bus.nodeId);
    const device = await b.request('GET', `/api/v1/afp/devices/${deviceId}`, { token });
    expect(device.body.data.status).toBe('online');
  });

  it('all seven operations through node B are served by the daemon on node A', async () => {
    const file = path.join(root, 'docs', 'hello.txt');
    expect((await onB('POST', 'write', { body: { path: file, content: 'hello\n' } })).body).toEqual({ data: { path: file, size: 6, created: true } });
    expect((await onB('GET', 'read', { query: { path: file } })).body).toEqual({ data: { path: file, content: 'hello\n', encoding: 'utf8', size: 6 } });
    expect((await onB('GET', 'ls', { query: { path: path.join(root, 'docs') } })).body.data.entries).toEqual([
      { name: 'hello.txt', type: 'file', size: 6, modifiedAt: expect.any(String) },
    ]);
    expect((await onB('GET', 'stat', { query: { path: file } })).body.data).toMatchObject({ path: file, type: 'file', size: 6 });
    const folder = path.join(root, 'made', 'deep');
    expect((await onB('POST', 'mkdir', { body: { path: folder } })).body).toEqual({ data: { path: folder, created: true } });
    expect((await onB('DELETE', 'rm', { body: { path: path.join(root, 'made'), recursive: true } })).body.data).toMatchObject({ deleted: true });
    const ran = await onB('POST', 'exec', { body: { cmd: 'cat docs/hello.txt; echo err >&2' } });
    expect(ran.status).toBe(200);
    expect(ran.body.data).toMatchObject({ stdout: 'hello\n', stderr: 'err\n', exitCode: 0 });
    // The daemon's refusals keep their statuses across nodes.
    expectError(await onB('GET', 'stat', { query: { path: path.join(root, 'nope.txt') } }), 404, 'NOT_FOUND');
  });

  it('a file near the size cap travels both ways through node B', async () => {
    const file = path.join(root, 'big.txt');
    // 10 MiB less 1 KiB of text: far beyond what one notification carries, in both directions.
    const content = 'abcdefghijklmnopqrstuvwxyz0123456789\n'.repeat(Math.floor((10 * 1024 * 1024 - 1024) / 37));
    const written = await onB('POST', 'write', { body: { path: file, content } });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.data.size).toBe(content.length);
    const read = await onB('GET', 'read', { query: { path: file } });
    expect(read.status, read.status === 200 ? '' : JSON.stringify(read.body)).toBe(200);
    expect(read.body.data.size).toBe(content.length);
    expect(read.body.data.content === content).toBe(true);
    // Nothing is left behind in the payload table.
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM afp_payloads`.execute(b.storage.db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it("exec through node B keeps its timeout: 504 with the output so far", async () => {
    const started = Date.now();
    const slow = expectError(await onB('POST', 'exec', { body: { cmd: 'echo started; sleep 5', timeout: 500 } }), 504, 'DEVICE_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(JSON.stringify(slow)).toContain('started');
  });

  it('a request through node B runs exactly once on the PC', async () => {
    const counter = path.join(root, 'count.txt');
    const ran = await onB('POST', 'exec', { body: { cmd: `echo once >> ${counter}` } });
    expect(ran.status).toBe(200);
    const read = await onB('GET', 'read', { query: { path: counter } });
    expect(read.body.data.content).toBe('once\n');
    expect(daemonLog.filter((line) => line.includes(`echo once >> ${counter}`))).toHaveLength(1);
  });

  it("the device's limit of running requests holds across nodes: counted where its link is", async () => {
    const before = daemonLog.length;
    // Each command runs until the test lets it end, so the 16 are all running while it checks.
    const release = path.join(root, 'release');
    const wait = `while [ ! -e ${release} ]; do sleep 0.05; done`;
    const running = Array.from({ length: 16 }, () => onB('POST', 'exec', { body: { cmd: wait, timeout: 20_000 } }));
    // All 16 reached the daemon (its own record), so node A counts them.
    await waitFor(() => daemonLog.slice(before).filter((line) => line.startsWith('exec "while')).length === 16, '16 running commands');
    const viaA = await onA('POST', 'exec', { cmd: 'true' });
    expect(viaA.status).toBe(429);
    expect(viaA.body.message).toContain('already running 16 requests');
    const viaB = expectError(await onB('POST', 'exec', { body: { cmd: 'true' } }), 429, 'RATE_LIMITED');
    expect(viaB.message).toContain('already running 16 requests');
    writeFileSync(release, '');
    for (const result of await Promise.all(running)) expect(result.status, JSON.stringify(result.body)).toBe(200);
  });

  it('a known device without a link is 503 through either node', async () => {
    const other = startLink({
      server: lbBase,
      token,
      deviceKey: newDeviceKey(),
      name: 'gone-pc',
      platform: `${process.platform}-${process.arch}`,
      version: 'test',
      policy: await createPolicy(root, 'read'),
      minBackoffMs: 50,
      maxBackoffMs: 300,
    });
    const otherId = await other.registered();
    await deviceWithStatus(b, token, 'gone-pc', 'online');
    await other.stop();
    await deviceWithStatus(b, token, 'gone-pc', 'offline');
    expectError(await onB('GET', 'stat', { device: otherId, query: { path: root } }), 503, 'DEVICE_OFFLINE');
  });

  it("a copy of a daemon connecting to node B replaces the link node A holds: A closes it with 4409", async () => {
    const deviceKey = newDeviceKey();
    const options = {
      token,
      deviceKey,
      name: 'copied-pc',
      platform: `${process.platform}-${process.arch}`,
      version: 'test',
      minBackoffMs: 50,
      maxBackoffMs: 300,
    };
    const first = startLink({ ...options, server: lbBase, policy: await createPolicy(root, 'read') });
    const firstId = await first.registered();
    await waitFor(async () => {
      const rows = await sql<{ node_id: string }>`SELECT node_id FROM afp_links WHERE device_id = ${firstId}`.execute(b.storage.db);
      return rows.rows[0] && rows.rows[0].node_id !== b.storage.bus.nodeId;
    }, 'the first link recorded on A');
    const copy = startLink({ ...options, server: bBase, policy: await createPolicy(root, 'read') });
    expect(await copy.registered()).toBe(firstId);
    expect(await first.done).toEqual({ final: true, reason: 'another daemon connected as "copied-pc" with this device\'s key' });
    expect((await onB('GET', 'stat', { device: firstId, query: { path: root } })).status).toBe(200);
    await copy.stop();
  });

  it('node A killed: the device shows offline on B within the heartbeat bound, a request in flight fails at once, and the daemon comes back through B', async () => {
    const inFlight = onB('POST', 'exec', { body: { cmd: 'sleep 30', timeout: 40_000 } });
    await waitFor(() => daemonLog.some((line) => line.startsWith('exec "sleep 30"')), 'the command to run');
    // What B tells the owner's live streams about the device.
    const told: string[] = [];
    const stopHearing = b.container.events.subscribe(owner.id, (event) => {
      if ((event.type === 'device.offline' || event.type === 'device.online') && event.data.deviceId === deviceId) told.push(event.type);
    });
    // No node to reconnect to for now, so that B's view of the device can be seen.
    balancer.pause(true);
    const killed = Date.now();
    aChild.kill('SIGKILL');

    const failed = expectError(await inFlight, 503, 'DEVICE_OFFLINE');
    expect(failed.message).toContain('stopped');
    const failedAfter = Date.now() - killed;
    await deviceWithStatus(b, token, 'cluster-pc', 'offline');
    const offlineAfter = Date.now() - killed;
    // Dead after three heartbeats; noticed at B's next look.
    expect(offlineAfter).toBeLessThan(HEARTBEAT_MS * 5 + 1_000);
    expect(failedAfter).toBeLessThan(HEARTBEAT_MS * 5 + 1_000);
    expectError(await onB('GET', 'stat', { query: { path: root } }), 503, 'DEVICE_OFFLINE');
    // B, the node left, claimed A's link and told the owner the device went offline.
    await waitFor(() => told.includes('device.offline'), 'device.offline from B');
    expect(await linkNode()).toBeUndefined();

    balancer.pause(false);
    await deviceWithStatus(b, token, 'cluster-pc', 'online');
    // B records its link just after it registered the daemon.
    await waitFor(async () => (await linkNode()) === b.storage.bus.nodeId, 'the link recorded as B\'s');
    expect((await onB('GET', 'read', { query: { path: path.join(root, 'docs', 'hello.txt') } })).body.data.content).toBe('hello\n');
    stopHearing();
    expect(told).toEqual(['device.offline', 'device.online']);
    expect(aOutput()).not.toContain('"level":50');
  }, 30_000);
});
