/**
 * Reading a Hearth archive from outside and writing it into an account (docs/data-portability.md).
 *
 * Nothing in the archive is trusted: the zip directory is read without believing its sizes
 * (src/lib/zip.ts), entry names must be plain relative paths, every file must be the one the
 * manifest lists with its SHA-256, text must be UTF-8, and every row must hold what its columns
 * hold. Any of these fails the whole import before or during the one transaction it runs in,
 * so a refused archive changes nothing.
 *
 * Merging into an account that has data never overwrites: a row whose key is already the
 * owner's is left as it is (counted `unchanged` when it is the same, reported as a conflict when
 * it differs); a row whose id another account holds on this server gets a new id, and the rows
 * pointing at it follow; a row that would take a name the owner already uses (a document's
 * title, a skill's slug, a connector's name, an OAuth provider, a second active persona) is a
 * conflict too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { AppError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { siteBindingRefusal } from '../../lib/same-site.js';
import { inflateZipEntry, readZipDirectory, unsafeEntryName, type ZipEntry, type ZipRefusals } from '../../lib/zip.js';
import type { Executor } from '../../storage/columns.js';
import type { Dialect } from '../../storage/dialect.js';
import { openSecrets, WrongPassphrase, type SealedSecrets } from './portability.crypto.js';
import { secretContexts, type ArchiveSecrets, type Manifest } from './portability.export.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  dataFile,
  isNullableColumn,
  MANIFEST_FILE,
  rowFromArchive,
  rowToArchive,
  SECRETS_FILE,
  type CarriedTable,
  type CarriedTableName,
} from './portability.format.js';

const MiB = 1024 * 1024;

export interface ImportLimits {
  /** The most the archive's files may expand to, together. */
  maxInflatedBytes: number;
  /**
   * The most one file may expand to: each is inflated whole (to check its checksum, then to read
   * it), and a table's is decoded to one string, so this bounds what one import holds at once.
   */
  maxFileBytes: number;
  maxEntries: number;
}

export interface TableReport {
  added: number;
  unchanged: number;
  conflicts: number;
  skipped: number;
  renumbered: number;
}

export interface ImportReport {
  dryRun: boolean;
  format: { name: string; version: number; createdAt: string };
  tables: Record<string, TableReport>;
  /** The first conflicts and skipped rows, each with why (at most 200). */
  issues: Array<{ table: string; id: string; outcome: 'conflict' | 'skipped'; reason: string }>;
  notes: string[];
}

const MAX_ISSUES = 200;

function refused(message: string): AppError {
  return new AppError('VALIDATION_ERROR', `The archive is refused: ${message}. Nothing was imported`);
}

function refusals(budget: number): ZipRefusals {
  return {
    damaged: (why) => refused(`it is not a readable zip file (${why})`),
    tooLarge: () =>
      new AppError('PAYLOAD_TOO_LARGE', `The archive is refused: its files expand beyond ${Math.round(budget / MiB)} MiB, the import limit. Nothing was imported`),
    lying: (name, beyond) => refused(`${name} ${beyond ? 'expands beyond' : 'does not expand to'} the size its zip directory declares`),
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(data: Buffer, name: string): string {
  try {
    return utf8.decode(data);
  } catch {
    throw refused(`${name} is not valid UTF-8 text`);
  }
}

/** A checked archive: its manifest, and its files' contents on demand (each checked against the manifest). */
export interface OpenedArchive {
  manifest: Manifest;
  text(name: string): string | undefined;
}

/**
 * Reads and checks the archive: the directory, every entry's name, the manifest, and every
 * file's size and SHA-256 against it (each file inflated once here and dropped, so memory holds
 * one file at a time). Throws a 4xx AppError for anything wrong.
 */
export function openArchive(data: Buffer, limits: ImportLimits): OpenedArchive {
  const refuse = refusals(limits.maxInflatedBytes);
  const entries = readZipDirectory(data, limits.maxInflatedBytes, refuse, limits.maxEntries);
  const byName = new Map<string, ZipEntry>();
  for (const entry of entries) {
    let name: string;
    try {
      name = utf8.decode(entry.nameBytes);
    } catch {
      throw refused('an entry name is not valid UTF-8');
    }
    const unsafe = unsafeEntryName(name);
    if (unsafe) throw refused(`the entry name ${JSON.stringify(name.slice(0, 100))} holds ${unsafe}`);
    // Refused from the directory, before anything is inflated: a file declaring its size honestly
    // is inflated to exactly that (a few KiB of upload can declare and hold gigabytes of spaces).
    if (entry.size > limits.maxFileBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The archive is refused: ${name.slice(0, 100)} expands to ${Math.ceil(entry.size / MiB)} MiB; one file of an archive may hold at most ${Math.round(limits.maxFileBytes / MiB)} MiB. Nothing was imported`,
        { details: { file: name.slice(0, 200), bytes: entry.size, maxBytes: limits.maxFileBytes } },
      );
    }
    if (byName.has(name)) throw refused(`${name} is in it twice`);
    byName.set(name, entry);
  }
  const manifestEntry = byName.get(MANIFEST_FILE);
  if (!manifestEntry) throw refused(`it has no ${MANIFEST_FILE}; is it an archive made by Hearth's export?`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(decodeUtf8(inflateZipEntry(data, manifestEntry, refuse), MANIFEST_FILE)) as Manifest;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw refused(`${MANIFEST_FILE} is not valid JSON`);
  }
  if (manifest?.format !== ARCHIVE_FORMAT) throw refused(`${MANIFEST_FILE} does not describe a Hearth archive`);
  if (manifest.formatVersion !== ARCHIVE_FORMAT_VERSION) {
    throw refused(`it is in format version ${String(manifest.formatVersion)}; this server reads version ${ARCHIVE_FORMAT_VERSION}`);
  }
  if (!Array.isArray(manifest.files)) throw refused(`${MANIFEST_FILE} lists no files`);
  const listed = new Map<string, { bytes: number; sha256: string }>();
  for (const file of manifest.files) {
    if (typeof file?.path !== 'string' || typeof file.sha256 !== 'string' || typeof file.bytes !== 'number') throw refused(`${MANIFEST_FILE} lists a file without its path, size and checksum`);
    listed.set(file.path, file);
  }
  for (const name of byName.keys()) {
    if (name !== MANIFEST_FILE && !listed.has(name)) throw refused(`${name} is not listed in ${MANIFEST_FILE}`);
  }
  for (const [name, file] of listed) {
    const entry = byName.get(name);
    if (!entry) throw refused(`${name}, listed in ${MANIFEST_FILE}, is missing`);
    const content = inflateZipEntry(data, entry, refuse);
    if (content.length !== file.bytes || createHash('sha256').update(content).digest('hex') !== file.sha256) {
      throw refused(`${name} does not match its checksum in ${MANIFEST_FILE} (the archive was altered or damaged)`);
    }
  }
  return {
    manifest,
    text(name) {
      const entry = byName.get(name);
      return entry ? decodeUtf8(inflateZipEntry(data, entry, refuse), name) : undefined;
    },
  };
}

/** The secrets an archive carries, opened with the passphrase; 400 when it is wrong. */
export async function archiveSecrets(archive: OpenedArchive, passphrase: string | undefined): Promise<ArchiveSecrets | null> {
  const text = archive.text(SECRETS_FILE);
  if (text === undefined || passphrase === undefined) return null;
  let sealed: SealedSecrets;
  try {
    sealed = JSON.parse(text) as SealedSecrets;
  } catch {
    throw refused(`${SECRETS_FILE} is not valid JSON`);
  }
  let plain: string;
  try {
    plain = await openSecrets(passphrase, sealed);
  } catch (error) {
    if (error instanceof WrongPassphrase) {
      throw new AppError('VALIDATION_ERROR', 'The passphrase does not open the archive\'s secrets: send the passphrase the export was made with. Nothing was imported', {
        details: [{ field: 'passphrase', message: 'is wrong' }],
      });
    }
    throw refused(`${SECRETS_FILE} cannot be read (${(error as Error).message})`);
  }
  const secrets = JSON.parse(plain) as ArchiveSecrets;
  return { vault_tokens: secrets.vault_tokens ?? {}, oauth_connections: secrets.oauth_connections ?? {}, webhook_endpoints: secrets.webhook_endpoints ?? {} };
}

export interface ApplyOptions {
  trx: Executor;
  /** The tables an archive carries (`carriedTables`), written in this order. */
  tables: readonly CarriedTable[];
  dialect: Dialect;
  ownerId: string;
  archive: OpenedArchive;
  secrets: ArchiveSecrets | null;
  seal(ownerId: string, context: string, plaintext: string): Promise<string>;
  dryRun: boolean;
  /** Told how many of the archive's records are done, a few times a second at most, and at the start and end. */
  onProgress?: ImportProgress | undefined;
}

export type ImportProgress = (done: number, total: number) => void;

/** How often an import tells its progress: often enough for a bar to move, seldom enough to cost nothing. */
const PROGRESS_EVERY_MS = 200;

type Row = Record<string, unknown>;

const keyOf = (table: CarriedTable, row: Row) => table.key.map((k) => String(row[k])).join('\u0000');
const sameRow = (table: CarriedTable, a: Row, b: Row) => JSON.stringify(rowToArchive(table, a)) === JSON.stringify(rowToArchive(table, b));

/** A new id like an old one: the same prefix (`mem_…`), a new unique part. */
function renumber(id: string): string {
  const prefix = /^([a-z]+)_/.exec(id)?.[1];
  return newId(prefix ?? 'imp');
}

/**
 * The archive's lines of one table, parsed one at a time as they are written: a line that is not
 * a JSON object refuses the archive. One row is held at a time, not the whole table's (a file of
 * millions of short lines would be millions of objects at once).
 */
function* archiveLines(archive: OpenedArchive, table: CarriedTable): Generator<Row> {
  const text = archive.text(dataFile(table.name));
  if (text === undefined) return;
  let number = 0;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    start = end === -1 ? text.length : end + 1;
    number += 1;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw refused(`line ${number} of ${dataFile(table.name)} is not valid JSON`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refused(`line ${number} of ${dataFile(table.name)} is not a JSON object`);
    yield value as Row;
  }
}

/** Writes the archive's rows into the owner's account inside `trx`; answers what it did (or, in a dry run, would do). */
export async function applyArchive(options: ApplyOptions): Promise<ImportReport> {
  const importer = new ArchiveImporter(options);
  for (const table of options.tables) await importer.importTable(table);
  const report = importer.finish();
  importer.progress.end();
  return report;
}

/**
 * Counts the records an import has gone through against the total the manifest declares (which
 * only sizes the bar: a manifest that understates it shows the bar full early, never past it).
 */
class ProgressCounter {
  private done = 0;
  private told = 0;
  readonly total: number;

  constructor(
    manifest: Manifest,
    tables: readonly CarriedTable[],
    private readonly tell: ImportProgress | undefined,
  ) {
    const counts = typeof manifest.counts === 'object' && manifest.counts !== null ? manifest.counts : {};
    let total = 0;
    for (const table of tables) {
      const count = Number((counts as Record<string, unknown>)[table.name]);
      if (Number.isSafeInteger(count) && count > 0) total += count;
    }
    this.total = total;
    tell?.(0, total);
  }

  step(records = 1): void {
    this.done += records;
    if (!this.tell || Date.now() - this.told < PROGRESS_EVERY_MS) return;
    this.told = Date.now();
    this.tell(Math.min(this.done, this.total), this.total);
  }

  end(): void {
    this.tell?.(this.total, this.total);
  }
}

/** The state of one import: what it did per table, and the rows renumbered or left out, which the rows pointing at them follow. */
class ArchiveImporter {
  readonly report: ImportReport;
  /** Old id to new id, per table, for the rows that were renumbered. */
  private readonly renumbered = new Map<CarriedTableName, Map<string, string | number>>();
  /** Rows left out (skipped or in conflict), per table: rows pointing at them are left out too. */
  private readonly leftOut = new Map<CarriedTableName, Set<string>>();
  /** The ids of the rows this import added (as they are now), per table. */
  private readonly added = new Map<CarriedTableName, Set<string>>();
  /**
   * SQLite: the values of each column unique within an owner (`uniqueWithinOwner`) that the
   * owner's rows hold, with the id holding each: read once a column, then kept as this import
   * adds rows. One query a row would read every memory entry of the owner each time: no index
   * holds their text keys there (memory.keys.ts). Nothing else commits to the file while the
   * import's transaction runs. PostgreSQL asks its unique indexes a row at a time: another
   * request may commit a row meanwhile, which is then a conflict, not a failed import.
   */
  private readonly taken = new Map<string, Map<string, string>>();
  private renewedWebhookSecrets = 0;
  private skillIdsGiven = false;
  private readonly d: Executor;
  readonly progress: ProgressCounter;

  constructor(private readonly options: ApplyOptions) {
    const { manifest } = options.archive;
    this.d = options.trx;
    this.progress = new ProgressCounter(manifest, options.tables, options.onProgress);
    this.report = {
      dryRun: options.dryRun,
      format: { name: manifest.format, version: manifest.formatVersion, createdAt: String(manifest.createdAt) },
      tables: {},
      issues: [],
      notes: [],
    };
  }

  private issue(table: CarriedTable, id: string, outcome: 'conflict' | 'skipped', reason: string, leaveOut = true): void {
    const counts = this.report.tables[table.name]!;
    if (outcome === 'conflict') counts.conflicts += 1;
    else counts.skipped += 1;
    if (leaveOut) this.leftOut.get(table.name)!.add(id);
    if (this.report.issues.length < MAX_ISSUES) this.report.issues.push({ table: table.name, id, outcome, reason });
  }

  async importTable(table: CarriedTable): Promise<void> {
    const counts: TableReport = { added: 0, unchanged: 0, conflicts: 0, skipped: 0, renumbered: 0 };
    this.report.tables[table.name] = counts;
    this.leftOut.set(table.name, new Set());
    const lines = archiveLines(this.options.archive, table);
    if (table.import === 'record') {
      let records = 0;
      for (const _ of lines) records += 1;
      counts.skipped = records;
      this.progress.step(records);
      if (records > 0) {
        this.report.notes.push(
          table.name === 'tokens'
            ? `${records} token record(s) are in the archive for reference and not imported: token secrets are never exported; create new tokens for your agents`
            : `${records} device record(s) are in the archive for reference and not imported: pair each device again (its key stays on the old server)`,
        );
      }
      return;
    }
    const nullable = (column: string) => isNullableColumn(table, column);
    const seen = new Set<string>();
    for (const line of lines) {
      this.progress.step();
      let row: Row;
      try {
        row = rowFromArchive(table, line, this.options.ownerId, nullable);
      } catch (error) {
        throw refused((error as Error).message);
      }
      const key = table.key[0] === 'owner_id' ? table.name : keyOf(table, row);
      if (seen.has(key)) throw refused(`${dataFile(table.name)} holds the record ${key} twice`);
      seen.add(key);
      const dangling = this.followReferences(table, row);
      if (dangling) {
        this.issue(table, key, 'skipped', dangling);
        continue;
      }
      if (table.key[0] === 'owner_id') await this.importOwnerDocument(table, row);
      else if (table.key.length > 1) await this.importJoinRow(table, row, key);
      else await this.importRecord(table, row);
    }
  }

  /**
   * Points the row's references at the ids their rows have here (renumbered ones followed);
   * answers why the row must be left out when one points at a row left out (a connector whose
   * vault token was not imported, a passage of a document in conflict).
   */
  private followReferences(table: CarriedTable, row: Row): string | undefined {
    let dangling: string | undefined;
    for (const ref of table.references) {
      const map = this.renumbered.get(ref.table);
      if (ref.list) {
        const ids = JSON.parse(String(row[ref.column])) as string[];
        row[ref.column] = JSON.stringify(ids.map((id) => map?.get(id) ?? id));
        continue;
      }
      const value = row[ref.column];
      if (value === null) continue;
      // The entries of a memory chain point both ways: links to an entry left out stay as they were.
      if (ref.table !== table.name && this.leftOut.get(ref.table)?.has(String(value))) dangling = `${ref.column} ${String(value)} was not imported`;
      if (map?.has(String(value))) row[ref.column] = map.get(String(value));
    }
    return dangling;
  }

  /** Identity or preferences: taken when the account has none (or an empty one), else the same or a conflict. */
  private async importOwnerDocument(table: CarriedTable, row: Row): Promise<void> {
    const counts = this.report.tables[table.name]!;
    const { ownerId } = this.options;
    const existing = (await this.d.selectFrom(table.name).selectAll().where('owner_id', '=', ownerId).executeTakeFirst()) as Row | undefined;
    if (!existing) {
      await this.d.insertInto(table.name).values(row).execute();
      counts.added += 1;
    } else if (sameRow(table, existing, row)) {
      counts.unchanged += 1;
    } else if (String(existing.document) === '{}') {
      await this.d.updateTable(table.name).set(row).where('owner_id', '=', ownerId).execute();
      counts.added += 1;
    } else {
      this.issue(table, table.name, 'conflict', `the account already has ${table.name === 'identity' ? 'an identity' : 'preferences'} with other content; nothing was changed`);
    }
  }

  /** An attachment: written when both ends are the owner's. */
  private async importJoinRow(table: CarriedTable, row: Row, key: string): Promise<void> {
    const counts = this.report.tables[table.name]!;
    let query = this.d.selectFrom(table.name).select('owner_id');
    for (const k of table.key) query = query.where(k, '=', row[k]);
    if (await query.executeTakeFirst()) {
      counts.unchanged += 1;
      return;
    }
    for (const ref of table.references) {
      const found = await this.d.selectFrom(ref.table).select('id').where('id', '=', row[ref.column]).where('owner_id', '=', this.options.ownerId).executeTakeFirst();
      if (!found) {
        this.issue(table, key, 'skipped', `${ref.column} ${String(row[ref.column])} is not in the account`);
        return;
      }
    }
    await this.d.insertInto(table.name).values(row).execute();
    counts.added += 1;
  }

  /** A record with an id: the same (skipped), a conflict, or added (under a new id when another account holds its own). */
  private async importRecord(table: CarriedTable, row: Row): Promise<void> {
    const counts = this.report.tables[table.name]!;
    const { ownerId } = this.options;
    const id = row.id as string | number;
    const existing = (await this.d.selectFrom(table.name).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
    if (existing && existing.owner_id === ownerId) {
      if (sameRow(table, existing, row)) counts.unchanged += 1;
      else this.issue(table, String(id), 'conflict', 'the account has a record with this id and other content; it was left as it is');
      return;
    }
    const conflict = await this.uniqueConflict(table, row);
    if (conflict) {
      this.issue(table, String(id), 'conflict', conflict);
      return;
    }
    // Secrets travel only in the encrypted part; without them a record that cannot work
    // without its secret is left out, and a webhook gets a new signing secret.
    const secret = secretOf(table, String(id), this.options.secrets);
    if (secret === 'missing') {
      this.issue(table, String(id), 'skipped', 'its secret is not in the archive (export with a passphrase, and import with it, to bring secrets)');
      return;
    }
    const binding = table.name === 'connectors' ? await this.bindingRefusal(row) : undefined;
    if (binding) {
      this.issue(table, String(id), 'skipped', binding);
      return;
    }
    // Another account on this server holds the id: this row gets a new one (skills: the database's).
    let finalId: string | number | undefined = id;
    if (existing) {
      finalId = typeof id === 'number' ? undefined : renumber(id);
      counts.renumbered += 1;
    }
    await this.sealSecrets(table, row, finalId ?? '', secret);
    finalId = await this.insert(table, row, finalId);
    for (const column of table.uniqueWithinOwner ?? []) {
      if (row[column] !== null && row[column] !== undefined) this.taken.get(`${table.name}\u0000${column}`)?.set(String(row[column]), String(finalId));
    }
    const added = this.added.get(table.name) ?? new Set<string>();
    added.add(String(finalId));
    this.added.set(table.name, added);
    if (finalId !== id) {
      const map = this.renumbered.get(table.name) ?? new Map<string, string | number>();
      map.set(String(id), finalId);
      this.renumbered.set(table.name, map);
    }
    counts.added += 1;
  }

  /**
   * Why a connector of the archive is left out: it would send a secret the account held before
   * this import to an address off the site the secret was stored for, or names a vault token the
   * account does not hold. Through the API that binding takes the master token or the account
   * password (connectors.service.ts, authoriseOffSite); an import asks for neither, so it never
   * makes one: a login session alone (a stolen one) could otherwise import a connector that sends
   * any stored secret to a server of its choosing, and call it. A secret the archive brought
   * itself (a vault token this import added) is the archive's to bind.
   */
  private async bindingRefusal(row: Row): Promise<string | undefined> {
    const tokenId = row.vault_token_id;
    if (tokenId === null || tokenId === undefined || this.added.get('vault_tokens')?.has(String(tokenId))) return undefined;
    const token = (await this.d
      .selectFrom('vault_tokens')
      .select('website_url')
      .where('id', '=', String(tokenId))
      .where('owner_id', '=', this.options.ownerId)
      .executeTakeFirst()) as { website_url: string } | undefined;
    if (!token) return `vault_token_id ${String(tokenId)} is not a vault token of the account`;
    const refusal = siteBindingRefusal(String(row.base_url), token.website_url);
    if (!refusal) return undefined;
    return `it would send vault token ${String(tokenId)}, stored for ${token.website_url}, to ${String(row.base_url)} (${refusal}); an import never sends a secret already in the account off its site: create this connector in the console, which asks for your password`;
  }

  /** Seals the row's secrets under this server's keys, bound to the record they belong to. */
  private async sealSecrets(table: CarriedTable, row: Row, id: string | number, secret: unknown): Promise<void> {
    const { ownerId, seal } = this.options;
    if (table.name === 'vault_tokens') row.secret_sealed = await seal(ownerId, secretContexts.vault(String(id)), secret as string);
    if (table.name === 'webhook_endpoints') {
      if (secret === null) this.renewedWebhookSecrets += 1;
      const plain = typeof secret === 'string' ? secret : `whsec_${randomBytes(32).toString('base64')}`;
      row.secret_sealed = await seal(ownerId, secretContexts.webhook(String(id)), plain);
    }
    if (table.name === 'oauth_connections') {
      const tokens = secret as { access_token: string; refresh_token: string | null };
      const provider = String(row.provider);
      row.access_token_sealed = await seal(ownerId, secretContexts.oauth(provider, 'access_token'), tokens.access_token);
      row.refresh_token_sealed = tokens.refresh_token === null ? null : await seal(ownerId, secretContexts.oauth(provider, 'refresh_token'), tokens.refresh_token);
    }
  }

  /** Why the row would take a name the owner already uses (or this import gave another row), or null. */
  private async uniqueConflict(table: CarriedTable, row: Row): Promise<string | null> {
    const { ownerId } = this.options;
    for (const column of table.uniqueWithinOwner ?? []) {
      const value = row[column];
      // NULL is equal to nothing, in SQL as here.
      if (value === null || value === undefined) continue;
      if (this.options.dialect === 'postgres') {
        const found = (await this.d.selectFrom(table.name).select('id').where('owner_id', '=', ownerId).where(column, '=', value).executeTakeFirst()) as Row | undefined;
        if (found) return `the account already has another record with this ${column.replace(/_key$/, '')} (${String(value)}, id ${String(found.id)})`;
        continue;
      }
      const key = `${table.name}\u0000${column}`;
      let values = this.taken.get(key);
      if (!values) {
        const held = (await this.d.selectFrom(table.name).select(['id', column]).where('owner_id', '=', ownerId).where(column, 'is not', null).execute()) as Row[];
        values = new Map(held.map((other) => [String(other[column]), String(other.id)]));
        this.taken.set(key, values);
      }
      const holder = values.get(String(value));
      if (holder !== undefined) return `the account already has another record with this ${column.replace(/_key$/, '')} (${String(value)}, id ${holder})`;
    }
    if (table.name === 'personas' && row.active === 1) {
      const active = await this.d.selectFrom('personas').select('id').where('owner_id', '=', ownerId).where('active', '=', 1).executeTakeFirst();
      if (active) return `the account already has an active persona (${String((active as Row).id)}); only one can be active`;
    }
    return null;
  }

  /** Inserts the row under `id` (undefined: the database numbers it); answers the id it has. */
  private async insert(table: CarriedTable, row: Row, id: string | number | undefined): Promise<string | number> {
    if (id === undefined) {
      const { id: _old, ...rest } = row;
      const inserted = (await this.d.insertInto(table.name).values(rest).returning('id').executeTakeFirstOrThrow()) as { id: number | string };
      return Number(inserted.id);
    }
    row.id = id;
    await this.d.insertInto(table.name).values(row).execute();
    if (table.name === 'skills') this.skillIdsGiven = true;
    return id;
  }

  async finish(): Promise<ImportReport> {
    const { trx, ownerId, archive, secrets } = this.options;
    // Renumbered memory entries: the links of the entries written before their partner was renumbered.
    const memoryMap = this.renumbered.get('memory_entries');
    if (memoryMap && memoryMap.size > 0) await relinkMemory(trx, ownerId, memoryMap);
    // PostgreSQL's serial does not see ids written explicitly: move it past them.
    if (this.skillIdsGiven && this.options.dialect === 'postgres') {
      await sql`SELECT setval(pg_get_serial_sequence('skills', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM skills), 1))`.execute(trx);
    }
    if (this.renewedWebhookSecrets > 0) {
      this.report.notes.push(
        `${this.renewedWebhookSecrets} webhook(s) got a new signing secret (the archive carries none without a passphrase): read it in the console and give it to the receiver`,
      );
    }
    if (archive.manifest.secrets && !secrets) {
      this.report.notes.push('The archive carries encrypted secrets, but no passphrase was sent: vault tokens and OAuth connections were left out');
    }
    return this.report;
  }
}

/** The plain secret a row needs: a value, null when it may do without (a webhook), or 'missing'. */
function secretOf(table: CarriedTable, id: string, secrets: ArchiveSecrets | null): unknown {
  switch (table.name) {
    case 'vault_tokens':
      return secrets?.vault_tokens[id] ?? 'missing';
    case 'oauth_connections':
      return secrets?.oauth_connections[id] ?? 'missing';
    case 'webhook_endpoints':
      return secrets?.webhook_endpoints[id] ?? null;
    default:
      return undefined;
  }
}

async function relinkMemory(trx: Executor, ownerId: string, map: Map<string, string | number>): Promise<void> {
  const rows = (await trx.selectFrom('memory_entries').select(['id', 'supersedes', 'superseded_by']).where('owner_id', '=', ownerId).execute()) as Array<{
    id: string;
    supersedes: string;
    superseded_by: string | null;
  }>;
  for (const row of rows) {
    const supersedes = (JSON.parse(row.supersedes) as string[]).map((id) => String(map.get(id) ?? id));
    const supersededBy = row.superseded_by === null ? null : String(map.get(row.superseded_by) ?? row.superseded_by);
    if (JSON.stringify(supersedes) !== row.supersedes || supersededBy !== row.superseded_by) {
      await trx.updateTable('memory_entries').set({ supersedes: JSON.stringify(supersedes), superseded_by: supersededBy }).where('id', '=', row.id).execute();
    }
  }
}
