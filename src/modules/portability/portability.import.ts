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
 *
 * A row may point only at the owner's rows (the archive's, or the account's already): an id of
 * another account's row in a reference column would otherwise bind the row to that account's
 * data (a passage of another owner's document receives that document's text when it is next
 * edited). The values must be what their modules write (portability.fields.ts), and what the
 * import adds is counted against the owner's plan in its transaction.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { AppError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { siteBindingRefusal } from '../../lib/same-site.js';
import { inflateZipEntry, readZipDirectory, unsafeEntryName, type ZipEntry, type ZipRefusals } from '../../lib/zip.js';
import { isJsonObject, type Executor } from '../../storage/columns.js';
import type { Dialect } from '../../storage/dialect.js';
import type { LimitName } from '../plans/plans.service.js';
import { openSecrets, WrongPassphrase, type SealedSecrets } from './portability.crypto.js';
import { secretContexts, type ArchiveSecrets, type Manifest } from './portability.export.js';
import { fieldProblem } from './portability.fields.js';
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

/** How far past the database's skill counter an import may keep archived skill numbers (skillCounter). */
const SKILL_NUMBER_HEADROOM = 10_000;

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
  return checkedSecrets(plain);
}

/**
 * The opened secrets, held to what an export writes: a JSON object of the three kinds, each an
 * object from record id to the secret (a string; an OAuth connection's two tokens). The
 * passphrase only proves who encrypted the file, not that an export wrote it, and a value of
 * another shape would reach the keyring (a number, an object) or be found on Object.prototype.
 */
function checkedSecrets(plain: string): ArchiveSecrets {
  const where = `${SECRETS_FILE}, opened with the passphrase,`;
  let value: unknown;
  try {
    value = JSON.parse(plain);
  } catch {
    throw refused(`${where} does not hold JSON (an export writes its secrets as a JSON object)`);
  }
  if (!isJsonObject(value)) throw refused(`${where} does not hold a JSON object of secrets`);
  const kinds = ['vault_tokens', 'oauth_connections', 'webhook_endpoints'] as const;
  const secrets: ArchiveSecrets = { vault_tokens: {}, oauth_connections: {}, webhook_endpoints: {} };
  for (const kind of kinds) {
    const section = value[kind];
    if (section === undefined || section === null) continue;
    if (!isJsonObject(section)) throw refused(`${where} holds ${kind} that is not an object of secrets by record id`);
    for (const [id, secret] of Object.entries(section)) {
      const record = `the secret of ${kind} record ${id.slice(0, 100)} in ${SECRETS_FILE}`;
      if (kind === 'oauth_connections') {
        const tokens = isJsonObject(secret) ? secret : undefined;
        if (typeof tokens?.access_token !== 'string' || (tokens.refresh_token !== null && typeof tokens.refresh_token !== 'string')) {
          throw refused(`${record} must be { "access_token": string, "refresh_token": string or null }`);
        }
        secrets.oauth_connections[id] = { access_token: tokens.access_token, refresh_token: tokens.refresh_token };
      } else {
        if (typeof secret !== 'string') throw refused(`${record} must be a string`);
        secrets[kind][id] = secret;
      }
    }
  }
  return secrets;
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
  /** The owner's plan limits that apply (none when limits are off, or for the administrator). */
  limits?: PlanChecks | undefined;
}

/** A plan limit's check, as the limits service answers it (`limitFor`): its refusal (402), or undefined. */
export type PlanCheck = (used: number, adding: number) => AppError | undefined;

/** The plan limits an import can reach: the records it adds that a plan counts. */
export const IMPORTED_PLAN_LIMITS = ['memoryEntries', 'knowledgeBytes', 'vaultTokens'] as const satisfies readonly LimitName[];
export type PlanChecks = Partial<Record<(typeof IMPORTED_PLAN_LIMITS)[number], PlanCheck>>;

export type ImportProgress = (done: number, total: number) => void;

/** How often an import tells its progress: often enough for a bar to move, seldom enough to cost nothing. */
const PROGRESS_EVERY_MS = 200;

type Row = Record<string, unknown>;
/**
 * A passage's id: its document's and its place in it, the knowledge module's rule (passageId in
 * knowledge.repo.ts, which another module may not import), by which it rewrites a document's
 * passages. A passage under any other id would stand beside the one the next edit writes there.
 */
const passageId = (documentId: unknown, ordinal: unknown) => `${String(documentId)}:${String(ordinal)}`;
/** A record of the archive read as a row of the owner, with its key (in the report). */
interface Checked {
  row: Row;
  key: string;
}

const keyOf = (table: CarriedTable, row: Row) => table.key.map((k) => String(row[k])).join('\u0000');
const sameRow = (table: CarriedTable, a: Row, b: Row) => JSON.stringify(rowToArchive(table, a)) === JSON.stringify(rowToArchive(table, b));

/** A new id like an old one: the same prefix (`mem_…`), a new unique part. */
function renumber(id: string): string {
  const prefix = /^([a-z]+)_/.exec(id)?.[1];
  return newId(prefix ?? 'imp');
}

/**
 * The archive's lines of one table, parsed one at a time as they are written, with their line
 * numbers: a line that is not a JSON object refuses the archive. One row is held at a time, not
 * the whole table's (a file of millions of short lines would be millions of objects at once).
 */
function* archiveLines(archive: OpenedArchive, table: CarriedTable): Generator<{ record: Row; line: number }> {
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
    yield { record: value as Row, line: number };
  }
}

/** How a refusal names a record: by its key when it has one, and always by its line. */
function recordName(table: CarriedTable, record: Row, line: number): string {
  const where = `line ${line} of ${dataFile(table.name)}`;
  if (table.key[0] === 'owner_id') return `the ${table.name} record (${where})`;
  const key = table.key.map((k) => record[k]).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
  return key.length === table.key.length ? `${table.name} record ${key.map((v) => String(v).slice(0, 100)).join(' / ')} (${where})` : `the ${table.name} record on ${where}`;
}

/** What a reference's message calls the row it points at. */
const RECORD_NOUNS: Partial<Record<CarriedTableName, string>> = {
  kb_documents: 'knowledge-base document',
  chat_conversations: 'conversation',
  vault_tokens: 'vault token',
  personas: 'persona',
  skills: 'skill',
  memory_entries: 'memory entry',
};


/** Writes the archive's rows into the owner's account inside `trx`; answers what it did (or, in a dry run, would do). */
export async function applyArchive(options: ApplyOptions): Promise<ImportReport> {
  const importer = new ArchiveImporter(options);
  for (const table of options.tables) await importer.importTable(table);
  await importer.checkPlanLimits();
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
  /** The bytes of the knowledge-base documents this import added: what it adds to the plan's knowledgeBytes. */
  private addedKnowledgeBytes = 0;
  /** The database's skill counter when this import first needed it (skillCounter). */
  private skillCounterAtStart: number | undefined;
  /** The highest skill number this import wrote itself, which PostgreSQL's serial must pass. */
  private skillIdsWritten = 0;
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
    const checked = this.checker(table);
    // Rows numbered by the database (skills) whose id is taken here wait for the table's other
    // rows: those keep their ids first, so the id the database then gives each of them cannot
    // be one a later row of the archive holds (which would find "its" id taken by this import).
    const numbered = table.columns.id?.kind === 'integer';
    const waiting: Checked[] = [];
    for (const { record, line } of lines) {
      this.progress.step();
      const { row, key } = checked(record, line);
      const dangling = this.followReferences(table, row);
      if (dangling) {
        this.issue(table, key, 'skipped', dangling);
        continue;
      }
      if (table.key[0] === 'owner_id') {
        await this.importOwnerDocument(table, row);
        continue;
      }
      if (table.key.length > 1) {
        await this.importJoinRow(table, row, key);
        continue;
      }
      // Its id follows its document's (renumbered or not), by the knowledge module's rule.
      if (table.name === 'kb_passages') row.id = passageId(row.document_id, row.ordinal);
      await this.importRecord(table, { row, key }, numbered ? waiting : undefined);
    }
    for (const record of waiting) await this.importRecord(table, record);
  }

  /**
   * Reads the table's records as rows of the owner, refusing the archive (naming the record) for
   * a value its column or module does not hold, a record twice, or two passages at one place.
   */
  private checker(table: CarriedTable): (record: Row, line: number) => Checked {
    const nullable = (column: string) => isNullableColumn(table, column);
    const seen = new Set<string>();
    // A passage's place (its document and ordinal) is unique, as the database's index holds it.
    const places = new Set<string>();
    return (record, line) => {
      const name = recordName(table, record, line);
      let row: Row;
      try {
        row = rowFromArchive(table, record, this.options.ownerId, nullable);
      } catch (error) {
        throw refused(`${name}: ${(error as Error).message}`);
      }
      const problem = fieldProblem(table.name, record);
      if (problem) throw refused(`${name}: ${problem}`);
      const key = table.key[0] === 'owner_id' ? table.name : keyOf(table, row);
      if (seen.has(key)) throw refused(`${dataFile(table.name)} holds the record ${key} twice`);
      seen.add(key);
      if (table.name === 'kb_passages') {
        const place = `${String(row.document_id)}\u0000${String(row.ordinal)}`;
        if (places.has(place)) throw refused(`${name}: another passage of the archive is at ordinal ${String(row.ordinal)} of document ${String(row.document_id)}; a document has one passage at each place`);
        places.add(place);
      }
      return { row, key };
    };
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
        // A list of ids (checked to be one by portability.fields.ts before this is reached).
        const ids = JSON.parse(String(row[ref.column])) as unknown;
        if (!Array.isArray(ids)) continue;
        row[ref.column] = JSON.stringify(ids.map((id) => map?.get(String(id)) ?? id));
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

  /**
   * Checks that each reference of a record names a row of the owner: one this import added, or
   * one the account held (found unchanged in the archive, or left out of it). Another account's
   * row, or none at all, leaves the record out, reported with why: the same answer for both, so an
   * import tells nothing of what other accounts hold. Left out rather than refusing the archive,
   * since an honest one can hold such a record: an export reads table after table, so a document
   * or conversation deleted (or made) while it ran can leave a passage or message without its
   * parent. The links of a memory chain are read only within the owner's entries
   * (memory.repo.ts), and may name an entry left out.
   */
  private async foreignReference(table: CarriedTable, row: Row): Promise<string | undefined> {
    for (const ref of table.references) {
      const value = row[ref.column];
      if (ref.list || ref.table === table.name || value === null || value === undefined) continue;
      if (this.added.get(ref.table)?.has(String(value))) continue;
      const held = await this.d.selectFrom(ref.table).select('id').where('id', '=', value).where('owner_id', '=', this.options.ownerId).executeTakeFirst();
      if (held) continue;
      const noun = RECORD_NOUNS[ref.table] ?? `${ref.table} record`;
      return `its ${ref.column} ${String(value).slice(0, 100)} is not a ${noun} of this archive or of the account`;
    }
    return undefined;
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

  /**
   * A record with an id: the same (skipped), a conflict, or added (under a new id when another
   * account holds its own, or this import gave it to another row). With `waiting`, a
   * database-numbered row whose id is taken is put there, to be imported once the table's other
   * rows are in.
   */
  private async importRecord(table: CarriedTable, record: Checked, waiting?: Checked[]): Promise<void> {
    const { row, key } = record;
    const counts = this.report.tables[table.name]!;
    const { ownerId } = this.options;
    const id = row.id as string | number;
    const existing = (await this.d.selectFrom(table.name).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
    // A row this import wrote is never the account's own copy of this one: its id is only taken.
    const ours = existing !== undefined && this.added.get(table.name)?.has(String(id)) === true;
    if (existing && existing.owner_id === ownerId && !ours) {
      if (sameRow(table, existing, row)) counts.unchanged += 1;
      else this.issue(table, key, 'conflict', 'the account has a record with this id and other content; it was left as it is');
      return;
    }
    const foreign = await this.foreignReference(table, row);
    if (foreign) {
      this.issue(table, key, 'skipped', foreign);
      return;
    }
    // A number held, or past what a skill may keep (skillCounter), is numbered by the database
    // once the rows that keep theirs are in, so that it takes none of theirs.
    const overCounter = table.name === 'skills' && typeof id === 'number' && id > (await this.skillCounter()) + SKILL_NUMBER_HEADROOM;
    if ((existing || overCounter) && typeof id === 'number' && waiting) {
      waiting.push(record);
      return;
    }
    if (existing && table.name === 'kb_passages') {
      // Its id is its document's and its place, so it cannot take another: only a row written
      // before passages were held to that rule can hold it.
      this.issue(table, key, 'skipped', `its id ${String(id)} is held outside the account; the passage is cut again from the document when the document is next changed`);
      return;
    }
    const conflict = (await this.uniqueConflict(table, row)) ?? (table.name === 'kb_passages' ? await this.passagePlaceTaken(row) : null);
    if (conflict) {
      this.issue(table, key, 'conflict', conflict);
      return;
    }
    await this.addRecord(table, row, key, existing !== undefined);
  }

  /** Adds a record no other row stands in the way of (under a new id when `taken`), unless it is left out for its secret or its binding. */
  private async addRecord(table: CarriedTable, row: Row, key: string, taken: boolean): Promise<void> {
    const counts = this.report.tables[table.name]!;
    const id = row.id as string | number;
    // Secrets travel only in the encrypted part; without them a record that cannot work
    // without its secret is left out, and a webhook gets a new signing secret.
    const secret = secretOf(table, String(id), this.options.secrets);
    if (secret === 'missing') {
      this.issue(table, key, 'skipped', 'its secret is not in the archive (export with a passphrase, and import with it, to bring secrets)');
      return;
    }
    const binding = table.name === 'connectors' ? await this.bindingRefusal(row) : undefined;
    if (binding) {
      this.issue(table, key, 'skipped', binding);
      return;
    }
    // Another account on this server holds the id (or this import gave it to another row), or a
    // skill's number is past what this import may keep (skillCounter): this row gets a new
    // one (skills: the database's).
    if (!taken && table.name === 'skills' && Number(id) > (await this.skillCounter()) + SKILL_NUMBER_HEADROOM) taken = true;
    let finalId: string | number | undefined = id;
    if (taken) {
      finalId = typeof id === 'number' ? undefined : renumber(id);
      counts.renumbered += 1;
    }
    await this.sealSecrets(table, row, finalId ?? '', secret);
    finalId = await this.insert(table, row, finalId);
    if (table.name === 'kb_documents') this.addedKnowledgeBytes += Number(row.size_bytes);
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

  /**
   * Why a passage cannot take its place: the document has another passage there (under another
   * id, written before passages were held to their ids' rule), or null. The database's index on
   * (document, ordinal) would otherwise fail the import.
   */
  private async passagePlaceTaken(row: Row): Promise<string | null> {
    const held = (await this.d
      .selectFrom('kb_passages')
      .select('id')
      .where('owner_id', '=', this.options.ownerId)
      .where('document_id', '=', row.document_id)
      .where('ordinal', '=', row.ordinal)
      .executeTakeFirst()) as Row | undefined;
    if (!held) return null;
    return `the account's document ${String(row.document_id)} already has a passage at ordinal ${String(row.ordinal)} (id ${String(held.id)}); it was left as it is`;
  }

  /** Inserts the row under `id` (undefined: the database numbers it); answers the id it has. */
  private async insert(table: CarriedTable, row: Row, id: string | number | undefined): Promise<string | number> {
    if (id === undefined && table.name === 'skills' && this.options.dryRun) {
      // A dry run is rolled back, PostgreSQL's serial is not: the skills it would number get
      // numbers past every other here, so that asking what an import would do moves no counter.
      id = Math.max(await this.skillCounter(), this.skillIdsWritten) + 1;
    }
    if (id === undefined) {
      if (table.name === 'skills') await this.skillSerialPastWritten();
      const { id: _old, ...rest } = row;
      const inserted = (await this.d.insertInto(table.name).values(rest).returning('id').executeTakeFirstOrThrow()) as { id: number | string };
      return Number(inserted.id);
    }
    row.id = id;
    await this.d.insertInto(table.name).values(row).execute();
    if (table.name === 'skills') this.skillIdsWritten = Math.max(this.skillIdsWritten, Number(id));
    return id;
  }

  /**
   * PostgreSQL's serial does not see numbers written explicitly: moved past the highest this
   * import wrote, never back (a number given meanwhile by another account's creation, or freed
   * by a deletion, stays behind it). SQLite's AUTOINCREMENT counter follows by itself.
   */
  private async skillSerialPastWritten(): Promise<void> {
    if (this.skillIdsWritten === 0 || this.options.dialect !== 'postgres' || this.options.dryRun) return;
    await sql`SELECT setval(pg_get_serial_sequence('skills', 'id'), GREATEST(${this.skillIdsWritten}::bigint, (SELECT COALESCE(pg_sequence_last_value(pg_get_serial_sequence('skills', 'id')::regclass), 0))))`.execute(this.d);
    this.skillIdsWritten = 0;
  }

  /**
   * The highest skill number the database has given (PostgreSQL's serial, SQLite's AUTOINCREMENT
   * counter: one for every account's skills), read once. An archived skill keeps its number up
   * to SKILL_NUMBER_HEADROOM past it: an archive moved to a new server keeps its skills' numbers
   * (a personal server's stay far below that), while one naming 2,147,483,647, the largest the
   * API takes, cannot move the counter there and leave no number for any account's next skill;
   * a skill above is numbered by the database, reported as renumbered, its links following.
   */
  private async skillCounter(): Promise<number> {
    if (this.skillCounterAtStart === undefined) {
      const read =
        this.options.dialect === 'postgres'
          ? await sql<{ n: string | number | null }>`SELECT pg_sequence_last_value(pg_get_serial_sequence('skills', 'id')::regclass) AS n`.execute(this.d)
          : await sql<{ n: string | number | null }>`SELECT seq AS n FROM sqlite_sequence WHERE name = 'skills'`.execute(this.d);
      this.skillCounterAtStart = Number(read.rows[0]?.n ?? 0);
    }
    return this.skillCounterAtStart;
  }

  /**
   * Refuses (402 PLAN_LIMIT_REACHED, as any creation past a limit is) when what this import added
   * takes the account past a limit of its plan: memory entries, knowledge-base bytes, vault
   * tokens, counted in the import's transaction once its rows are in, so that what it found
   * unchanged or left out is not counted, and nothing is written when it refuses. An import
   * adding nothing is never refused, even for an account already past a limit.
   */
  async checkPlanLimits(): Promise<void> {
    const { limits, ownerId } = this.options;
    if (!limits) return;
    const added = (table: CarriedTableName) => this.report.tables[table]?.added ?? 0;
    const count = async (table: string) =>
      Number(((await this.d.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow()) as { n: unknown }).n);
    const checks: Array<[PlanCheck | undefined, number, () => Promise<number>]> = [
      [limits.memoryEntries, added('memory_entries'), () => count('memory_entries')],
      [limits.vaultTokens, added('vault_tokens'), () => count('vault_tokens')],
      [
        limits.knowledgeBytes,
        this.addedKnowledgeBytes,
        async () =>
          Number(
            ((await this.d
              .selectFrom('kb_documents')
              .select((eb) => eb.fn.coalesce(eb.fn.sum('size_bytes'), eb.lit(0)).as('total'))
              .where('owner_id', '=', ownerId)
              .executeTakeFirstOrThrow()) as { total: unknown }).total,
          ),
      ],
    ];
    for (const [check, adding, total] of checks) {
      if (!check || adding === 0) continue;
      const refusal = check((await total()) - adding, adding);
      if (refusal) throw refusal;
    }
  }

  async finish(): Promise<ImportReport> {
    const { trx, ownerId, archive, secrets } = this.options;
    await this.skillSerialPastWritten();
    // Renumbered memory entries: the links of the entries written before their partner was renumbered.
    const memoryMap = this.renumbered.get('memory_entries');
    if (memoryMap && memoryMap.size > 0) await relinkMemory(trx, ownerId, memoryMap);
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
    // Own properties only: a record id such as `toString` must not find Object.prototype's.
    case 'vault_tokens':
      return secrets && Object.hasOwn(secrets.vault_tokens, id) ? secrets.vault_tokens[id] : 'missing';
    case 'oauth_connections':
      return secrets && Object.hasOwn(secrets.oauth_connections, id) ? secrets.oauth_connections[id] : 'missing';
    case 'webhook_endpoints':
      return secrets && Object.hasOwn(secrets.webhook_endpoints, id) ? secrets.webhook_endpoints[id] : null;
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
