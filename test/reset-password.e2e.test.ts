/**
 * `hearth reset-password`, through the command line as an operator runs it (bin/hearth.js in a
 * child process, with the server's settings in its environment) beside a running server on the
 * same data, on the engine under test: the printed link sets a password once through the HTTP
 * route, ends the sessions, and a second use, an expired link and a replaced one are refused;
 * `--password-stdin` sets the password itself and the running server stops accepting the ended
 * sessions; an unknown email and wrong usage exit non-zero with one line saying why.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, TEST_DATABASE_URL, type Owner, type TestApp } from './harness.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let t: TestApp;
let base: string;
/** The server's settings, as its operator's shell has them. */
let settings: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  base = await t.listen();
  settings = { DATA_DIR: t.config.dataDir, PUBLIC_BASE_URL: base, PASSWORD_HASH_COST: '10' };
  if (TEST_DATABASE_URL) {
    // The test app's own schema, named in the address as an operator could.
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(t.storage.db);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${rows[0]!.schema}`);
    settings.DATABASE_URL = url.href;
  }
}, 60_000);
afterAll(async () => t?.close());

/** The test's environment without the machine's own server settings, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|TEST_DATABASE_URL|PORT|HOST|DATA_DIR|LOG_LEVEL|REGISTRATION|PUBLIC_BASE_URL|VAULT_|PASSWORD_)/.test(name)),
  );
  return { ...clean, ...env };
}

/** `node bin/hearth.js reset-password …args`, `stdin` written to it (then closed). */
function resetPassword(args: string[], stdin = '', env: Record<string, string> = settings): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/hearth.js', 'reset-password', ...args], { cwd: PROJECT_ROOT, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const useLink = (link: string, newPassword: string) => post(`${new URL(link).origin}/api/v1/auth/password-reset`, { token: new URL(link).searchParams.get('token'), newPassword });
const login = (owner: Owner, password: string) => post(`${base}/api/v1/auth/login`, { email: owner.email, password });
const me = (token: string) => fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

/** Each test runs the command line, which compiles the server's code as it loads it: seconds each on a busy machine. */
const CLI_TIMEOUT_MS = 240_000;

/** The link a run printed: its stdout's one line. */
function linkOf(run: Run): string {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe(`hearth reset-password (${ENGINE})`, () => {
  it('prints a link that sets the password once through the API: sessions end, the old password fails, the new one signs in', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    // The running server knows the session (and keeps it in its cache).
    expect(await me(session)).toBe(200);

    const run = await resetPassword(['--email', owner.email.toUpperCase()]);
    const link = linkOf(run);
    expect(link).toMatch(new RegExp(`^${base}/reset-password\\?token=[A-Za-z0-9_-]{43}$`));
    expect(run.stderr).toContain(`A one-time link for ${owner.email}, valid until`);

    const used = await useLink(link, 'the new password 1');
    expect(used).toEqual({ status: 200, body: { data: { success: true, email: owner.email, sessionsEnded: 1 } } });
    expect(await me(session)).toBe(401);
    expect((await login(owner, owner.password)).status).toBe(401);
    expect((await login(owner, 'the new password 1')).status).toBe(200);

    const second = await useLink(link, 'the new password 2');
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'CONFLICT', details: { reason: 'used' } });
    expect((await login(owner, 'the new password 1')).status).toBe(200);
  }, CLI_TIMEOUT_MS);

  it('refuses an expired link and one a newer link replaced', async () => {
    const owner = await t.createOwner();
    const first = linkOf(await resetPassword(['--email', owner.email]));
    const second = linkOf(await resetPassword([`--email=${owner.email}`]));
    expect(second).not.toBe(first);
    const replaced = await useLink(first, 'the new password 1');
    expect(replaced.status).toBe(409);
    expect(replaced.body).toMatchObject({ error: 'CONFLICT', details: { reason: 'superseded' } });

    // Its 30 minutes are over.
    await t.storage.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('owner_id', '=', owner.id).execute();
    const expired = await useLink(second, 'the new password 1');
    expect(expired.status).toBe(409);
    expect(expired.body).toMatchObject({ error: 'CONFLICT', details: { reason: 'expired' } });
    expect((await login(owner, owner.password)).status).toBe(200);
  }, CLI_TIMEOUT_MS);

  it('--password-stdin sets the password itself; the running server stops accepting the ended sessions; audited as the command line', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    expect(await me(session)).toBe(200);
    const sessions = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'session' } });
    const sessionId = (sessions.body.data as Array<{ id: string; kind: string }>).find((token) => token.kind === 'session')!.id;
    const heard: Array<{ type: string; data: unknown; id: string }> = [];
    const stopHearing = t.container.events.subscribe(owner.id, (event) => heard.push(event));

    const run = await resetPassword(['--email', owner.email, '--password-stdin'], 'set from the shell\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`The password of ${owner.email} is set; 1 login session was ended.\n`);
    expect((await login(owner, owner.password)).status).toBe(401);
    expect((await login(owner, 'set from the shell')).status).toBe(200);
    // The server heard of the change made by another process (SQLite's data_version, PostgreSQL's write feed).
    const deadline = Date.now() + 5_000;
    while ((await me(session)) !== 401 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await me(session)).toBe(401);
    // The running server publishes the revocation the command line stored, as it publishes its
    // own (live streams, webhooks, the other nodes), once, and leaves nothing behind.
    while (!heard.some((event) => event.type === 'token.revoked') && Date.now() < deadline + 5_000) await new Promise((resolve) => setTimeout(resolve, 100));
    stopHearing();
    expect(heard.filter((event) => event.type === 'token.revoked')).toEqual([expect.objectContaining({ type: 'token.revoked', data: { tokenId: sessionId, kind: 'session' } })]);
    expect(await t.storage.db.selectFrom('event_outbox').select('id').execute()).toEqual([]);
    const revoked = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'token.revoke' } });
    expect(revoked.body.data).toEqual([expect.objectContaining({ targetId: sessionId, outcome: 'success', userAgent: 'hearth reset-password (command line)' })]);

    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'auth.password_reset' } });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      outcome: 'success',
      tokenId: null,
      ip: null,
      userAgent: 'hearth reset-password (command line)',
      details: { via: 'command line', sessionsEnded: 1 },
    });
  }, CLI_TIMEOUT_MS);

  it('--password-stdin refuses a short password and changes nothing (exit 2)', async () => {
    const owner = await t.createOwner();
    const run = await resetPassword(['--email', owner.email, '--password-stdin'], 'short\n');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('hearth: the new password has 5 characters; at least 8 are needed. Nothing was changed\n');
    expect((await login(owner, owner.password)).status).toBe(200);
  }, CLI_TIMEOUT_MS);

  it('an email no account signs in with: exit 3 and one line on stderr, nothing on stdout, no link made', async () => {
    const links = async () => (await t.storage.db.selectFrom('password_resets').select('id').execute()).length;
    const before = await links();
    const run = await resetPassword(['--email', 'nobody@example.test']);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^hearth: No account signs in with nobody@example\.test\. .*nothing was changed\n$/);
    expect(await links()).toBe(before);
  }, CLI_TIMEOUT_MS);

  it.runIf(ENGINE === 'sqlite')('a DATA_DIR with no database: exit 1 saying so, and no database made there', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'hearth-empty-'));
    try {
      const run = await resetPassword(['--email', 'owner@example.test'], '', { ...settings, DATA_DIR: empty });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`hearth: DATA_DIR ${empty} holds no Hearth database (hearth.db): run this with the server's DATA_DIR (or its DATABASE_URL); nothing was changed\n`);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, CLI_TIMEOUT_MS);

  it('wrong usage exits 2 with the usage; --help exits 0 with it', async () => {
    const missing = await resetPassword([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^hearth: --email is required/);
    expect(missing.stderr).toContain('Usage: hearth reset-password --email <address> [--password-stdin]');
    const unknown = await resetPassword(['--email', 'a@example.test', '--force']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^hearth: unknown option "--force"/);
    const help = await resetPassword(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
  }, CLI_TIMEOUT_MS);
});

describe('the reset route answers the link the command printed, and nothing else', () => {
  it('answers 404 NOT_FOUND for a link whose secret was cut short', async () => {
    const owner = await t.createOwner();
    const link = linkOf(await resetPassword(['--email', owner.email]));
    const res = await useLink(link.slice(0, -5), 'the new password 1');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'NOT_FOUND', details: { reason: 'unknown' } });
    expect((await useLink(link, 'the new password 1')).status).toBe(200);
  }, CLI_TIMEOUT_MS);
});
