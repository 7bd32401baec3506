import type { Generated, Kysely } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * Tables declared once, in a form that exists at run time: each module declares its tables with
 * these builders beside its repository (`<module>.tables.ts`), the Kysely row types are derived
 * from the declaration, and the drift test (test/schema.drift.test.ts) compares the declaration
 * with the columns a freshly migrated database really has, on both engines.
 *
 * What both engines store (see lib/time.ts): times are ISO 8601 UTC strings, booleans are
 * integers 0/1, JSON values are text. A kind says what a column holds; the drift test checks the
 * engine's type family for it (text, integer, real, timestamp), its nullability and its name.
 */
export type ColumnKind =
  /** Text; a type argument narrows it to the values the code writes (`text<'admin' | 'user'>()`). */
  | 'text'
  /** A JSON document stored as text, decoded by the owning repository only. */
  | 'json'
  /** An ISO 8601 UTC time stored as text. */
  | 'time'
  /** A whole number (integer, smallint or bigint on PostgreSQL; every count fits a JS number). */
  | 'integer'
  /** 0 or 1 in an integer column. */
  | 'boolean'
  /** A floating-point number. */
  | 'real'
  /** PostgreSQL's timestamptz (text on SQLite): times read only through SQL comparisons. */
  | 'timestamptz'
  /** Raw bytes (a blob on SQLite, bytea on PostgreSQL): a search vector's int8 codes. */
  | 'bytes';

export class Column<T> {
  /** Type only: the value a row holds. */
  declare readonly row: T;
  constructor(
    readonly kind: ColumnKind,
    readonly isNullable = false,
  ) {}
  /** The column may hold NULL. */
  orNull(): Column<T | null> {
    return new Column<T | null>(this.kind, true);
  }
  /** The database fills it when an insert leaves it out (an auto-incremented id). */
  generated(): Column<Generated<T>> {
    return new Column<Generated<T>>(this.kind, this.isNullable);
  }
}

export const column = {
  text: <T extends string = string>() => new Column<T>('text'),
  json: () => new Column<string>('json'),
  time: () => new Column<string>('time'),
  integer: () => new Column<number>('integer'),
  boolean: () => new Column<number>('boolean'),
  real: () => new Column<number>('real'),
  timestamptz: () => new Column<string>('timestamptz'),
  bytes: () => new Column<Uint8Array>('bytes'),
};

export type Columns = Readonly<Record<string, Column<unknown>>>;

export interface TableOptions {
  /** The table exists on this engine only (the cluster's PostgreSQL-only bookkeeping). */
  only?: Dialect;
  /**
   * The table has a full-text index (storage/full-text.ts), which adds what the code never reads
   * through these types: on SQLite an FTS5 table `<table>_fts` over `columns` (and, when the row
   * key is `rid`, an integer `rid` primary key on the table), on PostgreSQL a `search_vector` column.
   */
  fullText?: { columns: readonly string[]; sqliteRowKey: 'rid' | 'id' };
  /**
   * On SQLite the table keeps the integer `rid` primary key of a full-text index it no longer
   * has: it is the rows' own key there (dropping it would copy the table), and no code reads it.
   */
  sqliteRid?: true;
}

export class Table<C extends Columns> {
  constructor(
    readonly columns: C,
    readonly options: TableOptions,
  ) {}
}

export function table<C extends Columns>(columns: C, options: TableOptions = {}): Table<C> {
  return new Table(columns, options);
}

/**
 * A module's declared tables: the ones it owns (`owned`, every column), or the columns it reads of
 * tables another module owns (`reads`: a view the drift test checks against the database too, so
 * a module never imports another's declaration).
 */
export class TableSet<S extends Readonly<Record<string, Table<Columns>>>> {
  constructor(
    readonly role: 'owned' | 'reads',
    readonly tables: S,
  ) {}
}

export function ownedTables<S extends Readonly<Record<string, Table<Columns>>>>(tables: S): TableSet<S> {
  return new TableSet('owned', tables);
}

export function readsOfTables<S extends Readonly<Record<string, Table<Columns>>>>(tables: S): TableSet<S> {
  return new TableSet('reads', tables);
}

/** The Kysely row type of a declared table. */
export type RowOf<T> = T extends Table<infer C> ? { -readonly [K in keyof C]: C[K] extends Column<infer V> ? V : never } : never;

/** The Kysely database type of a set of declared tables: `Executor<TablesOf<typeof memoryTables>>`. */
export type TablesOf<T> = T extends TableSet<infer S> ? { -readonly [K in keyof S]: RowOf<S[K]> } : never;

/**
 * What runs a repository's queries: the pool, or a transaction on it (a Kysely `Transaction` is a
 * `Kysely`). A repository names the tables it owns (`Executor<MemoryTables>`); a transaction handed
 * from one module to another is an `Executor` without tables, which the receiver reads as its own.
 */
export type Executor<Tables = AnyTables> = Kysely<Tables>;

/**
 * The tables of a connection nobody has typed: storage's own handle on the database, which every
 * module's tables share and which storage may not name (it imports no module). Queries through it
 * are unchecked; a repository narrows it to its own tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely needs a table map here; storage cannot know the modules'
export type AnyTables = any;

/**
 * Decodes a JSON column, in the repository of the module that owns it (one decoder per column,
 * beside the queries that write it): services receive typed values and never parse stored text.
 * Stored JSON of another shape is corrupt data, reported with the column's name.
 */
export function decodeJson<T>(text: string, is: (value: unknown) => value is T, column: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`Stored ${column} is not valid JSON`);
  }
  if (!is(value)) throw new Error(`Stored ${column} is not the JSON it should hold`);
  return value;
}

export const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
