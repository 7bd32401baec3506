/**
 * The compiled server, as `npm start` runs it: scripts/build.mjs, then dist/src/main.js, which
 * carries the server and its libraries in one file and loads some of them on demand from chunks
 * beside it (see docs/decisions.md). It must serve what the source serves: the same contract,
 * and the parts that only load on first use (the YAML parser of skills, the outbound HTTP
 * client, the PostgreSQL driver) must load and work from the chunks.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_DATABASE_URL, type TestApp } from './harness.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');
const PUBLIC_BASE_URL = 'http://hearth.example.test';

let server: ChildProcessByStdio<null, Readable, Readable>;
let base: string;
let dataDir: string;
let pgSchema: string | undefined;
let source: TestApp;
let website: Server;
let websiteUrl: string;

beforeAll(async () => {
  // Incremental: only builds what changed since the last build.
  await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: PROJECT_ROOT, timeout: 120_000 });

  let databaseUrl: string | undefined;
  if (TEST_DATABASE_URL) {
    pgSchema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${pgSchema}`);
    await admin.end();
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${pgSchema}`);
    databaseUrl = url.href;
  }

  // A website on loopback for API discovery, which calls it through the outbound client.
  website = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Example</title>'));
  await new Promise<void>((resolve) => website.listen(0, '127.0.0.1', resolve));
  websiteUrl = `http://127.0.0.1:${(website.address() as AddressInfo).port}`;

  dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-compiled-'));
  server = spawn(process.execPath, ['--enable-source-maps', 'dist/src/main.js'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL,
      REGISTRATION: 'open',
      PASSWORD_HASH_COST: '10',
      ALLOW_PRIVATE_NETWORK: 'true',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  base = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (match) resolve(match[1]!);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.once('exit', (code) => reject(new Error(`the compiled server exited (${code}) before listening:\n${log}`)));
  });

  // The limits the compiled server runs with (its defaults), not the test harness's generous
  // ones: /openapi.json states each route's limits with this server's numbers (x-rate-limit).
  const defaults = loadConfig({});
  source = await createTestApp({
    config: { publicBaseUrl: PUBLIC_BASE_URL, authRateLimitPerMinute: defaults.authRateLimitPerMinute, handshakeRateLimitPerMinute: defaults.handshakeRateLimitPerMinute },
  });
}, 180_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await source?.close();
  await new Promise<void>((resolve) => (website ? website.close(() => resolve()) : resolve()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (pgSchema) {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await admin.end();
  }
});

async function call(method: string, url: string, options: { token?: string; body?: unknown } = {}) {
  const response = await fetch(base + url, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

describe('the compiled server', () => {
  it.each(['/openapi.json', '/api/v1/', '/api/v1/quick-start', '/llms.txt'])('serves %s exactly as the source does', async (url) => {
    const compiled = await call('GET', url);
    const fromSource = await source.request('GET', url);
    expect(compiled.status).toBe(200);
    expect(compiled.text).toBe(fromSource.text);
  });

  it('loads what it loads on demand: the YAML parser, the outbound client, the validators', async () => {
    const register = await call('POST', '/api/v1/auth/register', { body: { email: 'owner@example.test', password: 'a-long-password-1' } });
    expect(register.status).toBe(201);
    const token = register.body.data.token as string;

    // A skill's SKILL.md is sanitized by the YAML parser (a chunk of its own).
    const skill = await call('POST', '/api/v1/skills', {
      token,
      body: { name: 'compiled-skill', description: 'Made by the compiled server', scriptContent: '---\nlicense: MIT\n---\n# Steps\n' },
    });
    expect(skill.status, skill.text).toBe(201);
    expect(skill.body.data.scriptContent).toBe('---\nname: compiled-skill\ndescription: Made by the compiled server\nlicense: MIT\n---\n# Steps\n');

    // API discovery fetches the website through the outbound client (undici, a chunk of its own).
    const discovered = await call('POST', '/api/v1/vault/discover-api', { token, body: { websiteUrl } });
    expect(discovered.status, discovered.text).toBe(200);
    expect(discovered.body.data.title).toBe('Example');

    // Request validation, compiled on first use, refuses as the contract says.
    const refused = await call('GET', '/api/v1/memory?limit=0', { token });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('VALIDATION_ERROR');
  });
});
