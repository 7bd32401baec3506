/**
 * The declared tables (each module's `<module>.tables.ts`, storage's `tables.ts`) against the
 * tables a freshly migrated database really has, on the engine under test: every table and
 * column declared, none missing, each with the declared nullability and type family. A migration
 * that adds a column nobody declared, or a declaration nobody migrated, fails here by name.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Table, TableSet, type ColumnKind, type Columns } from '../src/storage/columns.js';
import type { Dialect } from '../src/storage/dialect.js';
import { TABLE_NAMES } from '../src/storage/table-names.js';
import { storageTables } from '../src/storage/tables.js';
import { createTestApp, ENGINE, type TestApp } from './harness.js';

type Family = 'text' | 'integer' | 'real' | 'timestamp' | 'tsvector' | 'blob' | 'other';

interface ActualColumn {
  family: Family;
  nullable: boolean;
}

const KIND_FAMILY: Record<Dialect, Record<ColumnKind, Family>> = {
  sqlite: { text: 'text', json: 'text', time: 'text', integer: 'integer', boolean: 'integer', real: 'real', timestamptz: 'text', bytes: 'blob' },
  postgres: { text: 'text', json: 'text', time: 'text', integer: 'integer', boolean: 'integer', real: 'real', timestamptz: 'timestamp', bytes: 'blob' },
};

/** SQLite's affinity rules (datatype3.html, 3.1), on the declared type. */
function sqliteFamily(declared: string): Family {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  if (/REAL|FLOA|DOUB/.test(type)) return 'real';
  return 'other';
}

function pgFamily(dataType: string): Family {
  if (['text', 'character varying', 'character'].includes(dataType)) return 'text';
  if (['integer', 'bigint', 'smallint'].includes(dataType)) return 'integer';
  if (['real', 'double precision', 'numeric'].includes(dataType)) return 'real';
  if (dataType.startsWith('timestamp')) return 'timestamp';
  if (dataType === 'tsvector') return 'tsvector';
  if (dataType === 'bytea') return 'blob';
  return 'other';
}

async function actualSchema(app: TestApp): Promise<Map<string, Map<string, ActualColumn>>> {
  const tables = new Map<string, Map<string, ActualColumn>>();
  const db = app.storage.db;
  if (ENGINE === 'postgres') {
    const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>`
      SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`.execute(db);
    for (const row of rows) {
      const columns = tables.get(row.table_name) ?? new Map<string, ActualColumn>();
      columns.set(row.column_name, { family: pgFamily(row.data_type), nullable: row.is_nullable === 'YES' });
      tables.set(row.table_name, columns);
    }
    return tables;
  }
  const { rows: names } = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db);
  for (const { name } of names) {
    const { rows } = await sql<{ name: string; type: string; notnull: number; pk: number }>`SELECT name, type, "notnull", pk FROM pragma_table_info(${name})`.execute(db);
    // A PRIMARY KEY column other than an INTEGER one accepts NULL in SQLite unless declared NOT
    // NULL (a compatibility quirk); Hearth never writes NULL keys, so a key counts as NOT NULL.
    tables.set(name, new Map(rows.map((c) => [c.name, { family: sqliteFamily(c.type), nullable: c.notnull === 0 && c.pk === 0 }])));
  }
  return tables;
}

interface Declared {
  /** Where it is declared, for the failure message. */
  source: string;
  table: string;
  spec: Table<Columns>;
  role: 'owned' | 'reads';
}

/** Every `TableSet` exported by storage and by each module's `<module>.tables.ts`. */
async function declaredTables(): Promise<Declared[]> {
  const found: Declared[] = [];
  const add = (source: string, value: unknown) => {
    if (!(value instanceof TableSet)) return;
    for (const [table, spec] of Object.entries(value.tables as Record<string, Table<Columns>>)) found.push({ source, table, spec, role: value.role });
  };
  add('src/storage/tables.ts', storageTables);
  const modules = path.resolve('src/modules');
  for (const module of readdirSync(modules)) {
    for (const file of readdirSync(path.join(modules, module)).filter((f) => f.endsWith('.tables.ts'))) {
      const exports = (await import(pathToFileURL(path.join(modules, module, file)).href)) as Record<string, unknown>;
      for (const value of Object.values(exports)) add(`src/modules/${module}/${file}`, value);
    }
  }
  return found;
}

/** The columns a declared table has on `dialect`, with what full-text search adds there. */
function expectedColumns(spec: Table<Columns>, dialect: Dialect): Map<string, ActualColumn> {
  const columns = new Map<string, ActualColumn>();
  for (const [name, column] of Object.entries(spec.columns)) columns.set(name, { family: KIND_FAMILY[dialect][column.kind], nullable: column.isNullable });
  const fullText = spec.options.fullText;
  if (dialect === 'sqlite' && (fullText?.sqliteRowKey === 'rid' || spec.options.sqliteRid)) columns.set('rid', { family: 'integer', nullable: false });
  if (fullText && dialect === 'postgres') columns.set('search_vector', { family: 'tsvector', nullable: true });
  return columns;
}

/** The differences between the declarations and the database, one line each. */
function schemaDrift(declared: readonly Declared[], actual: Map<string, Map<string, ActualColumn>>, dialect: Dialect): string[] {
  const problems: string[] = [];
  const owners = new Map<string, Declared>();
  for (const entry of declared) {
    if (entry.role !== 'owned') continue;
    const other = owners.get(entry.table);
    if (other) problems.push(`table ${entry.table}: declared by both ${other.source} and ${entry.source}`);
    owners.set(entry.table, entry);
  }
  const accounted = new Set<string>();
  for (const entry of declared) {
    if (entry.spec.options.only && entry.spec.options.only !== dialect) continue;
    const columns = actual.get(entry.table);
    if (!columns) {
      problems.push(`table ${entry.table} (${entry.source}): declared, but the migrated database has no such table`);
      continue;
    }
    const expected = expectedColumns(entry.spec, dialect);
    for (const [name, want] of expected) {
      const have = columns.get(name);
      if (!have) problems.push(`column ${entry.table}.${name} (${entry.source}): declared, but the database has no such column`);
      else if (have.family !== want.family) problems.push(`column ${entry.table}.${name} (${entry.source}): declared ${want.family}, the database has ${have.family}`);
      else if (have.nullable !== want.nullable)
        problems.push(`column ${entry.table}.${name} (${entry.source}): declared ${want.nullable ? 'nullable' : 'NOT NULL'}, the database has it ${have.nullable ? 'nullable' : 'NOT NULL'}`);
    }
    if (entry.role === 'owned') {
      accounted.add(entry.table);
      for (const name of columns.keys()) {
        if (!expected.has(name)) problems.push(`column ${entry.table}.${name}: in the database, but ${entry.source} does not declare it`);
      }
      const fullText = entry.spec.options.fullText;
      if (fullText && dialect === 'sqlite') {
        // The FTS5 table and the shadow tables FTS5 keeps for it.
        const fts = `${entry.table}_fts`;
        for (const suffix of ['', '_config', '_data', '_docsize', '_idx']) accounted.add(`${fts}${suffix}`);
        const ftsColumns = actual.get(fts);
        if (!ftsColumns) problems.push(`table ${fts} (${entry.source}): full-text search declared, but the database has no such table`);
        else if ([...ftsColumns.keys()].join(',') !== fullText.columns.join(','))
          problems.push(`table ${fts} (${entry.source}): declared full-text columns ${fullText.columns.join(', ')}, the database indexes ${[...ftsColumns.keys()].join(', ')}`);
      }
    }
  }
  for (const table of actual.keys()) {
    if (!accounted.has(table)) problems.push(`table ${table}: in the database, but no module (nor storage) declares it as its own`);
  }
  return problems;
}

describe(`the declared tables match a freshly migrated database (${ENGINE})`, () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('has every declared table and column, and nothing undeclared', async () => {
    const declared = await declaredTables();
    // The declarations were found at all: a broken glob must not pass as "no drift".
    expect(declared.filter((d) => d.role === 'owned').length).toBeGreaterThan(30);
    expect(schemaDrift(declared, await actualSchema(app), app.storage.dialect)).toEqual([]);
  });

  it('lists every owned table in TABLE_NAMES, the names caches depend on, and nothing else', async () => {
    const owned = (await declaredTables()).filter((d) => d.role === 'owned').map((d) => d.table);
    expect([...TABLE_NAMES].sort()).toEqual([...new Set(owned)].sort());
  });

  it('names the table, the column and the difference', async () => {
    // The comparison itself, on a database that drifted in every way it can.
    const declared = await declaredTables();
    const actual = await actualSchema(app);
    const drifted = new Map([...actual].map(([table, columns]) => [table, new Map(columns)]));
    drifted.get('memory_entries')!.set('mood', { family: 'text', nullable: true });
    drifted.get('users')!.set('name', { family: 'integer', nullable: true });
    drifted.get('users')!.set('email', { family: 'text', nullable: true });
    drifted.get('tokens')!.delete('revoked_at');
    drifted.delete('audit_log');
    drifted.set('leftovers', new Map([['id', { family: 'text', nullable: false }]]));
    expect(schemaDrift(declared, drifted, app.storage.dialect).sort()).toEqual(
      [
        'column memory_entries.mood: in the database, but src/modules/memory/memory.tables.ts does not declare it',
        'column users.name (src/modules/accounts/accounts.tables.ts): declared text, the database has integer',
        'column users.name (src/modules/portability/portability.tables.ts): declared text, the database has integer',
        'column users.email (src/modules/accounts/accounts.tables.ts): declared NOT NULL, the database has it nullable',
        'column users.email (src/modules/portability/portability.tables.ts): declared NOT NULL, the database has it nullable',
        'column tokens.revoked_at (src/modules/tokens/tokens.tables.ts): declared, but the database has no such column',
        'table audit_log (src/modules/audit/audit.tables.ts): declared, but the migrated database has no such table',
        'table leftovers: in the database, but no module (nor storage) declares it as its own',
      ].sort(),
    );
  });
});
