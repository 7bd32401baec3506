/**
 * Archives made by hand against the import, through the API on the engine under test: records
 * pointing at another account's rows (or at none), values no module writes, secrets of the wrong
 * shape, passages out of their place, plan limits, and database-numbered ids (skills) taken on the
 * server. Each answers a 4xx in the error shape (or is reported) and changes nothing it should not.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { multipart } from '../../../test/multipart.js';
import { sealSecrets } from './portability.crypto.js';

const NOW = '2024-05-01T12:00:00.000Z';
const PASSPHRASE = 'correct horse battery staple';

type Record_ = Record<string, unknown>;
const fresh = (prefix: string) => `${prefix}_HOSTILE${randomBytes(8).toString('hex').toUpperCase()}`;

/** Every column of each table an archive carries, as an export writes it; `over` changes some. */
const rows = {
  memory: (over: Record_ = {}): Record_ => ({
    id: fresh('mem'),
    content: `A memory ${randomBytes(4).toString('hex')}`,
    created_at: NOW,
    updated_at: NOW,
    author_token_id: null,
    channel: 'api',
    author: null,
    editor: null,
    source: null,
    kind: 'note',
    tags: [],
    pinned: false,
    valid_from: null,
    valid_until: null,
    supersedes: [],
    superseded_by: null,
    superseded_at: null,
    pin_order: null,
    content_key: null,
    seen_count: 1,
    last_seen_at: null,
    last_seen_by: null,
    ...over,
  }),
  document: (over: Record_ = {}): Record_ => {
    const content = typeof over.content === 'string' ? over.content : `Text ${randomBytes(4).toString('hex')}`;
    return { id: fresh('doc'), title: `Doc ${randomBytes(4).toString('hex')}`, content, source: 'archive', mime_type: 'text/plain', size_bytes: Buffer.byteLength(content, 'utf8'), file_bytes: null, created_at: NOW, updated_at: NOW, ...over };
  },
  passage: (documentId: string, ordinal: number, over: Record_ = {}): Record_ => ({
    id: `${documentId}:${ordinal}`,
    document_id: documentId,
    ordinal,
    start_offset: 0,
    end_offset: 7,
    heading_path: [],
    title: 'Planted',
    content: 'Planted',
    updated_at: NOW,
    ...over,
  }),
  conversation: (over: Record_ = {}): Record_ => ({ id: fresh('cnv'), title: 'A talk', created_at: NOW, updated_at: NOW, ...over }),
  message: (conversationId: string, over: Record_ = {}): Record_ => ({
    id: fresh('msg'),
    conversation_id: conversationId,
    role: 'user',
    content: 'Planted message',
    sources: [],
    mode: null,
    model: null,
    created_at: NOW,
    ...over,
  }),
  skill: (id: number, slug: string): Record_ => ({
    id,
    slug,
    slug_key: slug.toLowerCase(),
    name: slug,
    description: `The ${slug} skill`,
    category: 'tests',
    category_key: 'tests',
    script_content: `Do ${slug}.`,
    active: false,
    origin: { type: 'created' },
    created_at: NOW,
    updated_at: NOW,
  }),
  persona: (over: Record_ = {}): Record_ => ({ id: fresh('per'), name: 'Tester', description: 'Tests', soul_content: 'You test.', active: false, created_at: NOW, updated_at: NOW, ...over }),
  vaultToken: (over: Record_ = {}): Record_ => ({
    id: fresh('vlt'),
    name: 'stripe',
    service: 'stripe',
    service_key: 'stripe',
    website_url: 'https://stripe.com',
    hint: '…1234',
    discover_api: false,
    api_metadata: null,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  }),
  connector: (vaultTokenId: string): Record_ => ({
    id: fresh('con'),
    name: `Planted-${randomBytes(3).toString('hex')}`,
    name_key: '',
    base_url: 'https://api.stripe.com',
    auth_type: 'bearer',
    vault_token_id: vaultTokenId,
    header_name: null,
    query_param: null,
    api_style: 'rest',
    read_methods: null,
    created_at: NOW,
    updated_at: NOW,
  }),
};

/** An archive holding these tables' records (and `files`), its manifest listing each with its size and checksum. */
function archiveOf(tables: Record<string, Record_[]>, files: Record<string, Buffer> = {}, secrets: unknown = null): Buffer {
  const entries: Record<string, Buffer> = { ...files };
  for (const [table, records] of Object.entries(tables)) {
    const fixed = table === 'connectors' ? records.map((record) => ({ ...record, name_key: String(record.name).toLowerCase() })) : records;
    entries[`data/${table}.jsonl`] = Buffer.from(fixed.map((record) => JSON.stringify(record)).join('\n') + '\n');
  }
  const manifest = {
    format: 'hearth-archive',
    formatVersion: 1,
    createdAt: NOW,
    counts: Object.fromEntries(Object.entries(tables).map(([table, records]) => [table, records.length])),
    secrets,
    files: Object.entries(entries).map(([name, data]) => ({ path: name, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') })),
  };
  return Buffer.from(zipSync({ ...Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, new Uint8Array(data)])), 'manifest.json': strToU8(JSON.stringify(manifest)) }));
}

/** An archive with a secrets file the passphrase opens, holding `plain` (whatever it is). */
async function withSecrets(tables: Record<string, Record_[]>, plain: string): Promise<Buffer> {
  const sealed = Buffer.from(JSON.stringify(await sealSecrets(PASSPHRASE, plain)));
  return archiveOf(tables, { 'secrets.enc.json': sealed }, { file: 'secrets.enc.json' });
}


function importArchive(t: TestApp, owner: Owner, archive: Buffer, fields: Record<string, string> = {}) {
  const form = multipart([{ name: 'file', filename: 'archive.zip', contentType: 'application/zip', data: archive }, ...Object.entries(fields).map(([name, data]) => ({ name, data }))]);
  return t.request('POST', '/api/v1/import', { token: owner.token, body: form.body, headers: form.headers });
}

async function ok<T = any>(res: { status: number; text: string; body: T }, status: number): Promise<T> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

/** The answer is a 400 in the error shape naming what `message` matches, and the owner's account holds no more than before. */
async function expectRefused(t: TestApp, owner: Owner, archive: Buffer, message: RegExp, fields: Record<string, string> = {}) {
  const before = await countsOf(t, owner);
  const body = expectError(await importArchive(t, owner, archive, fields), 400, 'VALIDATION_ERROR');
  expect(body.message).toMatch(/^The archive is refused: /);
  expect(body.message).toMatch(message);
  expect(body.message).toMatch(/Nothing was imported$/);
  expect(await countsOf(t, owner)).toEqual(before);
  return body;
}

/** The import answers 200 with the one record of `table` left out and reported, and the owner's account holds no more than before. */
async function expectLeftOut(t: TestApp, owner: Owner, archive: Buffer, table: string) {
  const before = await countsOf(t, owner);
  const report = (await ok(await importArchive(t, owner, archive), 200)).data;
  expect(report.tables[table]).toMatchObject({ added: 0, skipped: 1 });
  expect(await countsOf(t, owner)).toEqual(before);
  return report;
}

async function countsOf(t: TestApp, owner: Owner): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['memory_entries', 'kb_documents', 'kb_passages', 'chat_conversations', 'chat_messages', 'skills', 'vault_tokens', 'connectors']) {
    const row = await t.storage.db.selectFrom(table).select((eb: any) => eb.fn.countAll().as('n')).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    out[table] = Number((row as { n: unknown }).n);
  }
  return out;
}

let t: TestApp;
let victim: Owner;
let attacker: Owner;
let victimDoc: { id: string; content: string };
let victimConversation: string;
let victimVaultToken: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.createOwner('Administrator');
  victim = await t.createOwner('Victim');
  attacker = await t.createOwner('Attacker');
  victimDoc = (await ok(await t.request('POST', '/api/v1/brain/knowledge-base', { token: victim.token, body: { title: 'Salaries', content: '# Salaries\n\nAda earns a lot.\n' } }), 200)).data;
  victimConversation = (await ok(await t.request('POST', '/api/v1/brain/chat', { token: victim.token, body: { message: 'What does Ada earn?' } }), 200)).data.conversationId;
  victimVaultToken = (await ok(await t.request('POST', '/api/v1/vault/tokens', { token: victim.token, body: { name: 'stripe', service: 'stripe', token: 'sk-live-victim', websiteUrl: 'https://stripe.com' } }), 201)).data.id;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe("a record pointing at another account's row", () => {
  it("leaves out a passage of another owner's document, reported, and the document keeps its passages", async () => {
    const passagesBefore = await t.storage.db.selectFrom('kb_passages').selectAll().where('document_id', '=', victimDoc.id).execute();
    expect(passagesBefore.length).toBeGreaterThan(0);
    for (const ordinal of [0, 7]) {
      const report = await expectLeftOut(t, attacker, archiveOf({ kb_passages: [rows.passage(victimDoc.id, ordinal)] }), 'kb_passages');
      expect(report.issues).toEqual([
        expect.objectContaining({ table: 'kb_passages', outcome: 'skipped', reason: `its document_id ${victimDoc.id} is not a knowledge-base document of this archive or of the account` }),
      ]);
    }
    expect(await t.storage.db.selectFrom('kb_passages').selectAll().where('document_id', '=', victimDoc.id).execute()).toEqual(passagesBefore);
    // The victim's next edit writes its own passages, into its own rows.
    await ok(await t.request('PUT', `/api/v1/brain/knowledge-base/${victimDoc.id}`, { token: victim.token, body: { content: `# Salaries\n\n${'Ada earns a lot. '.repeat(400)}` } }), 200);
    const passages = await t.storage.db.selectFrom('kb_passages').select('owner_id').where('document_id', '=', victimDoc.id).execute();
    expect(new Set(passages.map((p) => p.owner_id))).toEqual(new Set([victim.id]));
    expect(await t.storage.db.selectFrom('kb_passages').select('id').where('owner_id', '=', attacker.id).execute()).toEqual([]);
  });

  it("leaves out a chat message in another owner's conversation, reported", async () => {
    const report = await expectLeftOut(t, attacker, archiveOf({ chat_messages: [rows.message(victimConversation)] }), 'chat_messages');
    expect(report.issues[0].reason).toMatch(/^its conversation_id \w+ is not a conversation of this archive or of the account$/);
    const conversation = await ok(await t.request('GET', `/api/v1/brain/conversations/${victimConversation}`, { token: victim.token }), 200);
    expect(conversation.data.messages.map((m: { content: string }) => m.content)).not.toContain('Planted message');
  });

  it("answers a reference to a row that exists nowhere as one to another account's (nothing tells them apart)", async () => {
    // Before, these reached the database's foreign keys: a 500.
    const passage = await expectLeftOut(t, attacker, archiveOf({ kb_passages: [rows.passage('doc_NOWHERE', 0)] }), 'kb_passages');
    expect(passage.issues[0].reason).toBe('its document_id doc_NOWHERE is not a knowledge-base document of this archive or of the account');
    const message = await expectLeftOut(t, attacker, archiveOf({ chat_messages: [rows.message('cnv_NOWHERE')] }), 'chat_messages');
    expect(message.issues[0].reason).toBe('its conversation_id cnv_NOWHERE is not a conversation of this archive or of the account');
  });

  it("never binds a connector to another owner's vault token (left out, reported)", async () => {
    const connector = rows.connector(victimVaultToken);
    const report = (await ok(await importArchive(t, attacker, archiveOf({ connectors: [connector] })), 200)).data;
    expect(report.tables.connectors).toMatchObject({ added: 0, skipped: 1 });
    expect(report.issues).toEqual([expect.objectContaining({ table: 'connectors', id: connector.id, outcome: 'skipped', reason: `its vault_token_id ${victimVaultToken} is not a vault token of this archive or of the account` })]);
  });

  it("imports the archive's own document under a new id when another account holds its id, its passages following under the knowledge module's ids", async () => {
    // The archive's document has the victim's document's id: it is the archive's, renumbered; its passages follow it.
    const document = rows.document({ id: victimDoc.id, title: 'Mine', content: 'My own text' });
    const owner = await t.createOwner('Honest');
    const report = (await ok(await importArchive(t, owner, archiveOf({ kb_documents: [document], kb_passages: [rows.passage(victimDoc.id, 0, { content: 'My own text', end_offset: 11 })] })), 200)).data;
    expect(report.tables.kb_documents).toMatchObject({ added: 1, renumbered: 1 });
    expect(report.tables.kb_passages).toMatchObject({ added: 1 });
    const mine = await t.storage.db.selectFrom('kb_documents').select('id').where('owner_id', '=', owner.id).execute();
    expect(mine).toHaveLength(1);
    expect(mine[0]!.id).not.toBe(victimDoc.id);
    const passages = await t.storage.db.selectFrom('kb_passages').select(['id', 'document_id', 'ordinal']).where('owner_id', '=', owner.id).execute();
    // `${documentId}:${ordinal}`, the id the document's next edit rewrites (knowledge.repo.ts).
    expect(passages).toEqual([{ id: `${mine[0]!.id}:0`, document_id: mine[0]!.id, ordinal: 0 }]);
    await ok(await t.request('PUT', `/api/v1/brain/knowledge-base/${mine[0]!.id}`, { token: owner.token, body: { content: 'My own text, edited' } }), 200);
  });
});

describe('a passage out of its place', () => {
  it("is a conflict, not a 500, when its document's place is taken (an id another account holds, renumbered before)", async () => {
    const owner = await t.createOwner('Placed');
    const doc = (await ok(await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Notes', content: 'Some notes' } }), 200)).data;
    // The passage's id is the victim's passage's; its place is the owner's document's first.
    const planted = rows.passage(doc.id, 0, { id: `${victimDoc.id}:0` });
    const report = (await ok(await importArchive(t, owner, archiveOf({ kb_passages: [planted] })), 200)).data;
    expect(report.tables.kb_passages).toMatchObject({ added: 0, conflicts: 1 });
    expect(report.issues).toEqual([expect.objectContaining({ table: 'kb_passages', id: `${victimDoc.id}:0`, outcome: 'conflict' })]);
    const passages = await t.storage.db.selectFrom('kb_passages').select(['id', 'content']).where('document_id', '=', doc.id).execute();
    expect(passages).toEqual([{ id: `${doc.id}:0`, content: 'Some notes' }]);
  });

  it('refuses two passages of the archive at one place of a document', async () => {
    const document = rows.document();
    const id = String(document.id);
    await expectRefused(
      t,
      attacker,
      archiveOf({ kb_documents: [document], kb_passages: [rows.passage(id, 0), rows.passage(id, 0, { id: `${id}:9` })] }),
      new RegExp(`kb_passages record ${id}:9 \\(line 2 of data/kb_passages\\.jsonl\\): another passage of the archive is at ordinal 0 of document ${id}`),
    );
  });
});

describe('values their modules never write', () => {
  const memoryCases: Array<[string, Record_, RegExp]> = [
    ['tags that are not a list', { tags: { not: 'a list' } }, /the field tags must be a list of strings/],
    ['tags holding a number', { tags: ['ok', 3] }, /the field tags must be a list of strings/],
    ['an unknown kind', { kind: 'bogus-kind' }, /the field kind must be one of "fact", "preference", "event", "instruction", "note"/],
    ['an unknown channel', { channel: 'carrier-pigeon' }, /the field channel must be one of "api"/],
    ['a time that is no time', { created_at: 'yesterday' }, /the field created_at must be a time as Hearth stores it: ISO 8601 in UTC with milliseconds/],
    ['a time in another spelling', { valid_from: '2024-05-01 12:00:00' }, /the field valid_from must be a time as Hearth stores it/],
    ['an author of another shape', { author: { token: 'tok_x' } }, /the field author must be an author as Hearth records it/],
    ['a source of another kind', { source: { kind: 'rumour' } }, /the field source must be a source as the memory API takes it/],
    ['supersedes as an object', { supersedes: { mem_a: true } }, /the field supersedes must be a list of strings/],
    ['supersedes as a number', { supersedes: 3 }, /the field supersedes must be a list of strings/],
    ['supersedes as a string', { supersedes: 'mem_a' }, /the field supersedes must be a list of strings/],
  ];
  for (const [name, over, message] of memoryCases) {
    it(`refuses a memory entry with ${name}, naming the record and the field`, async () => {
      const entry = rows.memory(over);
      await expectRefused(t, attacker, archiveOf({ memory_entries: [rows.memory(), entry] }), new RegExp(`memory_entries record ${String(entry.id)} \\(line 2 of data/memory_entries\\.jsonl\\): ${message.source}`));
    });
  }

  it("leaves the account's memory readable (it once answered 500 to every listing of its history)", async () => {
    await expectRefused(t, attacker, archiveOf({ memory_entries: [rows.memory({ tags: { not: 'a list' } })] }), /tags/);
    const listed = await t.request('GET', '/api/v1/memory', { token: attacker.token, query: { include: 'history' } });
    expect(listed.status).toBe(200);
  });

  it('refuses other modules\' lists and enumerations too, and a document whose size is not its content\'s', async () => {
    const conversation = rows.conversation();
    const document = rows.document();
    const cases: Array<[Record<string, Record_[]>, RegExp]> = [
      [{ chat_conversations: [conversation], chat_messages: [rows.message(String(conversation.id), { role: 'system' })] }, /chat_messages record .*: the field role must be one of "user", "assistant"/],
      [{ chat_conversations: [conversation], chat_messages: [rows.message(String(conversation.id), { sources: 'none' })] }, /the field sources must be a list of sources/],
      [{ kb_documents: [document], kb_passages: [rows.passage(String(document.id), 0, { heading_path: [1] })] }, /kb_passages record .*: the field heading_path must be a list of strings/],
      [{ kb_documents: [rows.document({ content: 'été', size_bytes: 3 })] }, /kb_documents record .*: the field size_bytes must be the size of its content in bytes of UTF-8 \(5\)/],
      [{ personas: [rows.persona({ created_at: '1714564800000' })] }, /personas record .*: the field created_at must be a time/],
    ];
    for (const [tables, message] of cases) await expectRefused(t, attacker, archiveOf(tables), message);
  });
});

describe('secrets of the wrong shape, opened with the right passphrase', () => {
  const token = rows.vaultToken();
  const cases: Array<[string, string, RegExp]> = [
    ['text that is not JSON', 'these are not secrets', /secrets\.enc\.json, opened with the passphrase, does not hold JSON/],
    ['null', 'null', /secrets\.enc\.json, opened with the passphrase, does not hold a JSON object of secrets/],
    ['a vault secret that is a number', JSON.stringify({ vault_tokens: { [String(token.id)]: 42 } }), new RegExp(`the secret of vault_tokens record ${String(token.id)} in secrets\\.enc\\.json must be a string`)],
    ['vault tokens that are a list', JSON.stringify({ vault_tokens: ['sk-live'] }), /holds vault_tokens that is not an object of secrets by record id/],
    ['an OAuth connection without its access token', JSON.stringify({ oauth_connections: { oac_x: { refresh_token: null } } }), /the secret of oauth_connections record oac_x in secrets\.enc\.json must be \{ "access_token": string/],
  ];
  for (const [name, plain, message] of cases) {
    it(`refuses ${name}`, async () => {
      await expectRefused(t, attacker, await withSecrets({ vault_tokens: [token] }, plain), message, { passphrase: PASSPHRASE });
    });
  }

  it("leaves out a vault token whose id is an Object.prototype name (toString), as any whose secret the archive lacks", async () => {
    const report = (await ok(await importArchive(t, attacker, await withSecrets({ vault_tokens: [rows.vaultToken({ id: 'toString' })] }, JSON.stringify({ vault_tokens: {} })), { passphrase: PASSPHRASE }), 200)).data;
    expect(report.tables.vault_tokens).toMatchObject({ added: 0, skipped: 1 });
    expect(report.issues).toEqual([expect.objectContaining({ table: 'vault_tokens', id: 'toString', outcome: 'skipped', reason: expect.stringMatching(/its secret is not in the archive/) })]);
  });
});

describe('skills whose ids are taken on the server', () => {
  it('are all imported: a number the database gave and no one holds is kept, the others are numbered by it, links following', async () => {
    // A server of its own: skill ids are the database's, counted across accounts.
    const s = await createTestApp();
    try {
      const other = await s.createOwner('Other');
      const skill = async (name: string) =>
        (await ok(await s.request('POST', '/api/v1/skills', { token: other.token, body: { name, description: 'Held', category: 'x', scriptContent: 'Hold.' } }), 201)).data.id as number;
      const held = await skill('held-skill');
      const spare = await skill('spare-skill');
      await ok(await s.request('DELETE', `/api/v1/skills/${spare}`, { token: other.token }), 200);
      // The archive's skills: one with the id the other account holds, one with a number given
      // and freed, one with the largest number the API takes (kept, it would move the counter of
      // every account's skills to its end).
      const persona = rows.persona();
      const top = 2_147_483_647;
      const archive = archiveOf({
        personas: [persona],
        skills: [rows.skill(held, 'first-skill'), rows.skill(spare, 'second-skill'), rows.skill(top, 'top-skill')],
        persona_skills: [
          { persona_id: persona.id, skill_id: held, created_at: NOW },
          { persona_id: persona.id, skill_id: spare, created_at: NOW },
          { persona_id: persona.id, skill_id: top, created_at: NOW },
        ],
      });
      const owner = await s.createOwner('Importer');
      const dry = (await ok(await importArchive(s, owner, archive, { dryRun: 'true' }), 200)).data;
      expect(dry.tables.skills).toMatchObject({ added: 3, conflicts: 0, renumbered: 2 });
      const report = (await ok(await importArchive(s, owner, archive), 200)).data;
      expect(report.issues).toEqual([]);
      expect(report.tables.skills).toMatchObject({ added: 3, conflicts: 0, renumbered: 2 });
      expect(report.tables.persona_skills).toMatchObject({ added: 3 });
      const skills = (await ok(await s.request('GET', '/api/v1/skills', { token: owner.token }), 200)).data as Array<{ id: number; slug: string }>;
      expect(skills.map((skill) => skill.slug).sort()).toEqual(['first-skill', 'second-skill', 'top-skill']);
      expect(skills.find((skill) => skill.slug === 'second-skill')!.id).toBe(spare);
      for (const slug of ['first-skill', 'top-skill']) expect(skills.find((skill) => skill.slug === slug)!.id).toBeGreaterThan(spare);
      expect(Math.max(...skills.map((skill) => skill.id))).toBeLessThan(100);
      const attached = (await ok(await s.request('GET', `/api/v1/personas/${String(persona.id)}/skills`, { token: owner.token }), 200)).data as Array<{ slug: string }>;
      expect(attached.map((skill) => skill.slug).sort()).toEqual(['first-skill', 'second-skill', 'top-skill']);
      // The database numbers the next skill past them all, for every account.
      const next = (await ok(await s.request('POST', '/api/v1/skills', { token: other.token, body: { name: 'fourth-skill', description: 'Fourth', category: 'x', scriptContent: 'Four.' } }), 201)).data.id as number;
      expect(next).toBeGreaterThan(Math.max(...skills.map((skill) => skill.id)));
      expect(next).toBeLessThan(100);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('keep their numbers on a new server, and its next skill is numbered past them', async () => {
    const s = await createTestApp();
    try {
      const persona = rows.persona();
      const archive = archiveOf({
        personas: [persona],
        skills: [rows.skill(57, 'moved-skill'), rows.skill(9_000, 'later-skill')],
        persona_skills: [{ persona_id: persona.id, skill_id: 9_000, created_at: NOW }],
      });
      const owner = await s.createOwner('Moving in');
      const dry = (await ok(await importArchive(s, owner, archive, { dryRun: 'true' }), 200)).data;
      expect(dry.tables.skills).toMatchObject({ added: 2, renumbered: 0 });
      const report = (await ok(await importArchive(s, owner, archive), 200)).data;
      expect(report.tables.skills).toMatchObject({ added: 2, renumbered: 0 });
      const skills = (await ok(await s.request('GET', '/api/v1/skills', { token: owner.token }), 200)).data as Array<{ id: number; slug: string }>;
      expect(skills.map((skill) => [skill.slug, skill.id]).sort()).toEqual([
        ['later-skill', 9_000],
        ['moved-skill', 57],
      ]);
      const next = (await ok(await s.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'new-skill', description: 'New', category: 'x', scriptContent: 'New.' } }), 201)).data.id as number;
      expect(next).toBe(9_001);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('refuses a skill number the skills API cannot read', async () => {
    for (const id of [0, -1, 2_147_483_648]) {
      await expectRefused(t, attacker, archiveOf({ skills: [rows.skill(id, `bad-${String(id).replace('-', 'm')}`)] }), /the field id must be a whole number from (1|-2147483648) to 2147483647/);
    }
  });
});

// The import counts against the plan with the limits service src/container.ts hands the
// portability service (`limits` in buildPortability); without it these answer 200.
describe('plan limits (counted when src/container.ts hands portability the limits service)', () => {
  let p: TestApp;
  let dir: string;
  let owner: Owner;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hearth-plans-'));
    const plansFile = path.join(dir, 'plans.json');
    writeFileSync(
      plansFile,
      JSON.stringify({
        plans: [{ id: 'free', name: 'Free', price: 0, currency: 'usd', interval: 'month', limits: { memoryEntries: 3, knowledgeBytes: 100, vaultTokens: 1, devices: 1, apiRequestsPerDay: null } }],
      }),
    );
    p = await createTestApp({ config: { planLimits: true, plansFile } });
    // The first account is the administrator, whom no plan limits.
    await p.createOwner('Administrator');
    owner = await p.createOwner('Free plan');
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusedForPlan = async (archive: Buffer, limit: string, details: Record<string, unknown>, fields: Record<string, string> = {}) => {
    for (const dryRun of ['true', 'false']) {
      const before = await countsOf(p, owner);
      const body = expectError(await importArchive(p, owner, archive, { ...fields, dryRun }), 402, 'PLAN_LIMIT_REACHED');
      expect(body.message).toContain(`Plan limit reached: ${limit}`);
      expect(body.details).toMatchObject({ limit, planId: 'free', ...details });
      expect(await countsOf(p, owner)).toEqual(before);
    }
  };

  it('refuses an import adding more memory entries than the plan allows (402, nothing imported); up to the limit is fine', async () => {
    await refusedForPlan(archiveOf({ memory_entries: [rows.memory(), rows.memory(), rows.memory(), rows.memory()] }), 'memoryEntries', { used: 0, max: 3, adding: 4 });
    const report = (await ok(await importArchive(p, owner, archiveOf({ memory_entries: [rows.memory(), rows.memory()] })), 200)).data;
    expect(report.tables.memory_entries).toMatchObject({ added: 2 });
    await refusedForPlan(archiveOf({ memory_entries: [rows.memory(), rows.memory()] }), 'memoryEntries', { used: 2, max: 3, adding: 2 });
  });

  it('counts knowledge-base bytes and vault tokens the same way', async () => {
    await refusedForPlan(archiveOf({ kb_documents: [rows.document({ content: 'x'.repeat(101) })] }), 'knowledgeBytes', { used: 0, max: 100, adding: 101 });
    const tokens = [rows.vaultToken(), rows.vaultToken({ name: 'github', service: 'github', service_key: 'github' })];
    const secrets = JSON.stringify({ vault_tokens: Object.fromEntries(tokens.map((token) => [token.id, 'sk-secret'])) });
    await refusedForPlan(await withSecrets({ vault_tokens: tokens }, secrets), 'vaultTokens', { used: 0, max: 1, adding: 2 }, { passphrase: PASSPHRASE });
  });
});
