/**
 * Builds a real Hearth app on a fresh database for a test file:
 * - embedded SQLite in a new temporary DATA_DIR, or
 * - with TEST_DATABASE_URL set, a new PostgreSQL schema of its own, dropped at close,
 * so test files never share state and the same tests run on both engines.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { createContainer, type Container } from '../src/container.js';
import { createRootKeys, type RootKeys } from '../src/modules/keyring/keyring.watch.js';
import { createStorage, type Storage } from '../src/storage/storage.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const ENGINE = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export interface RequestOptions {
  token?: string | undefined;
  body?: unknown;
  query?: Record<string, string | number | boolean | string[]>;
  headers?: Record<string, string>;
}

export interface Owner {
  id: string;
  email: string;
  password: string;
  /** The master token. */
  token: string;
  role: 'admin' | 'user';
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  storage: Storage;
  /** The app's container: every service. */
  container: Container;
  /** A request to the app: through `app.inject`, or over real HTTP with `transport: 'http'`. */
  request<T = any>(method: InjectOptions['method'], url: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /**
   * The same request over real HTTP, to the app listening on a port of the loopback interface
   * (from the first call on): what a client meets, the front door (src/http/front-door.ts)
   * included, which `inject` never reaches. The URL is sent as written.
   */
  http<T = any>(method: InjectOptions['method'], url: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** The address the app listens on (http://127.0.0.1:port), listening first if it does not yet. */
  listen(): Promise<string>;
  /** Registers a new account and answers its master token. */
  createOwner(name?: string): Promise<Owner>;
  /** Creates an API token for `owner` holding exactly `scopes`. */
  tokenWithScopes(owner: Owner, scopes: string[]): Promise<string>;
  /** Logs `owner` in and answers the session token. */
  login(owner: Owner): Promise<string>;
  /** A second connection to this app's data (same DATA_DIR or PostgreSQL schema), as another API node opens; the caller closes it. */
  openStorage(): Promise<Storage>;
  /**
   * Another API node on this app's data, started as main.ts starts one (its container's parts
   * running); closing its `app` closes its container and storage.
   */
  openNode(): Promise<Node>;
  /**
   * Closes the app and opens a new one on the same data (the same DATA_DIR or PostgreSQL
   * schema), as a server restart does; `app`, `storage` and `container` are then the new ones.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** An API node: its storage, its container and its app, ready and started. */
export interface Node {
  app: FastifyInstance;
  storage: Storage;
  container: Container;
}

/**
 * Builds the app on `storage` and starts it as main.ts does (ready, then the container's parts);
 * the one way a test makes a node, so that no node runs without its background work.
 */
export async function startNode(config: Config, storage: Storage, options: { logStream?: DestinationStream; rootKeys?: RootKeys } = {}): Promise<Node> {
  const container = createContainer(config, storage, { rootKeys: options.rootKeys });
  const app = await buildApp({ config, container, ...(options.logStream ? { logStream: options.logStream } : {}) });
  await app.ready();
  // As main.ts does before it listens: the schema is ready and the vault's keys are checked (the
  // key file made on a first start), so the messages between nodes have a key to be sealed with.
  await storage.ready;
  await container.keyring.ready();
  await container.start(app.log);
  return { app, storage, container };
}

export interface TestAppOptions {
  config?: Partial<Config>;
  logStream?: DestinationStream;
  /** How `request` reaches the app: `inject` (the default) or real HTTP (as `http` does). */
  transport?: 'inject' | 'http';
}

/** The body as JSON when the answer says it is JSON. */
function parsedBody(contentType: unknown, text: string): unknown {
  return String(contentType ?? '').includes('json') && text.length > 0 ? JSON.parse(text) : text;
}

/** The request's headers and body as both transports send them. */
function outgoing(opts: RequestOptions): { headers: Record<string, string>; payload: string | Buffer | undefined } {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let payload: string | Buffer | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) {
      payload = opts.body;
    } else {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  return { headers, payload };
}

/** `query` appended to `url` as inject appends it (a list as repeated parameters). */
function withQuery(url: string, query: RequestOptions['query']): string {
  if (!query) return url;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one));
  }
  const text = search.toString();
  return text === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${text}`;
}

let ownerCounter = 0;

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-test-'));
  const config: Config = {
    ...loadConfig({}),
    dataDir,
    databaseUrl: TEST_DATABASE_URL,
    logLevel: 'silent',
    // Test accounts are made by the hundred; the cheapest scrypt cost keeps the suite fast.
    passwordHashCost: 10,
    registration: 'open',
    authRateLimitPerMinute: 10_000,
    handshakeRateLimitPerMinute: 10_000,
    ...options.config,
  };
  if (options.logStream && options.config?.logLevel === undefined) config.logLevel = 'info';

  const pgSchema = TEST_DATABASE_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
  // Read per process, as main.ts does: each start (and each other node) reads the keys afresh.
  const readRootKeys = () => createRootKeys({ dataDir, vaultKey: config.vaultKey, previousKeys: config.vaultPreviousKeys });
  const openStorage = (rootKeys = readRootKeys()) =>
    createStorage({ dataDir, databaseUrl: TEST_DATABASE_URL, nodeHeartbeatMs: config.clusterHeartbeatMs, rootKeys, ...(pgSchema ? { pgSchema } : {}) });
  const open = async () => {
    // One root-keys object for storage and the keyring, as main.ts shares it.
    const rootKeys = readRootKeys();
    return startNode(config, await openStorage(rootKeys), { rootKeys, ...(options.logStream ? { logStream: options.logStream } : {}) });
  };

  const inject: TestApp['request'] = async (method, url, opts = {}) => {
    const { headers, payload } = outgoing(opts);
    const options: InjectOptions = { method, url, headers };
    if (opts.query) options.query = opts.query as InjectOptions['query'];
    if (payload !== undefined) options.payload = payload;
    const response = await testApp.app.inject(options);
    return { status: response.statusCode, body: parsedBody(response.headers['content-type'], response.body) as any, headers: response.headers, text: response.body };
  };

  /** Where the current app listens; forgotten when it closes (a restart listens anew). */
  let listening: Promise<string> | undefined;
  const listen = (): Promise<string> =>
    (listening ??= testApp.app.listen({ port: 0, host: '127.0.0.1' }).then(() => `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`));

  const overHttp: TestApp['http'] = async (method, url, opts = {}) => {
    const { hostname, port } = new URL(await listen());
    const { headers, payload } = outgoing(opts);
    if (payload !== undefined) headers['content-length'] ??= String(Buffer.byteLength(payload));
    return new Promise((resolve, reject) => {
      // The path as given: a URL object would normalize it (a '#' and what follows would be lost).
      const sent = http.request({ host: hostname, port, path: withQuery(url, opts.query), method: String(method), headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: parsedBody(response.headers['content-type'], text) as any, headers: response.headers as ApiResponse['headers'], text });
        });
      });
      sent.on('error', reject);
      sent.end(payload);
    });
  };
  const request: TestApp['request'] = options.transport === 'http' ? overHttp : inject;

  const testApp: TestApp = {
    ...(await open()),
    config,
    request,
    http: overHttp,
    listen,
    async createOwner(name) {
      ownerCounter += 1;
      const email = `owner${ownerCounter}-${randomBytes(4).toString('hex')}@example.test`;
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const res = await request('POST', '/api/v1/auth/register', { body: { email, password, name: name ?? `Owner ${ownerCounter}` } });
      if (res.status !== 201) throw new Error(`createOwner failed: ${res.status} ${res.text}`);
      return { id: res.body.data.user.id, email, password, token: res.body.data.token, role: res.body.data.user.role };
    },
    async tokenWithScopes(owner, scopes) {
      const res = await request('POST', '/api/v1/tokens', { token: owner.token, body: { name: `test ${scopes.join(' ')}`.slice(0, 100), scopes } });
      if (res.status !== 201) throw new Error(`tokenWithScopes failed: ${res.status} ${res.text}`);
      return res.body.data.token;
    },
    async login(owner) {
      const res = await request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
      return res.body.data.token;
    },
    openStorage: () => openStorage(),
    async openNode() {
      const rootKeys = readRootKeys();
      return startNode(config, await openStorage(rootKeys), { rootKeys });
    },
    async restart() {
      // Closing the app closes its container and storage.
      await testApp.app.close();
      listening = undefined;
      Object.assign(testApp, await open());
    },
    async close() {
      await testApp.app.close();
      if (pgSchema && TEST_DATABASE_URL) {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
        } finally {
          await client.end();
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}

/** Asserts the one error shape and answers the body for further checks. */
export function expectError(res: ApiResponse, status: number, code: string): { error: string; message: string; details?: unknown } {
  if (res.status !== status || res.body?.error !== code || typeof res.body?.message !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
  return res.body;
}
