/**
 * Export and import through the API, on the engine under test: a seeded account exported,
 * imported into a fresh account on a fresh server and compared field by field; the archive
 * scanned for secrets; the passphrase; merges; hostile archives; one export at a time; access.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflatedSpaces, handZip } from '../../../test/hostile-files.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { multipart } from '../../../test/multipart.js';
import type { Executor } from '../../storage/columns.js';
import { carriedDeclarations } from '../../container.js';
import { carriedColumns, carriedTables, rowToArchive } from './portability.format.js';

/** The tables an archive carries, as the running server is given them. */
const CARRIED_TABLES = carriedTables(carriedDeclarations);


async function ok<T = any>(res: { status: number; text: string; body: T }, status: number): Promise<T> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

const VAULT_SECRET = `sk-live-${randomBytes(12).toString('hex')}`;
const PASSPHRASE = 'correct horse battery staple';

/** A full account: memory with provenance and a supersede chain, knowledge uploaded as a file, personas and skills attached, identity, preferences, a vault secret, tokens, a webhook. */
async function seed(t: TestApp, owner: Owner) {
  const as = (method: 'POST' | 'PUT' | 'PATCH', url: string, body: unknown, token = owner.token) => t.request(method, url, { token, body });
  const agent = await t.tokenWithScopes(owner, ['memory']);
  const first = (await ok(await as('POST', '/api/v1/memory', { content: 'Lives in Lyon', kind: 'fact', tags: ['home'], source: { kind: 'conversation', ref: 'chat-42', quote: 'I live in Lyon' } }, agent), 201)).data;
  await ok(await as('POST', '/api/v1/memory', { content: 'Lives in Paris since 2016', kind: 'fact', tags: ['home'], supersedes: [first.id] }, agent), 201);
  await ok(await as('POST', '/api/v1/memory', { content: 'Prefers tea — «naturellement» 🍵', pinned: true }), 201);
  const form = multipart([{ name: 'file', filename: 'recipes.md', contentType: 'application/zip', data: '# Recipes\n\n## Bread\n\nFlour, water, salt.\n' }]);
  const doc = (await ok(await t.request('POST', '/api/v1/brain/knowledge-base/upload', { token: owner.token, body: form.body, headers: form.headers }), 201)).data;
  const persona = (await ok(await as('POST', '/api/v1/personas', { name: 'Chef', description: 'Cooks', soul_content: 'You cook.' }), 201)).data;
  const skill = (await ok(await as('POST', '/api/v1/skills', { name: 'bake-bread', description: 'Bakes bread', category: 'kitchen', scriptContent: 'Knead, rest, bake.' }), 201)).data;
  await ok(await as('POST', `/api/v1/personas/${persona.id}/documents`, { documentId: doc.id }), 201);
  await ok(await as('POST', `/api/v1/personas/${persona.id}/skills`, { skillId: skill.id }), 201);
  await ok(await as('POST', `/api/v1/skills/${skill.id}/documents`, { documentId: doc.id }), 201);
  await ok(await as('PUT', '/api/v1/identity', { name: 'Ada', professional: { role: 'engineer' } }), 200);
  await ok(await as('PUT', '/api/v1/preferences', { theme: 'dark', language: 'fr' }), 200);
  const vault = (await ok(await as('POST', '/api/v1/vault/tokens', { name: 'stripe', service: 'stripe', token: VAULT_SECRET, websiteUrl: 'https://stripe.com' }), 201)).data;
  const webhook = (await ok(await as('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/hearth', events: ['token.created'] }), 201)).data;
  return { agent, vault, webhook, doc, persona, skill };
}

/** The owner's rows of every table an import writes, as the archive holds them, sorted by key. */
async function snapshot(db: Executor, ownerId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of CARRIED_TABLES) {
    if (table.import !== 'rows' || table.name === 'audit_log') continue;
    const columns = carriedColumns(table).map(([name]) => name);
    const rows = (await db.selectFrom(table.name).select(columns).where('owner_id', '=', ownerId).execute()) as Record<string, unknown>[];
    out[table.name] = rows.map((row) => rowToArchive(table, row)).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

async function exportArchive(t: TestApp, owner: Owner, body: Record<string, unknown> = {}): Promise<Buffer> {
  const job = (await ok(await t.request('POST', '/api/v1/export', { token: owner.token, body }), 201)).data;
  let state = job;
  for (let i = 0; i < 200 && state.status === 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    state = (await ok(await t.request('GET', `/api/v1/export/${job.id}`, { token: owner.token }), 200)).data;
  }
  expect(state.status, state.error ?? '').toBe('done');
  expect(state.progress.done).toBe(state.progress.total);
  expect(state.downloadUrl).toBe(`/api/v1/export/${job.id}/download`);
  // The archive's bytes as they came (the harness reads answers as text).
  const res = await t.app.inject({ method: 'GET', url: state.downloadUrl, headers: { authorization: `Bearer ${owner.token}` } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  expect(createHash('sha256').update(res.rawPayload).digest('hex')).toBe(state.sha256);
  return res.rawPayload;
}

async function importArchive(t: TestApp, owner: Owner, archive: Buffer, fields: Record<string, string> = {}) {
  const form = multipart([{ name: 'file', filename: 'archive.zip', contentType: 'application/zip', data: archive }, ...Object.entries(fields).map(([name, data]) => ({ name, data }))]);
  return t.request('POST', '/api/v1/import', { token: owner.token, body: form.body, headers: form.headers });
}

let source: TestApp;
let target: TestApp;
let alice: Owner;
let seeded: Awaited<ReturnType<typeof seed>>;
let plainArchive: Buffer;
let secretArchive: Buffer;

beforeAll(async () => {
  source = await createTestApp();
  target = await createTestApp();
  alice = await source.createOwner('Alice');
  seeded = await seed(source, alice);
  plainArchive = await exportArchive(source, alice);
  secretArchive = await exportArchive(source, alice, { includeSecrets: true, passphrase: PASSPHRASE });
}, 60_000);

afterAll(async () => {
  await source?.close();
  await target?.close();
});

/** The columns a table really has in the migrated database under test. */
async function databaseColumns(t: TestApp, table: string): Promise<string[]> {
  if (t.storage.dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(t.storage.db);
    return rows.rows.map((row) => row.name);
  }
  const rows = await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`.execute(t.storage.db);
  return rows.rows.map((row) => row.name);
}

describe('the archive', () => {
  it('carries every column of every table it carries (a new column fails here, not silently lost)', async () => {
    for (const table of CARRIED_TABLES) {
      // The full-text index's own columns (SQLite's row key, PostgreSQL's search vector) are derived.
      const actual = (await databaseColumns(source, table.name)).filter((name) => name !== 'rid' && name !== 'search_vector');
      const carried = [...carriedColumns(table).map(([name]) => name), 'owner_id', ...table.omitted];
      expect({ table: table.name, columns: [...new Set(carried)].sort() }).toEqual({ table: table.name, columns: actual.sort() });
    }
  });

  it('holds a manifest with counts and checksums, JSON Lines of every resource and readable Markdown', () => {
    const files = unzipSync(plainArchive);
    const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8'));
    expect(manifest).toMatchObject({ format: 'hearth-archive', formatVersion: 1, owner: { id: alice.id, email: alice.email }, secrets: null });
    expect(manifest.counts).toMatchObject({ memory_entries: 3, kb_documents: 1, personas: 1, skills: 1, persona_documents: 1, persona_skills: 1, skill_documents: 1, vault_tokens: 1, webhook_endpoints: 1, identity: 1, preferences: 1 });
    expect(manifest.counts.tokens).toBeGreaterThanOrEqual(2);
    expect(manifest.counts.audit_log).toBeGreaterThan(0);
    for (const file of manifest.files) expect(Object.keys(files)).toContain(file.path);
    expect(Object.keys(files).filter((name) => name !== 'manifest.json').sort()).toEqual(manifest.files.map((f: { path: string }) => f.path).sort());
    const memoryPages = Object.keys(files).filter((name) => name.startsWith('memory/'));
    expect(memoryPages).toHaveLength(3);
    const chained = memoryPages.map((name) => Buffer.from(files[name]!).toString('utf8')).find((text) => text.includes('Paris'))!;
    expect(chained).toMatch(/^---\nid: "mem_/);
    expect(chained).toContain('channel: "api"');
    expect(chained).toMatch(/supersedes: \["mem_/);
    expect(chained).toMatch(/author: \{"token":\{"id":"tok_/);
    expect(chained).toContain('source: null');
    expect(Object.keys(files).some((name) => /^skills\/\d+-bake-bread\/SKILL\.md$/.test(name))).toBe(true);
    expect(Buffer.from(files['identity.md']!).toString('utf8')).toContain('name: "Ada"');
    const lines = Buffer.from(files['data/memory_entries.jsonl']!).toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.find((line) => line.content === 'Lives in Lyon').superseded_by).toEqual(expect.stringMatching(/^mem_/));
  });

  it('never holds a secret in clear: not the vault secret, the webhook secret, the master token or any token hash', async () => {
    const secrets = [VAULT_SECRET, seeded.webhook.secret, alice.token, seeded.agent];
    const hashes = (await source.storage.db.selectFrom('tokens').select('secret_hash').where('owner_id', '=', alice.id).execute()).map((r: { secret_hash: string }) => r.secret_hash);
    for (const archive of [plainArchive, secretArchive]) {
      const files = unzipSync(archive);
      const all = Object.values(files).map((data) => Buffer.from(data).toString('utf8')).join('\n');
      for (const secret of [...secrets, ...hashes]) expect(all.includes(secret), 'a secret in the archive').toBe(false);
      expect(all).not.toContain('secret_sealed');
      expect(all).not.toContain('key_hash');
    }
    const files = unzipSync(secretArchive);
    const envelope = JSON.parse(Buffer.from(files['secrets.enc.json']!).toString('utf8'));
    expect(envelope.kdf).toMatchObject({ name: 'scrypt', N: 32768, r: 8, p: 1, keyLength: 32 });
    expect(envelope.cipher).toMatchObject({ name: 'aes-256-gcm' });
  });
});

describe('import into a fresh account on a fresh server', () => {
  it('brings every record back exactly, and the secrets with the passphrase', async () => {
    const bob = await target.createOwner('Bob');
    const dry = (await ok(await importArchive(target, bob, secretArchive, { passphrase: PASSPHRASE, dryRun: 'true' }), 200)).data;
    expect(dry.dryRun).toBe(true);
    expect(dry.tables.memory_entries).toMatchObject({ added: 3, conflicts: 0 });
    expect((await target.request('GET', '/api/v1/memory', { token: bob.token })).body.data).toHaveLength(0);

    const report = (await ok(await importArchive(target, bob, secretArchive, { passphrase: PASSPHRASE }), 200)).data;
    expect(report.dryRun).toBe(false);
    expect(report.issues).toEqual([]);
    const before = await snapshot(source.storage.db, alice.id);
    const after = await snapshot(target.storage.db, bob.id);
    expect(after).toEqual(before);

    // Every audit entry of the archive is in the new account's log, as it was.
    const archived = Buffer.from(unzipSync(secretArchive)['data/audit_log.jsonl']!).toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    const audit = CARRIED_TABLES.find((table) => table.name === 'audit_log')!;
    const imported = (await target.storage.db.selectFrom('audit_log').selectAll().where('owner_id', '=', bob.id).execute()).map((row: Record<string, unknown>) => rowToArchive(audit, row));
    for (const entry of archived) expect(imported).toContainEqual(entry);

    // The secrets work on the new server.
    const revealed = await target.request('GET', `/api/v1/vault/tokens/${seeded.vault.id}/reveal`, { token: bob.token });
    expect(revealed.status).toBe(200);
    expect(revealed.body.data.token).toBe(VAULT_SECRET);
    // The memory chain reads as it did.
    const history = await ok(await target.request('GET', `/api/v1/memory/${(before.memory_entries as Array<{ id: string; content: string }>).find((e) => e.content === 'Lives in Lyon')!.id}/history`, { token: bob.token }), 200);
    expect(history.data.map((e: { content: string }) => e.content)).toEqual(['Lives in Lyon', 'Lives in Paris since 2016']);

    // Importing the same archive again changes nothing: every record is recognised.
    const again = (await ok(await importArchive(target, bob, secretArchive, { passphrase: PASSPHRASE }), 200)).data;
    for (const [name, counts] of Object.entries(again.tables) as Array<[string, { added: number; conflicts: number }]>) {
      if (name === 'audit_log') continue;
      expect({ name, ...counts }).toMatchObject({ name, added: 0, conflicts: 0 });
    }
    expect(await snapshot(target.storage.db, bob.id)).toEqual(after);
  });

  it('without the passphrase leaves the vault token out and gives the webhook a new secret, saying so', async () => {
    const carol = await target.createOwner('Carol');
    const report = (await ok(await importArchive(target, carol, plainArchive), 200)).data;
    expect(report.tables.vault_tokens).toMatchObject({ added: 0, skipped: 1 });
    expect(report.tables.webhook_endpoints).toMatchObject({ added: 1 });
    expect(report.notes.join(' ')).toMatch(/new signing secret/);
    expect(report.tables.tokens.skipped).toBeGreaterThan(0);
  });

  it('a wrong passphrase is a 400 and changes nothing', async () => {
    const dan = await target.createOwner('Dan');
    const body = expectError(await importArchive(target, dan, secretArchive, { passphrase: 'not the passphrase at all' }), 400, 'VALIDATION_ERROR');
    expect(body.message).toMatch(/passphrase/);
    expect((await target.request('GET', '/api/v1/memory', { token: dan.token })).body.data).toHaveLength(0);
  });
});

describe('the Markdown pages of records whose ids are no plain file names', () => {
  it('are named apart (ids differing only in replaced characters, or sharing their first 120), so the export imports again whole', async () => {
    // Ids the import takes as they come, whose safe names were once alike: memory/mem_a_b.md twice.
    const long = `mem_${'x'.repeat(130)}`;
    const ids = ['mem_a/b', 'mem_a_b', 'mem_a:b', `${long}1`, `${long}2`, 'mem_caf\u00e9'];
    const gina = await source.createOwner('Gina');
    for (const [i] of ids.entries()) await ok(await source.request('POST', '/api/v1/memory', { token: gina.token, body: { content: `Odd id number ${i}`, tags: ['odd'] } }), 201);
    // Gina's entries under those ids: an archive of its memory alone, as a hand (or another tool) would make it.
    const lines = Buffer.from(unzipSync(await exportArchive(source, gina))['data/memory_entries.jsonl']!).toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    lines.sort((a, b) => a.content.localeCompare(b.content));
    const data = strToU8(`${lines.map((line, i) => JSON.stringify({ ...line, id: ids[i] })).join('\n')}\n`);
    const manifest = { format: 'hearth-archive', formatVersion: 1, createdAt: new Date().toISOString(), counts: { memory_entries: ids.length }, secrets: null, files: [{ path: 'data/memory_entries.jsonl', bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') }] };
    const crafted = Buffer.from(zipSync({ 'data/memory_entries.jsonl': data, 'manifest.json': strToU8(JSON.stringify(manifest)) }));

    const hal = await source.createOwner('Hal');
    const first = (await ok(await importArchive(source, hal, crafted), 200)).data;
    expect(first.tables.memory_entries).toMatchObject({ added: ids.length, renumbered: 0, conflicts: 0 });

    const archive = await exportArchive(source, hal);
    const files = unzipSync(archive);
    const pages = Object.keys(files).filter((name) => name.startsWith('memory/'));
    expect(pages).toHaveLength(ids.length);
    // A safe id keeps its name; the others are readable, with a hash of the id after a ~.
    expect(pages).toContain('memory/mem_a_b.md');
    expect(pages).toEqual(expect.arrayContaining([expect.stringMatching(/^memory\/mem_a_b~[0-9a-f]{16}\.md$/), expect.stringMatching(/^memory\/mem_caf_~[0-9a-f]{16}\.md$/)]));
    expect(pages.filter((name) => name.startsWith(`memory/${long.slice(0, 120)}~`))).toHaveLength(2);
    // Each page is its record's: the real id is in its frontmatter.
    const pageIds = pages.map((name) => JSON.parse(/^id: (.+)$/m.exec(Buffer.from(files[name]!).toString('utf8'))![1]!));
    expect(pageIds.sort()).toEqual([...ids].sort());

    // Into a fresh account on another server: every entry comes back, under its own id.
    const ivy = await target.createOwner('Ivy');
    const report = (await ok(await importArchive(target, ivy, archive), 200)).data;
    expect(report.issues).toEqual([]);
    expect(report.tables.memory_entries).toMatchObject({ added: ids.length, renumbered: 0, conflicts: 0 });
    expect((await snapshot(target.storage.db, ivy.id)).memory_entries).toEqual((await snapshot(source.storage.db, hal.id)).memory_entries);
  });
});

describe('import into an account with data', () => {
  it('skips what is the same, reports what differs, and overwrites nothing', async () => {
    // Alice's own archive back into Alice's account, after she changed a memory entry.
    const entries = (await source.request('GET', '/api/v1/memory', { token: alice.token })).body.data as Array<{ id: string; content: string }>;
    const tea = entries.find((e) => e.content.startsWith('Prefers tea'))!;
    await ok(await source.request('PATCH', `/api/v1/memory/${tea.id}`, { token: alice.token, body: { content: 'Prefers coffee now' } }), 200);
    const report = (await ok(await importArchive(source, alice, plainArchive), 200)).data;
    expect(report.tables.memory_entries).toMatchObject({ added: 0, unchanged: 2, conflicts: 1 });
    expect(report.issues).toContainEqual(expect.objectContaining({ table: 'memory_entries', id: tea.id, outcome: 'conflict' }));
    const now = (await source.request('GET', '/api/v1/memory', { token: alice.token })).body.data as Array<{ id: string; content: string }>;
    expect(now.find((e) => e.id === tea.id)!.content).toBe('Prefers coffee now');
  });

  it('into another account on the same server gives new ids where the old ones are taken, links and attachments following', async () => {
    const erin = await source.createOwner('Erin');
    const report = (await ok(await importArchive(source, erin, plainArchive), 200)).data;
    expect(report.tables.memory_entries).toMatchObject({ added: 3, renumbered: 3 });
    expect(report.tables.skills).toMatchObject({ added: 1, renumbered: 1 });
    expect(report.tables.persona_skills).toMatchObject({ added: 1 });
    const entries = (await source.request('GET', '/api/v1/memory', { token: erin.token, query: { include: 'history' } })).body.data as Array<{ id: string; content: string; supersedes: string[] }>;
    const paris = entries.find((e) => e.content.startsWith('Lives in Paris'))!;
    const lyon = entries.find((e) => e.content === 'Lives in Lyon')!;
    expect(paris.supersedes).toEqual([lyon.id]);
    const persona = (await source.request('GET', '/api/v1/personas', { token: erin.token })).body.data[0];
    const attached = (await source.request('GET', `/api/v1/personas/${persona.id}/skills`, { token: erin.token })).body.data;
    expect(attached).toHaveLength(1);
  });

  it('makes each imported text one the account holds: written again it is a duplicate, imported again a conflict', async () => {
    const frank = await source.createOwner('Frank');
    const post = (content: string) => source.request('POST', '/api/v1/memory', { token: frank.token, body: { content } });
    // A write before the import: the server already knows which texts Frank holds when it lands.
    await ok(await post('Owns a bicycle'), 201);
    expect((await ok(await importArchive(source, frank, plainArchive), 200)).data.tables.memory_entries).toMatchObject({ added: 3 });
    const entries = (await source.request('GET', '/api/v1/memory', { token: frank.token })).body.data as Array<{ id: string; content: string }>;
    const tea = entries.find((e) => e.content.startsWith('Prefers tea'))!;
    const again = await post(tea.content.toUpperCase());
    expect(again.status).toBe(200);
    expect(again.body.duplicateOf).toBe(tea.id);
    // The same archive again: its current entries say what Frank's now say (under other ids).
    const second = (await ok(await importArchive(source, frank, plainArchive), 200)).data;
    expect(second.tables.memory_entries.conflicts).toBe(2);
    expect(second.issues).toContainEqual(expect.objectContaining({ table: 'memory_entries', outcome: 'conflict', reason: expect.stringContaining(`id ${tea.id}`) }));
    const current = (await source.request('GET', '/api/v1/memory', { token: frank.token, query: { limit: '50' } })).body.data as Array<{ content: string }>;
    expect(current.filter((e) => e.content === tea.content)).toHaveLength(1);
  });
});

/**
 * The archive with its last memory entry's `pinned` not a boolean, the manifest's checksums made
 * to match: it passes every check of the archive and is refused while its records are applied.
 */
function withUnreadableMemoryRow(archive: Buffer): Buffer {
  const files = unzipSync(archive);
  const memory = Buffer.from(files['data/memory_entries.jsonl']!).toString('utf8').trim().split('\n');
  memory[memory.length - 1] = JSON.stringify({ ...JSON.parse(memory[memory.length - 1]!), pinned: 'yes' });
  files['data/memory_entries.jsonl'] = strToU8(`${memory.join('\n')}\n`);
  const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8'));
  for (const file of manifest.files) {
    const data = Buffer.from(files[file.path]!);
    file.bytes = data.length;
    file.sha256 = createHash('sha256').update(data).digest('hex');
  }
  files['manifest.json'] = strToU8(JSON.stringify(manifest));
  return Buffer.from(zipSync(files));
}

/** The events of a text/event-stream answer, in order. */
function eventsOf(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const event = /^event: (.+)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.+)$/m.exec(frame)?.[1] ?? 'null');
      return { event, data };
    });
}

describe('the import\'s progress, as server-sent events (Accept: text/event-stream)', () => {
  const streamed = (owner: Owner, archive: Buffer) => {
    const form = multipart([{ name: 'file', filename: 'archive.zip', contentType: 'application/zip', data: archive }]);
    return target.request('POST', '/api/v1/import', { token: owner.token, body: form.body, headers: { ...form.headers, accept: 'text/event-stream' } });
  };

  it('tells how many records are done out of the manifest\'s total, then the report the JSON answer gives', async () => {
    const gina = await target.createOwner('Gina');
    const res = await streamed(gina, plainArchive);
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
    const events = eventsOf(res.text);
    const manifest = JSON.parse(Buffer.from(unzipSync(plainArchive)['manifest.json']!).toString('utf8'));
    const total = CARRIED_TABLES.reduce((sum, table) => sum + (manifest.counts[table.name] ?? 0), 0);
    expect(total).toBeGreaterThan(0);
    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress[0]).toEqual({ done: 0, total });
    expect(progress.at(-1)).toEqual({ done: total, total });
    for (let i = 1; i < progress.length; i++) expect(progress[i].done).toBeGreaterThanOrEqual(progress[i - 1].done);
    expect(events.map((e) => e.event).filter((name) => name !== 'progress')).toEqual(['done']);
    const report = events.at(-1)!.data;
    expect(report.dryRun).toBe(false);
    expect(report.tables.memory_entries).toMatchObject({ added: 3, conflicts: 0 });
    const listed = (await target.request('GET', '/api/v1/memory', { token: gina.token })).body.data as Array<{ content: string }>;
    expect(listed.map((entry) => entry.content)).toContain('Lives in Paris since 2016');
  });

  it('answers a refusal found before any record is applied with its status, as JSON', async () => {
    const hank = await target.createOwner('Hank');
    const res = await streamed(hank, Buffer.from('hello, this is text'));
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  });

  it('ends with an error event when a record is refused midway, and nothing is imported', async () => {
    const ida = await target.createOwner('Ida');
    const res = await streamed(ida, withUnreadableMemoryRow(plainArchive));
    expect(res.status).toBe(200);
    const events = eventsOf(res.text);
    expect(events[0]!.event).toBe('progress');
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data.error).toBe('VALIDATION_ERROR');
    expect(last.data.message).toMatch(/pinned/);
    expect((await target.request('GET', '/api/v1/memory', { token: ida.token })).body.data).toHaveLength(0);
    expect((await target.request('GET', '/api/v1/personas', { token: ida.token })).body.data).toHaveLength(0);
  });
});

describe('hostile archives answer a clear 4xx and change nothing', () => {
  let victim: Owner;
  beforeAll(async () => {
    victim = await target.createOwner('Victim');
  });
  const manifestFor = (files: Record<string, Buffer>) =>
    Buffer.from(
      JSON.stringify({
        format: 'hearth-archive',
        formatVersion: 1,
        createdAt: new Date().toISOString(),
        counts: {},
        secrets: null,
        files: Object.entries(files).map(([path, data]) => ({ path, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') })),
      }),
    );
  const cases: Array<[string, () => Buffer, number, string, RegExp]> = [
    ['a zip bomb (an entry inflating far beyond what it declares)', () => handZip([{ name: 'manifest.json', method: 8, data: deflatedSpaces(64), size: 1000 }]), 400, 'VALIDATION_ERROR', /expands beyond/],
    [
      'a 10 GB declared size',
      () => handZip([0, 1, 2].map((i) => ({ name: `data/big${i}.jsonl`, method: 0 as const, data: Buffer.alloc(0), size: 0xfffffffe }))),
      413,
      'PAYLOAD_TOO_LARGE',
      /expand beyond/,
    ],
    ['a ../ entry name', () => Buffer.from(zipSync({ '../evil.jsonl': strToU8('{}') })), 400, 'VALIDATION_ERROR', /"\.\."/],
    ['an absolute entry name', () => Buffer.from(zipSync({ '/etc/passwd': strToU8('x') })), 400, 'VALIDATION_ERROR', /absolute/],
    [
      'invalid UTF-8',
      () => {
        const bad = Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]);
        return Buffer.from(zipSync({ 'data/memory_entries.jsonl': bad, 'manifest.json': manifestFor({ 'data/memory_entries.jsonl': bad }) }));
      },
      400,
      'VALIDATION_ERROR',
      /UTF-8/,
    ],
    [
      'a manifest whose checksums do not match',
      () => {
        const files = unzipSync(plainArchive);
        files['data/memory_entries.jsonl'] = strToU8('{"id":"mem_forged","content":"planted"}\n');
        return Buffer.from(zipSync(files));
      },
      400,
      'VALIDATION_ERROR',
      /checksum/,
    ],
    ['not a zip at all', () => Buffer.from('hello, this is text'), 400, 'VALIDATION_ERROR', /not a readable zip/],
    [
      'a file declaring 300 MiB honestly, in a few KiB of upload (checksums right)',
      () => {
        const MiB = 1024 * 1024;
        const spaces = createHash('sha256');
        for (let i = 0; i < 300; i++) spaces.update(Buffer.alloc(MiB, 0x20));
        const manifest = Buffer.from(
          JSON.stringify({
            format: 'hearth-archive',
            formatVersion: 1,
            createdAt: new Date().toISOString(),
            counts: {},
            secrets: null,
            files: [{ path: 'data/memory_entries.jsonl', bytes: 300 * MiB, sha256: spaces.digest('hex') }],
          }),
        );
        return handZip([
          { name: 'manifest.json', method: 0, data: manifest, size: manifest.length },
          { name: 'data/memory_entries.jsonl', method: 8, data: deflatedSpaces(300), size: 300 * MiB },
        ]);
      },
      413,
      'PAYLOAD_TOO_LARGE',
      /data\/memory_entries\.jsonl expands to 300 MiB; one file of an archive may hold at most 256 MiB/,
    ],
  ];
  for (const [name, make, status, code, message] of cases) {
    it(name, async () => {
      const started = Date.now();
      const body = expectError(await importArchive(target, victim, make()), status, code);
      expect(body.message).toMatch(message);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await target.request('GET', '/api/v1/memory', { token: victim.token })).body.data).toHaveLength(0);
    });
  }

  it('a row that is not what its column holds refuses the whole archive, changing nothing', async () => {
    const body = expectError(await importArchive(target, victim, withUnreadableMemoryRow(plainArchive)), 400, 'VALIDATION_ERROR');
    expect(body.message).toMatch(/pinned/);
    expect((await target.request('GET', '/api/v1/memory', { token: victim.token })).body.data).toHaveLength(0);
    expect((await target.request('GET', '/api/v1/personas', { token: victim.token })).body.data).toHaveLength(0);
  });
});

describe('connectors in an archive', () => {
  it('never send a secret the account already holds off the site it was stored for (the API asks the password for that)', async () => {
    const owner = await target.createOwner('Connector owner');
    const session = await target.login(owner);
    const vault = (await ok(await target.request('POST', '/api/v1/vault/tokens', { token: owner.token, body: { name: 'github', service: 'github', token: `ghp_${randomBytes(12).toString('hex')}`, websiteUrl: 'https://github.com' } }), 201)).data;
    const now = new Date().toISOString();
    const connector = (id: string, name: string, baseUrl: string, vaultTokenId: string) =>
      JSON.stringify({ id, name, name_key: name.toLowerCase(), base_url: baseUrl, auth_type: 'bearer', vault_token_id: vaultTokenId, header_name: null, query_param: null, api_style: 'rest', read_methods: null, created_at: now, updated_at: now });
    const jsonl = Buffer.from(
      [
        connector('con_01KQ00000000000000000AWAY', 'Collector', 'https://collector.example.net/v1', vault.id),
        connector('con_01KQ00000000000000000HOME', 'GitHub API', 'https://api.github.com', vault.id),
        connector('con_01KQ00000000000000000ELSE', 'Not mine', 'https://api.github.com', 'vlt_01KQ00000000000000000NONE'),
      ].join('\n') + '\n',
    );
    const manifest = Buffer.from(
      JSON.stringify({
        format: 'hearth-archive',
        formatVersion: 1,
        createdAt: now,
        counts: { connectors: 3 },
        secrets: null,
        files: [{ path: 'data/connectors.jsonl', bytes: jsonl.length, sha256: createHash('sha256').update(jsonl).digest('hex') }],
      }),
    );
    const archive = Buffer.from(zipSync({ 'manifest.json': manifest, 'data/connectors.jsonl': jsonl }));

    for (const token of [session, owner.token]) {
      const report = (await ok(await importArchive(target, { ...owner, token }, archive, { dryRun: 'true' }), 200)).data;
      expect(report.tables.connectors).toMatchObject({ added: 1, skipped: 2 });
    }
    const report = (await ok(await importArchive(target, { ...owner, token: session }, archive), 200)).data;
    expect(report.tables.connectors).toMatchObject({ added: 1, skipped: 2 });
    expect(report.issues).toEqual([
      expect.objectContaining({ table: 'connectors', id: 'con_01KQ00000000000000000AWAY', outcome: 'skipped', reason: expect.stringMatching(/stored for https:\/\/github\.com, to https:\/\/collector\.example\.net/) }),
      expect.objectContaining({ table: 'connectors', id: 'con_01KQ00000000000000000ELSE', outcome: 'skipped', reason: expect.stringMatching(/not a vault token of this archive or of the account/) }),
    ]);
    const listed = (await ok(await target.request('GET', '/api/v1/connectors', { token: owner.token }), 200)).data;
    expect(listed.map((c: { baseUrl: string }) => c.baseUrl)).toEqual(['https://api.github.com']);
    // The same binding through the API, from a login session, asks for the password.
    expectError(
      await target.request('POST', '/api/v1/connectors', { token: session, body: { name: 'Collector', baseUrl: 'https://collector.example.net/v1', authType: 'bearer', vaultTokenId: vault.id } }),
      403,
      'FORBIDDEN',
    );
  });
});

describe('access and limits', () => {
  it('refuses a scoped token (403) on every route, and a session without the password to export', async () => {
    const scoped = await source.tokenWithScopes(alice, ['memory', 'knowledge', 'vault']);
    expectError(await source.request('POST', '/api/v1/export', { token: scoped, body: {} }), 403, 'FORBIDDEN');
    expectError(await importArchive(source, { ...alice, token: scoped }, plainArchive), 403, 'FORBIDDEN');
    const session = await source.login(alice);
    const without = expectError(await source.request('POST', '/api/v1/export', { token: session, body: {} }), 403, 'FORBIDDEN');
    expect(without.message).toMatch(/password/);
    expectError(await source.request('POST', '/api/v1/export', { token: session, body: { password: 'wrong-password' } }), 403, 'FORBIDDEN');
    const started = await source.request('POST', '/api/v1/export', { token: session, body: { password: alice.password } });
    expect(started.status).toBe(201);
    // Another owner cannot see it.
    const other = await source.createOwner('Other');
    expectError(await source.request('GET', `/api/v1/export/${started.body.data.id}`, { token: other.token }), 404, 'NOT_FOUND');
    await source.container.portability.drain();
  });

  it('runs one export at a time per owner (409)', async () => {
    const first = source.request('POST', '/api/v1/export', { token: alice.token, body: {} });
    const second = source.request('POST', '/api/v1/export', { token: alice.token, body: {} });
    const statuses = (await Promise.all([first, second])).map((res) => res.status).sort();
    // Both may land after the first finished on a fast machine; at least one is accepted and none fails otherwise.
    expect(statuses[0]).toBe(201);
    expect([201, 409]).toContain(statuses[1]);
    await source.container.portability.drain();
    const res = await source.request('POST', '/api/v1/export', { token: alice.token, body: {} });
    expect(res.status).toBe(201);
    // While it runs (its row says so), another is refused.
    await source.storage.db.updateTable('export_jobs').set({ status: 'running' }).where('id', '=', res.body.data.id).execute();
    await source.container.portability.drain();
    await source.storage.db.updateTable('export_jobs').set({ status: 'running', updated_at: new Date().toISOString() }).where('id', '=', res.body.data.id).execute();
    const refused = expectError(await source.request('POST', '/api/v1/export', { token: alice.token, body: {} }), 409, 'CONFLICT');
    expect(refused.message).toContain(res.body.data.id);
    await source.storage.db.updateTable('export_jobs').set({ status: 'failed' }).where('id', '=', res.body.data.id).execute();
  });

  it('reads one archive at a time on a server: another import waits its turn (503 with Retry-After)', async () => {
    const owner = await target.createOwner('Jo');
    // An import under way on this server holds the slot (as the route takes it before reading an archive).
    const release = target.container.portability.reserveImport();
    try {
      const refused = await importArchive(target, owner, plainArchive, { dryRun: 'true' });
      const body = expectError(refused, 503, 'RATE_LIMITED');
      expect(body.message).toMatch(/one at a time/);
      expect(refused.headers['retry-after']).toBe('5');
    } finally {
      release();
    }
    // Its turn over, the next import is read; and a refused or finished one gives the slot back.
    expect((await importArchive(target, owner, Buffer.from('not a zip'), { dryRun: 'true' })).status).toBe(400);
    expect((await importArchive(target, owner, plainArchive, { dryRun: 'true' })).status).toBe(200);
    expect((await importArchive(target, owner, plainArchive, { dryRun: 'true' })).status).toBe(200);
  });

  it('asks for a passphrase of at least 10 characters before exporting secrets', async () => {
    expectError(await source.request('POST', '/api/v1/export', { token: alice.token, body: { includeSecrets: true } }), 400, 'VALIDATION_ERROR');
    expectError(await source.request('POST', '/api/v1/export', { token: alice.token, body: { includeSecrets: true, passphrase: 'short' } }), 400, 'VALIDATION_ERROR');
  });

  it('records exports and imports in the audit log', async () => {
    const log = (await source.request('GET', '/api/v1/audit/log', { token: alice.token, query: { limit: 200 } })).body.data as Array<{ action: string }>;
    const actions = new Set(log.map((entry) => entry.action));
    expect(actions).toContain('portability.export');
    expect(actions).toContain('portability.import');
    expect(actions).toContain('portability.download');
  });
});

describe('the command line (hearth export, hearth import)', () => {
  const bin = fileURLToPath(new URL('../../../bin/hearth.js', import.meta.url));
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });

  it('exports to a file and imports it elsewhere, dry run first, with exit codes that say what happened', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-cli-'));
    try {
      const out = path.join(dir, 'account.zip');
      const exported = await run(['export', '--url', await source.listen(), '--out', out], { HEARTH_TOKEN: alice.token });
      expect(exported.stderr).toBe('');
      expect(exported.code).toBe(0);
      expect(exported.stdout).toContain('account.zip');
      const frank = await target.createOwner('Frank');
      const dry = await run(['import', '--url', await target.listen(), out, '--dry-run'], { HEARTH_TOKEN: frank.token });
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/Dry run: nothing was changed/);
      expect((await target.request('GET', '/api/v1/memory', { token: frank.token })).body.data).toHaveLength(0);
      const imported = await run(['import', '--url', await target.listen(), out], { HEARTH_TOKEN: frank.token });
      expect(imported.code).toBe(0);
      expect(imported.stdout).toMatch(/memory_entries\s+added 3/);
      const refused = await run(['export', '--url', await source.listen()], { HEARTH_TOKEN: await source.tokenWithScopes(alice, ['memory']) });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/403/);
      expect((await run(['import', '--url', await target.listen()], { HEARTH_TOKEN: frank.token })).code).toBe(1);
      // Refused while its records are applied (after the answer began): exit 2, the server's words, nothing imported.
      const unreadable = path.join(dir, 'unreadable.zip');
      writeFileSync(unreadable, withUnreadableMemoryRow(plainArchive));
      const grace = await target.createOwner('Grace');
      const stopped = await run(['import', '--url', await target.listen(), unreadable], { HEARTH_TOKEN: grace.token });
      expect(stopped.code).toBe(2);
      expect(stopped.stderr).toMatch(/nothing was imported: .*pinned/);
      expect((await target.request('GET', '/api/v1/memory', { token: grace.token })).body.data).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('archives on disk', () => {
  it('are removed once expired, failed or cut short, even when nobody asks for an export again; a live one stays', async () => {
    const t = await createTestApp();
    try {
      const owner = await t.createOwner('Disk');
      await exportArchive(t, owner);
      await exportArchive(t, owner);
      const [live, expiring] = (await t.storage.db.selectFrom('export_jobs').select('id').where('owner_id', '=', owner.id).orderBy('id').execute()).map((row) => row.id);
      await t.storage.db.updateTable('export_jobs').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', expiring!).execute();
      // An export whose process was killed mid-way: its job still running, unmoved for an hour, its partial archive left.
      const killed = 'exp_01KQ0000000000000000000KILL';
      const hourAgo = new Date(Date.now() - 60 * 60 * 1000).toISOString();
      await t.storage.db
        .insertInto('export_jobs')
        .values({ id: killed, owner_id: owner.id, status: 'running', include_secrets: 0, done_items: 3, total_items: 10, created_at: hourAgo, updated_at: hourAgo })
        .execute();
      const dir = path.join(t.config.dataDir, 'exports');
      writeFileSync(path.join(dir, `${killed}.zip.partial`), 'the first records of an account', { mode: 0o600 });
      // An archive no export knows of any more.
      writeFileSync(path.join(dir, 'exp_01KQ0000000000000000000GONE.zip'), 'an old archive', { mode: 0o600 });
      expect(readdirSync(dir)).toHaveLength(4);

      await t.restart();
      expect(readdirSync(dir)).toEqual([`${live}.zip`]);
      expect((await ok(await t.request('GET', `/api/v1/export/${killed}`, { token: owner.token }), 200)).data.status).toBe('failed');
      expect((await ok(await t.request('GET', `/api/v1/export/${expiring}`, { token: owner.token }), 200)).data.status).toBe('expired');
      const download = await t.app.inject({ method: 'GET', url: `/api/v1/export/${live}/download`, headers: { authorization: `Bearer ${owner.token}` } });
      expect(download.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
