import type { AnyTables } from '../columns.js';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { searchTerms } from './tokenizer.js';

/**
 * Full-text search behind one small interface, on both engines:
 * - SQLite: an FTS5 table (porter stemming) that mirrors chosen columns of the base table,
 *   kept in step by triggers, ranked with bm25 and per-column weights;
 * - PostgreSQL: a generated, weighted `tsvector` column with a GIN index, ranked with ts_rank.
 * Modules declare an index once in a migration and search it with `searchRanked`.
 */
export interface FullTextIndex {
  /** The base table. */
  table: string;
  /**
   * The base table's stable integer key that FTS5 rows point at. SQLite renumbers implicit
   * rowids on VACUUM, so tables with text ids carry an explicit `rid INTEGER PRIMARY KEY`.
   */
  rowKey: string;
  /** Columns to index, most important first, each with its weight (higher ranks higher). */
  columns: ReadonlyArray<{ name: string; weight: number }>;
  /**
   * bm25's `b` for this table's in-memory ranking (owner-index.ts): how much a longer document's
   * words count less, from 0 (length ignored) to 0.75. Unset: 0.75, FTS5's own. Memory entries use
   * less (docs/decisions/search.md, "Length normalization per table").
   */
  lengthNormalization?: number;
}

const PG_WEIGHT_LETTERS = ['A', 'B', 'C', 'D'] as const;

function ftsTable(index: FullTextIndex): string {
  return `${index.table}_fts`;
}

/** Creates the index and what keeps it current. Call from a migration, after the table exists. */
export async function createFullTextIndex(db: Kysely<unknown>, dialect: Dialect, index: FullTextIndex): Promise<void> {
  const cols = index.columns.map((c) => c.name);
  if (dialect === 'sqlite') {
    const fts = ftsTable(index);
    const list = cols.join(', ');
    const newValues = cols.map((c) => `new.${c}`).join(', ');
    const oldValues = cols.map((c) => `old.${c}`).join(', ');
    await sql
      .raw(
        `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${index.table}', content_rowid='${index.rowKey}', tokenize='porter unicode61 remove_diacritics 2')`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${fts}_ai AFTER INSERT ON ${index.table} BEGIN
           INSERT INTO ${fts}(rowid, ${list}) VALUES (new.${index.rowKey}, ${newValues});
         END`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${fts}_ad AFTER DELETE ON ${index.table} BEGIN
           INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.${index.rowKey}, ${oldValues});
         END`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${fts}_au AFTER UPDATE OF ${list} ON ${index.table} BEGIN
           INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.${index.rowKey}, ${oldValues});
           INSERT INTO ${fts}(rowid, ${list}) VALUES (new.${index.rowKey}, ${newValues});
         END`,
      )
      .execute(db);
    return;
  }
  // PostgreSQL weights are the letters A–D; columns beyond the fourth share D.
  const vector = index.columns
    .map((c, i) => `setweight(to_tsvector('english', coalesce(${c.name}, '')), '${PG_WEIGHT_LETTERS[Math.min(i, 3)]}')`)
    .join(' || ');
  await sql.raw(`ALTER TABLE ${index.table} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (${vector}) STORED`).execute(db);
  await sql.raw(`CREATE INDEX ${index.table}_search ON ${index.table} USING GIN (search_vector)`).execute(db);
}

/**
 * `all`: every word must match (search boxes). `any`: one word is enough, best matches first
 * (retrieval for chat, where the query is a whole message).
 */
export type MatchMode = 'all' | 'any';

export function sqliteMatchExpression(terms: readonly string[], mode: MatchMode): string {
  // Quoting each term makes FTS5 operators in user input (AND, NEAR, column filters) inert.
  return terms.map((t) => `"${t.replace(/"/g, '""')}"*`).join(mode === 'all' ? ' ' : ' OR ');
}

export function pgTsQueryText(terms: readonly string[], mode: MatchMode): string {
  return terms.map((t) => `'${t.replace(/'/g, "''").replace(/\\/g, '')}':*`).join(mode === 'all' ? ' & ' : ' | ');
}

export interface SearchOptions {
  ownerId: string;
  q: string;
  limit: number;
  mode?: MatchMode;
}

export interface RankedHit<Id> {
  id: Id;
  rank: number;
}

/**
 * The ids of the owner's rows that match `q`, best first. Callers load the rows by id.
 * The owner filter is part of the query, so no other owner's row is ever ranked or returned.
 */
export async function searchRanked<Id extends string | number>(
  db: Kysely<AnyTables>,
  dialect: Dialect,
  index: FullTextIndex,
  options: SearchOptions,
): Promise<Array<RankedHit<Id>>> {
  const terms = searchTerms(options.q);
  if (terms.length === 0) return [];
  const mode = options.mode ?? 'all';
  const table = sql.table(index.table);

  if (dialect === 'sqlite') {
    const fts = sql.table(ftsTable(index));
    const weights = sql.raw(index.columns.map((c) => c.weight.toFixed(1)).join(', '));
    const result = await sql<{ id: Id; rank: number }>`
      SELECT t.id AS id, bm25(${fts}, ${weights}) AS rank
      FROM ${fts} JOIN ${table} t ON t.${sql.ref(index.rowKey)} = ${fts}.rowid
      WHERE ${fts} MATCH ${sqliteMatchExpression(terms, mode)} AND t.owner_id = ${options.ownerId}
      ORDER BY rank
      LIMIT ${options.limit}`.execute(db);
    // bm25 is lower-is-better; report higher-is-better on both engines.
    return result.rows.map((r) => ({ id: r.id, rank: -Number(r.rank) }));
  }

  const result = await sql<{ id: Id; rank: number }>`
    SELECT t.id AS id, ts_rank(t.search_vector, q) AS rank
    FROM ${table} t, to_tsquery('english', ${pgTsQueryText(terms, mode)}) q
    WHERE t.owner_id = ${options.ownerId} AND t.search_vector @@ q
    ORDER BY rank DESC, t.id
    LIMIT ${options.limit}`.execute(db);
  return result.rows.map((r) => ({ id: r.id, rank: Number(r.rank) }));
}
