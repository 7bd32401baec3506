/**
 * The Hearth archive (format version 1), as docs/data-portability.md describes it: which tables
 * an archive carries, which columns of them it leaves out (secrets, and what only makes sense on
 * the server that wrote them), how each row is keyed and which columns point at other rows.
 *
 * Rows are written as the database holds them, column names and all, with JSON columns decoded
 * and booleans as true/false, one JSON object per line in `data/<table>.jsonl`: an exact copy,
 * which an import writes back field for field.
 */
import type { ColumnKind, Columns, Table } from '../../storage/columns.js';

export const ARCHIVE_FORMAT = 'hearth-archive';
export const ARCHIVE_FORMAT_VERSION = 1;

export type CarriedTableName =
  | 'identity'
  | 'preferences'
  | 'memory_entries'
  | 'kb_documents'
  | 'kb_passages'
  | 'personas'
  | 'skills'
  | 'persona_documents'
  | 'persona_skills'
  | 'skill_documents'
  | 'chat_conversations'
  | 'chat_messages'
  | 'vault_tokens'
  | 'connectors'
  | 'oauth_connections'
  | 'webhook_endpoints'
  | 'audit_log'
  | 'tokens'
  | 'afp_devices';

/**
 * The declarations of the carried tables, each the one its owning module makes (`memoryTables`
 * of memory.tables.ts, …). An archive carries whole rows, so it needs every column the owner
 * declares; a module may not import another module's tables (test/architecture.test.ts), so the
 * composition root, which may, hands them in (`carriedDeclarations` in src/container.ts), as it
 * hands the gateway each module's context section. A column is declared once, by its owner.
 */
export type CarriedDeclarations = Readonly<Record<CarriedTableName, Table<Columns>>>;

/** A column that points at a row of another carried table (renumbered along with it). */
interface Reference {
  column: string;
  table: CarriedTableName;
  /** The column holds a JSON array of ids. */
  list?: boolean;
}

/** How an archive carries one table; with its columns (`carriedTables`), a `CarriedTable`. */
export interface CarriedTableRules {
  name: CarriedTableName;
  /** The columns that identify a row within an owner's data (`owner_id` alone: one row per owner). */
  key: readonly string[];
  /** Columns never written to an archive. */
  omitted: readonly string[];
  references: readonly Reference[];
  /**
   * What an import does with the table: `rows` writes them back; `record` leaves them out
   * (they are the record of credentials that cannot move: token hashes, device keys), and the
   * import report says so.
   */
  import: 'rows' | 'record';
  /** Unique per owner besides the key: two rows with different ids but the same value here are a conflict. */
  uniqueWithinOwner?: readonly string[];
}

export interface CarriedTable extends CarriedTableRules {
  /** Every column of the table, as its owning module declares them. */
  columns: Columns;
}

/**
 * In the order an import writes them: every table after the ones its rows point at. Secret
 * columns are never carried in clear: `secret_sealed` and the OAuth tokens are sealed under this
 * server's keys and would not open elsewhere; with a passphrase their plain values travel in
 * the encrypted `secrets.enc.json` instead (portability.crypto.ts).
 */
export const CARRIED_TABLE_RULES: readonly CarriedTableRules[] = [
  { name: 'identity', key: ['owner_id'], omitted: [], references: [], import: 'rows' },
  { name: 'preferences', key: ['owner_id'], omitted: [], references: [], import: 'rows' },
  {
    name: 'memory_entries',
    key: ['id'],
    omitted: [],
    references: [
      { column: 'supersedes', table: 'memory_entries', list: true },
      { column: 'superseded_by', table: 'memory_entries' },
    ],
    import: 'rows',
    // One current entry holds each text (its content_key): an archived entry saying what a
    // current entry of the account already says is reported, not added twice.
    uniqueWithinOwner: ['content_key'],
  },
  { name: 'kb_documents', key: ['id'], omitted: [], references: [], import: 'rows', uniqueWithinOwner: ['title'] },
  { name: 'kb_passages', key: ['id'], omitted: [], references: [{ column: 'document_id', table: 'kb_documents' }], import: 'rows' },
  { name: 'personas', key: ['id'], omitted: [], references: [], import: 'rows' },
  { name: 'skills', key: ['id'], omitted: [], references: [], import: 'rows', uniqueWithinOwner: ['slug_key'] },
  {
    name: 'persona_documents',
    key: ['persona_id', 'document_id'],
    omitted: [],
    references: [
      { column: 'persona_id', table: 'personas' },
      { column: 'document_id', table: 'kb_documents' },
    ],
    import: 'rows',
  },
  {
    name: 'persona_skills',
    key: ['persona_id', 'skill_id'],
    omitted: [],
    references: [
      { column: 'persona_id', table: 'personas' },
      { column: 'skill_id', table: 'skills' },
    ],
    import: 'rows',
  },
  {
    name: 'skill_documents',
    key: ['skill_id', 'document_id'],
    omitted: [],
    references: [
      { column: 'skill_id', table: 'skills' },
      { column: 'document_id', table: 'kb_documents' },
    ],
    import: 'rows',
  },
  { name: 'chat_conversations', key: ['id'], omitted: [], references: [], import: 'rows' },
  { name: 'chat_messages', key: ['id'], omitted: [], references: [{ column: 'conversation_id', table: 'chat_conversations' }], import: 'rows' },
  { name: 'vault_tokens', key: ['id'], omitted: ['secret_sealed'], references: [], import: 'rows' },
  {
    name: 'connectors',
    key: ['id'],
    omitted: [],
    references: [{ column: 'vault_token_id', table: 'vault_tokens' }],
    import: 'rows',
    uniqueWithinOwner: ['name_key'],
  },
  {
    name: 'oauth_connections',
    key: ['id'],
    // The refresh lease is one server's bookkeeping of a refresh in progress.
    omitted: ['access_token_sealed', 'refresh_token_sealed', 'refresh_lease', 'refresh_lease_until'],
    references: [],
    import: 'rows',
    uniqueWithinOwner: ['provider'],
  },
  { name: 'webhook_endpoints', key: ['id'], omitted: ['secret_sealed'], references: [], import: 'rows' },
  { name: 'audit_log', key: ['id'], omitted: [], references: [], import: 'rows' },
  { name: 'tokens', key: ['id'], omitted: ['secret_hash'], references: [], import: 'record' },
  { name: 'afp_devices', key: ['id'], omitted: ['key_hash'], references: [], import: 'record' },
];

/** The carried tables, in import order, each with the columns its owner declares. */
export function carriedTables(declared: CarriedDeclarations): readonly CarriedTable[] {
  return CARRIED_TABLE_RULES.map((rules) => ({ ...rules, columns: declared[rules.name].columns }));
}

/** The columns of a carried table as the archive holds them (owner and omitted ones left out), with their kinds. */
export function carriedColumns(table: CarriedTable): Array<[string, ColumnKind]> {
  return Object.entries(table.columns)
    .filter(([name]) => name !== 'owner_id' && !table.omitted.includes(name))
    .map(([name, spec]) => [name, spec.kind]);
}

export const dataFile = (table: CarriedTableName) => `data/${table}.jsonl`;
export const SECRETS_FILE = 'secrets.enc.json';
export const MANIFEST_FILE = 'manifest.json';

/** A stored row as the archive holds it: JSON columns decoded, booleans as booleans, the owner left out. */
export function rowToArchive(table: CarriedTable, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, kind] of carriedColumns(table)) {
    const value = row[name];
    if (value === null || value === undefined) out[name] = null;
    else if (kind === 'json') out[name] = JSON.parse(String(value));
    else if (kind === 'boolean') out[name] = Number(value) === 1;
    else if (kind === 'integer' || kind === 'real') out[name] = Number(value);
    else out[name] = String(value);
  }
  return out;
}

/**
 * A time as both engines store it (src/lib/time.ts): `toISOString`'s fixed width, in UTC with
 * milliseconds. Rows are compared and ordered by these strings, so another spelling of the same
 * instant (or "yesterday") would sort wrongly or fail to read.
 */
function isStoredTime(value: unknown): value is string {
  // What toISOString writes, the years past 9999 and before 0 of earlier versions' rows included
  // (`+010000-…`): an archive Hearth wrote must import again.
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value;
}

/** Why a value cannot be stored in a column of this kind, or null when it can. */
function badValue(kind: ColumnKind, value: unknown): string | null {
  switch (kind) {
    case 'json':
      return null;
    case 'time':
      return isStoredTime(value) ? null : 'a time as Hearth stores it: ISO 8601 in UTC with milliseconds, e.g. 2024-05-01T12:00:00.000Z';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'true or false';
    case 'integer':
      // The columns are PostgreSQL's 32-bit integer: a larger number would fail the write (a 500).
      return Number.isSafeInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647 ? null : 'a whole number from -2147483648 to 2147483647';
    case 'real':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'a number';
    default:
      // PostgreSQL text cannot hold NUL, and no value Hearth writes has one.
      return typeof value === 'string' && !value.includes('\u0000') ? null : 'a string';
  }
}

/**
 * An archive row as the database stores it, for `ownerId`; throws a message naming the field
 * when a value is not what the column holds (the archive is refused whole; the caller names the
 * record).
 */
export function rowFromArchive(table: CarriedTable, line: Record<string, unknown>, ownerId: string, nullable: (column: string) => boolean): Record<string, unknown> {
  const row: Record<string, unknown> = { owner_id: ownerId };
  for (const [name, kind] of carriedColumns(table)) {
    const value = line[name];
    if (value === null || value === undefined) {
      if (!nullable(name)) throw new Error(`the field ${name} is missing`);
      row[name] = null;
      continue;
    }
    const bad = badValue(kind, value);
    if (bad) throw new Error(`the field ${name} must be ${bad}`);
    row[name] = kind === 'json' ? JSON.stringify(value) : kind === 'boolean' ? (value ? 1 : 0) : value;
  }
  return row;
}

export function isNullableColumn(table: CarriedTable, column: string): boolean {
  return table.columns[column]?.isNullable ?? false;
}
