/**
 * Several compiled Hearth servers (`node dist/src/main.js`, as `npm start` runs it) on one fresh
 * PostgreSQL schema, behind a small round-robin reverse proxy written for the tests: what an
 * operator runs when one process is not enough (README, "Running several nodes").
 *
 * Every node gets the same DATABASE_URL (the schema through `search_path`), VAULT_KEY,
 * PUBLIC_BASE_URL (the proxy's address) and TRUST_PROXY, and a DATA_DIR of its own. The schema is
 * dropped when the cluster stops.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../harness.js';
import { compiledServerEnv, listeningAddress } from '../server-process.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

type Child = ChildProcessByStdio<null, Readable, Readable>;

/** Builds dist/ when a source changed since the last build (incremental, fast when nothing did). */
export async function buildServer(): Promise<void> {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: PROJECT_ROOT, timeout: 120_000 });
}

export interface ClusterNode {
  /** 0-based position, also its place in the proxy's rotation. */
  readonly index: number;
  /** The node's own address, bypassing the proxy. */
  readonly url: string;
  readonly child: Child;
  /** Resolves once the process exited, with its code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly running: boolean;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves once the node has written a line matching `pattern` (fails if it exits first). */
  waitForOutput(pattern: RegExp): Promise<void>;
  /** Sends a signal; the node stays where it is in the proxy until it stops answering. */
  signal(signal: NodeJS.Signals): void;
}

export interface Cluster {
  readonly nodes: ClusterNode[];
  readonly proxy: RoundRobinProxy;
  /** The address clients use (PUBLIC_BASE_URL). */
  readonly url: string;
  /** The DATABASE_URL every node uses. */
  readonly databaseUrl: string;
  /** Runs `text` on the cluster's schema (to see what the nodes stored) and answers the rows. */
  query<Row>(text: string, values?: unknown[]): Promise<Row[]>;
  /** The id node `index` reports in GET /api/v1/health (a new one after each restart). */
  nodeId(index: number): Promise<string>;
  /** Starts node `index` again (after it stopped), on the same schema and settings. */
  restart(index: number): Promise<ClusterNode>;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stop(index: number, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, and waits for the exit. */
  kill(index: number): Promise<void>;
  /** Stops every node and the proxy, drops the schema and the data directories. */
  close(): Promise<void>;
}

export interface ClusterOptions {
  nodes?: number;
  /** More settings for every node. */
  env?: Record<string, string>;
}

/** Three (or `nodes`) servers on a new schema of TEST_DATABASE_URL, behind the proxy. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  if (!TEST_DATABASE_URL) throw new Error('The cluster tests need TEST_DATABASE_URL (a PostgreSQL database)');
  const count = options.nodes ?? 3;
  const schema = `cluster_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.href;

  const proxy = await startProxy([]);
  const vaultKey = randomBytes(32).toString('base64');
  const dataDirs: string[] = [];
  const env = (index: number): NodeJS.ProcessEnv => {
    const dataDir = (dataDirs[index] ??= mkdtempSync(path.join(tmpdir(), `hearth-node${index}-`)));
    return compiledServerEnv(dataDir, {
      DATABASE_URL: databaseUrl,
      VAULT_KEY: vaultKey,
      PUBLIC_BASE_URL: proxy.url,
      TRUST_PROXY: '127.0.0.1',
      ...options.env,
    });
  };

  const nodes: ClusterNode[] = [];
  const startNode = async (index: number): Promise<ClusterNode> => {
    const node = await spawnNode(index, env(index));
    nodes[index] = node;
    proxy.setBackend(index, node.url);
    return node;
  };
  // One after the other: the first runs the migrations, the others find them done.
  try {
    for (let index = 0; index < count; index++) await startNode(index);
  } catch (error) {
    for (const node of nodes) node.signal('SIGKILL');
    await proxy.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    throw error;
  }

  const stopNode = async (index: number, signal: NodeJS.Signals, graceMs = 15_000) => {
    const node = nodes[index]!;
    if (node.running) {
      node.signal(signal);
      const force = setTimeout(() => node.signal('SIGKILL'), graceMs);
      await node.exited;
      clearTimeout(force);
    }
    return node.exited;
  };

  return {
    nodes,
    proxy,
    url: proxy.url,
    databaseUrl,
    restart: startNode,
    async query<Row>(text: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(text, values)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    async nodeId(index) {
      const health = (await (await fetch(`${nodes[index]!.url}/api/v1/health`)).json()) as { node: { id: string } };
      return health.node.id;
    },
    stop: (index, graceMs) => stopNode(index, 'SIGTERM', graceMs),
    kill: async (index) => {
      await stopNode(index, 'SIGKILL');
    },
    async close() {
      await Promise.all(nodes.map((_, index) => stopNode(index, 'SIGTERM', 5_000)));
      await proxy.close();
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function spawnNode(index: number, env: NodeJS.ProcessEnv): Promise<ClusterNode> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/src/main.js'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    }),
  );
  const { base, output: startOutput } = await listeningAddress(child);
  // Keeps reading what the node writes, so that its pipes never fill and a failure can be shown.
  let log = startOutput();
  child.stdout.removeAllListeners('data');
  child.stderr.removeAllListeners('data');
  const watchers = new Set<() => void>();
  const keep = (chunk: Buffer) => {
    log += chunk.toString();
    if (log.length > 1_000_000) log = log.slice(-500_000);
    for (const watcher of [...watchers]) watcher();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return {
    index,
    url: base,
    child,
    exited,
    get running() {
      return running;
    },
    output: () => log,
    waitForOutput(pattern) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(log)) {
            watchers.delete(check);
            resolve();
          } else if (!running) {
            watchers.delete(check);
            reject(new Error(`node ${index} exited without writing ${pattern}:\n${log.slice(-2000)}`));
          }
        };
        watchers.add(check);
        void exited.then(check);
        check();
      });
    },
    signal(signal) {
      if (running) child.kill(signal);
    },
  };
}

/**
 * A round-robin reverse proxy in node:http, the smallest stand-in for a load balancer: it
 * forwards each request to the next backend (a new connection each time), streams bodies both
 * ways, passes WebSocket upgrades by piping the raw sockets, adds X-Forwarded-For and
 * X-Forwarded-Proto, and skips a backend that refuses the connection (a stopped or draining
 * node), as nginx does with `proxy_next_upstream error`: nothing was sent, so any request may go
 * to the next one.
 */
export interface RoundRobinProxy {
  readonly url: string;
  /** Puts a backend in the rotation (or replaces the one at `index`). */
  setBackend(index: number, url: string): void;
  /** Which backend answered each request, by index, in order. */
  readonly served: number[];
  /**
   * While held, WebSocket upgrades find no backend (the connection is dropped), as when no node
   * of the pool is reachable for a while: a test sees the cluster's view of a device whose
   * daemon cannot reconnect yet.
   */
  holdUpgrades(hold: boolean): void;
  close(): Promise<void>;
}

export async function startProxy(initial: string[]): Promise<RoundRobinProxy> {
  const backends: Array<URL | undefined> = initial.map((url) => new URL(url));
  const served: number[] = [];
  let next = 0;
  let upgradesHeld = false;
  const sockets = new Set<Socket>();

  /** The backends in rotation order from the next one, each tried once. */
  const order = (): number[] => {
    const indexes: number[] = [];
    for (let i = 0; i < backends.length; i++) {
      const index = (next + i) % backends.length;
      if (backends[index]) indexes.push(index);
    }
    next = (next + 1) % Math.max(backends.length, 1);
    return indexes;
  };

  const forwardedHeaders = (req: http.IncomingMessage): http.OutgoingHttpHeaders => {
    const previous = req.headers['x-forwarded-for'];
    const client = req.socket.remoteAddress ?? '';
    return { ...req.headers, 'x-forwarded-for': previous ? `${previous}, ${client}` : client, 'x-forwarded-proto': 'http' };
  };

  const server = http.createServer((req, res) => {
    req.pause();
    const candidates = order();
    const attempt = () => {
      const index = candidates.shift();
      if (index === undefined) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'BAD_GATEWAY', message: 'No node answered' }));
        return;
      }
      const target = backends[index]!;
      const upstream = http.request({
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: forwardedHeaders(req),
        agent: false,
      });
      let connected = false;
      upstream.on('socket', (socket) => {
        socket.once('connect', () => {
          connected = true;
          // Only now is the body sent: until the connection is up, another node can take it whole.
          req.pipe(upstream);
          req.resume();
        });
      });
      upstream.on('response', (answer) => {
        served.push(index);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // Flushed as it comes: Server-Sent Events are not held back.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', () => {
        if (!connected) return attempt();
        // The node went away mid-request: the client sees the connection drop, as behind nginx.
        res.destroy();
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
    };
    attempt();
  });

  server.on('upgrade', (req, clientSocket: Socket, head: Buffer) => {
    if (upgradesHeld) return clientSocket.destroy();
    const candidates = order();
    const attempt = () => {
      const index = candidates.shift();
      if (index === undefined) return clientSocket.destroy();
      const target = backends[index]!;
      const upstream = net.connect(Number(target.port), target.hostname);
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        served.push(index);
        const headers = forwardedHeaders(req);
        let text = `${req.method} ${req.url} HTTP/1.1\r\n`;
        for (const [name, value] of Object.entries(headers)) {
          for (const one of Array.isArray(value) ? value : [value]) text += `${name}: ${one}\r\n`;
        }
        upstream.write(`${text}\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(clientSocket);
        clientSocket.pipe(upstream);
      });
      upstream.on('error', () => {
        if (!connected) return attempt();
        clientSocket.destroy();
      });
      upstream.on('close', () => clientSocket.destroy());
      clientSocket.on('error', () => upstream.destroy());
      clientSocket.on('close', () => upstream.destroy());
    };
    attempt();
  });

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    served,
    holdUpgrades(hold) {
      upgradesHeld = hold;
    },
    setBackend(index, url) {
      backends[index] = new URL(url);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Registers the owner through `base` and answers the master token. */
export async function registerOwner(base: string, email = 'owner@example.test'): Promise<string> {
  const response = await fetch(`${base}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a-long-password-1', name: 'Owner' }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: { token: string } }).data.token;
}
