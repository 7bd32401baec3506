/**
 * Writes one owner's archive to a file, streaming: rows are read a page at a time and pushed
 * through a deflating zip writer (fflate) into the file, waiting whenever the file falls behind,
 * so memory holds a page of rows and the compressor's window whatever the account's size.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { Zip, ZipDeflate } from 'fflate';
import type { Executor } from '../../storage/columns.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { API_VERSION } from '../../version.js';
import { sealSecrets } from './portability.crypto.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  carriedColumns,
  dataFile,
  MANIFEST_FILE,
  rowToArchive,
  SECRETS_FILE,
  type CarriedTable,
} from './portability.format.js';
import { frontmatter, pageNamer, safeFileName } from './portability.markdown.js';
import type { PortabilityTables } from './portability.tables.js';

const PAGE = 500;

/** Opens a value sealed under this server's keys (the keyring's `open`). */
export type OpenSealed = (ownerId: string, context: string, sealed: string) => Promise<string>;

/**
 * The keyring's record names for the secrets an archive can carry: the contexts the vault, the
 * OAuth connections and the webhooks seal their secrets under (a sealed value opens only with
 * its own), read here to open them for an export and to seal them again on import.
 */
export const secretContexts = {
  vault: (id: string) => `vault_tokens:${id}`,
  oauth: (provider: string, what: 'access_token' | 'refresh_token') => `oauth_connections:${provider}:${what}`,
  webhook: (id: string) => `webhook_endpoints:${id}`,
};

/** The plain secrets an archive with a passphrase carries, by record id. */
export interface ArchiveSecrets {
  vault_tokens: Record<string, string>;
  oauth_connections: Record<string, { access_token: string; refresh_token: string | null }>;
  webhook_endpoints: Record<string, string>;
}

export interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  createdAt: string;
  server: { name: 'Hearth'; version: string };
  owner: { id: string; email: string; name: string | null };
  counts: Record<string, number>;
  secrets: null | { file: string; kdf: Record<string, unknown>; cipher: Record<string, unknown>; counts: Record<string, number> };
  files: ManifestFile[];
}

export interface ExportOptions {
  db: Executor<PortabilityTables>;
  /** The tables an archive carries (`carriedTables`). */
  tables: readonly CarriedTable[];
  ownerId: string;
  /** Where the archive is written (the caller renames it once this resolves). */
  path: string;
  /** With a passphrase, the secrets are opened and carried encrypted with it. */
  passphrase?: string | undefined;
  openSealed: OpenSealed;
  now: string;
  onProgress(done: number, total: number): Promise<void> | void;
}

/** The rows of one carried table for the owner, a page at a time, in key order. */
async function* ownerRows(db: Executor<PortabilityTables>, table: CarriedTable, ownerId: string, columns: string[]): AsyncGenerator<Record<string, unknown>[]> {
  // Sealed columns are read only to open them (never written out).
  const select = [...new Set([...columns, ...table.key.filter((k) => k !== 'owner_id'), ...(table.omitted.includes('secret_sealed') ? ['secret_sealed'] : [])])];
  if (table.name === 'oauth_connections') select.push('provider', 'access_token_sealed', 'refresh_token_sealed');
  const d = db as Executor;
  if (table.key.length !== 1 || table.key[0] === 'owner_id') {
    // One row per owner, or a join table: small enough to read at once.
    yield (await d.selectFrom(table.name).select(select).where('owner_id', '=', ownerId).orderBy(table.key[0]!).execute()) as Record<string, unknown>[];
    return;
  }
  const key = table.key[0]!;
  let after: unknown;
  for (;;) {
    let query = d.selectFrom(table.name).select(select).where('owner_id', '=', ownerId).orderBy(key).limit(PAGE);
    if (after !== undefined) query = query.where(key, '>', after);
    const rows = (await query.execute()) as Record<string, unknown>[];
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]![key];
  }
}

/** The archive file being written: entries are added one after another, each streamed through deflate. */
interface ZipSink {
  openFile(path: string): { push(text: string): Promise<void>; end(): Promise<void> };
  writeWhole(path: string, text: string): Promise<void>;
  /** Adds the manifest, ends the zip and waits for the file to be closed. */
  finish(manifestText: string): Promise<{ bytes: number; sha256: string }>;
  abort(): Promise<void>;
  readonly files: ManifestFile[];
}

function createZipSink(path: string): ZipSink {
  const out: WriteStream = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const whole = createHash('sha256');
  let bytes = 0;
  let failed: Error | undefined;
  let backlog = false;
  out.on('error', (error) => (failed = error));
  const closed = new Promise<void>((resolve, reject) => {
    out.on('close', () => (failed ? reject(failed) : resolve()));
  });
  const zip = new Zip((error, chunk, final) => {
    if (error) {
      failed = error;
      return;
    }
    whole.update(chunk);
    bytes += chunk.length;
    if (!out.write(chunk)) backlog = true;
    if (final) out.end();
  });
  /** Lets the file catch up when it has fallen behind (bounded memory). */
  const drain = async () => {
    if (failed) throw failed;
    if (!backlog) return;
    await new Promise<void>((resolve) => out.once('drain', resolve));
    backlog = false;
  };
  const files: ManifestFile[] = [];
  const openFile = (name: string) => {
    const entry = new ZipDeflate(name, { level: 6 });
    zip.add(entry);
    const hash = createHash('sha256');
    let size = 0;
    return {
      async push(text: string) {
        const data = Buffer.from(text, 'utf8');
        hash.update(data);
        size += data.length;
        entry.push(data, false);
        await drain();
      },
      async end() {
        entry.push(new Uint8Array(0), true);
        files.push({ path: name, bytes: size, sha256: hash.digest('hex') });
        await drain();
      },
    };
  };
  return {
    files,
    openFile,
    async writeWhole(name, text) {
      const file = openFile(name);
      await file.push(text);
      await file.end();
    },
    async finish(manifestText) {
      const entry = new ZipDeflate(MANIFEST_FILE, { level: 6 });
      zip.add(entry);
      entry.push(Buffer.from(manifestText, 'utf8'), true);
      zip.end();
      await drain();
      await closed;
      return { bytes, sha256: whole.digest('hex') };
    },
    async abort() {
      out.destroy();
      // The write's own error, if any, is what the caller reports; the file is removed by it.
      await ignoreFailure(closed, 'the archive is being abandoned; the error that stopped it is the one reported');
    },
  };
}

async function countRows(db: Executor, tables: readonly CarriedTable[], ownerId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = (await db.selectFrom(table.name).select((eb) => eb.fn.countAll().as('n')).where('owner_id', '=', ownerId).executeTakeFirst()) as { n: number | string | bigint };
    counts[table.name] = Number(row.n);
  }
  return counts;
}

/** Writes the archive; answers its manifest. Throws (and leaves a partial file for the caller to remove) on failure. */
export async function writeArchive(options: ExportOptions): Promise<{ manifest: Manifest; bytes: number; sha256: string }> {
  const { db, tables, ownerId } = options;
  const d = db as Executor;
  const owner = (await d.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', ownerId).executeTakeFirstOrThrow()) as Manifest['owner'];
  const counts = await countRows(d, tables, ownerId);
  // Progress counts the rows of the machine-readable copy; the Markdown pages follow them.
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  let done = 0;
  const sink = createZipSink(options.path);
  const secrets: ArchiveSecrets = { vault_tokens: {}, oauth_connections: {}, webhook_endpoints: {} };
  const withSecrets = options.passphrase !== undefined;
  try {
    // The machine-readable copy: one JSON object per row.
    for (const table of tables) {
      const columns = carriedColumns(table).map(([name]) => name);
      const file = sink.openFile(dataFile(table.name));
      for await (const page of ownerRows(db, table, ownerId, columns)) {
        for (const row of page) {
          await file.push(`${JSON.stringify(rowToArchive(table, row))}\n`);
          if (withSecrets) await collectSecret(table, row, ownerId, options.openSealed, secrets);
        }
        done += page.length;
        await options.onProgress(Math.min(done, total), total);
      }
      await file.end();
    }
    // The human-readable copy: Markdown pages with every field in their frontmatter.
    await writeReadable(db, tables, ownerId, sink.openFile, sink.writeWhole);
    const sealed = withSecrets ? await writeSecrets(sink, options.passphrase!, secrets) : null;
    await sink.writeWhole('README.md', ARCHIVE_README);
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      formatVersion: ARCHIVE_FORMAT_VERSION,
      createdAt: options.now,
      server: { name: 'Hearth', version: API_VERSION },
      owner,
      counts,
      secrets: sealed,
      files: sink.files,
    };
    const written = await sink.finish(`${JSON.stringify(manifest, null, 2)}\n`);
    return { manifest, ...written };
  } catch (error) {
    await sink.abort();
    throw error;
  }
}

/** The secrets, encrypted with the passphrase, as their own file; answers what the manifest says of them. */
async function writeSecrets(sink: ZipSink, passphrase: string, secrets: ArchiveSecrets): Promise<Manifest['secrets']> {
  const envelope = await sealSecrets(passphrase, JSON.stringify(secrets));
  await sink.writeWhole(SECRETS_FILE, `${JSON.stringify(envelope, null, 2)}\n`);
  return {
    file: SECRETS_FILE,
    kdf: envelope.kdf,
    cipher: { name: envelope.cipher.name, aad: envelope.cipher.aad },
    counts: {
      vault_tokens: Object.keys(secrets.vault_tokens).length,
      oauth_connections: Object.keys(secrets.oauth_connections).length,
      webhook_endpoints: Object.keys(secrets.webhook_endpoints).length,
    },
  };
}

async function collectSecret(table: CarriedTable, row: Record<string, unknown>, ownerId: string, open: OpenSealed, secrets: ArchiveSecrets): Promise<void> {
  const id = String(row.id);
  if (table.name === 'vault_tokens') secrets.vault_tokens[id] = await open(ownerId, secretContexts.vault(id), String(row.secret_sealed));
  if (table.name === 'webhook_endpoints') secrets.webhook_endpoints[id] = await open(ownerId, secretContexts.webhook(id), String(row.secret_sealed));
  if (table.name === 'oauth_connections') {
    const provider = String(row.provider);
    secrets.oauth_connections[id] = {
      access_token: await open(ownerId, secretContexts.oauth(provider, 'access_token'), String(row.access_token_sealed)),
      refresh_token: row.refresh_token_sealed ? await open(ownerId, secretContexts.oauth(provider, 'refresh_token'), String(row.refresh_token_sealed)) : null,
    };
  }
}

type OpenFile = (path: string) => { push(text: string): Promise<void>; end(): Promise<void> };

/** Memory, knowledge, personas and skills as Markdown; identity and preferences as YAML frontmatter. */
async function writeReadable(
  db: Executor<PortabilityTables>,
  tables: readonly CarriedTable[],
  ownerId: string,
  openFile: OpenFile,
  writeWhole: (path: string, text: string) => Promise<void>,
): Promise<void> {
  const tableNamed = (name: CarriedTable['name']) => tables.find((table) => table.name === name)!;
  // Each folder's names are unique within it (pageNamer); a skill's folder is unique by its
  // number, which the slug after it only makes readable.
  const [memoryName, knowledgeName, personaName] = [pageNamer(), pageNamer(), pageNamer()];
  const pages: Array<{ table: CarriedTable['name']; path: (row: Record<string, unknown>) => string; body: string }> = [
    { table: 'memory_entries', path: (row) => `memory/${memoryName(String(row.id))}.md`, body: 'content' },
    { table: 'kb_documents', path: (row) => `knowledge/${knowledgeName(String(row.id))}.md`, body: 'content' },
    { table: 'personas', path: (row) => `personas/${personaName(String(row.id))}.md`, body: 'soul_content' },
    { table: 'skills', path: (row) => `skills/${row.id}-${safeFileName(String(row.slug))}/SKILL.md`, body: 'script_content' },
  ];
  for (const page of pages) {
    const table = tableNamed(page.table);
    const columns = carriedColumns(table).map(([name]) => name);
    for await (const rows of ownerRows(db, table, ownerId, columns)) {
      for (const row of rows) {
        const fields = rowToArchive(table, row);
        const body = String(fields[page.body] ?? '');
        delete fields[page.body];
        // A skill's SKILL.md leads with the two fields the format names.
        const ordered = page.table === 'skills' ? { name: fields.name, description: fields.description, ...fields } : fields;
        const file = openFile(page.path(row));
        await file.push(`${frontmatter(ordered)}\n${body}${body.endsWith('\n') ? '' : '\n'}`);
        await file.end();
      }
    }
  }
  for (const name of ['identity', 'preferences'] as const) {
    const table = tableNamed(name);
    const row = (await (db as Executor).selectFrom(name).select(['document', 'updated_at']).where('owner_id', '=', ownerId).executeTakeFirst()) as
      | Record<string, unknown>
      | undefined;
    const fields = row ? rowToArchive(table, row) : { document: {}, updated_at: null };
    const document = (fields.document ?? {}) as Record<string, unknown>;
    await writeWhole(`${name}.md`, `${frontmatter({ ...document, updated_at: fields.updated_at })}\n# ${name === 'identity' ? 'Identity' : 'Preferences'}\n\nEvery field is in the frontmatter above.\n`);
  }
}

const ARCHIVE_README = `# A Hearth archive

- \`manifest.json\`: the format and its version, the counts of every resource, and each file's size and SHA-256.
- \`data/<table>.jsonl\`: every record, one JSON object per line, with every field and id as Hearth stores them.
  \`POST /api/v1/import\` reads these files.
- \`memory/\`, \`knowledge/\`, \`personas/\`, \`skills/<id>-<slug>/SKILL.md\`, \`identity.md\`, \`preferences.md\`:
  the same records as Markdown, every field in the YAML frontmatter, to read or to take to another tool.
  A page is named by its record's id; an id that is not a plain file name gets its characters
  replaced and \`~\` with a short hash of it added (the id itself is in the frontmatter).
- \`secrets.enc.json\` (only when the export was asked with a passphrase): vault secrets, OAuth tokens and
  webhook signing secrets, encrypted with scrypt and AES-256-GCM; the parameters are in the file.

Token secrets are never exported (only their names, scopes and dates), nor device keys. Knowledge
documents are kept as their text: Hearth does not keep the original uploaded files.
`;
