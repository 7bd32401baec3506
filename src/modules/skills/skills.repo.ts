import { sql } from 'kysely';
import { pgTsQueryText, sqliteMatchExpression, type FullTextIndex, type MatchMode } from '../../storage/search/full-text.js';
import { searchTerms } from '../../storage/search/tokenizer.js';
import type { Dialect } from '../../storage/dialect.js';
import type { BatchedWork, GroupCommit } from '../../storage/group-commit.js';
import { createSearchIndex } from '../../storage/search/index-cache.js';
import type { Executor } from '../../storage/columns.js';
import type { SkillsTable, SkillsTables } from './skills.tables.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import type { SkillOrigin, SkillSummary } from './skills.schemas.js';

/** The index created in migration 0003; its weights rank a name match above a description match. */
export const SKILLS_FULL_TEXT: FullTextIndex = {
  table: 'skills',
  rowKey: 'id',
  columns: [
    { name: 'name', weight: 10 },
    { name: 'description', weight: 4 },
    { name: 'category', weight: 2 },
  ],
};

// Columns by name: PostgreSQL's table also has `search_vector`, which is never read.
const SUMMARY_COLUMNS = ['id', 'slug', 'name', 'description', 'category', 'active', 'origin', 'created_at', 'updated_at'] as const;
const SUGGESTION_COLUMNS = ['id', 'slug', 'name', 'description', 'category'] as const;
const FULL_COLUMNS = [...SUMMARY_COLUMNS, 'script_content'] as const;

export type SkillRow = Omit<SkillsTable, 'id' | 'owner_id' | 'slug_key' | 'category_key'> & { id: number };
export type SkillSummaryRow = Omit<SkillRow, 'script_content'>;
export type SkillSuggestionRow = Pick<SkillRow, 'id' | 'slug' | 'name' | 'description' | 'category'>;
export type NewSkillRow = Omit<SkillsTable, 'id'>;

function parseOrigin(text: string): SkillOrigin {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as SkillOrigin).type === 'string') {
      return value as SkillOrigin;
    }
  } catch {
    // Fall through: a damaged origin must not make the skill unreadable.
  }
  return { type: 'unknown' };
}

/** A skill as lists and searches answer it (no SKILL.md). */
export function toSummary(row: SkillSummaryRow): SkillSummary {
  return {
    id: Number(row.id),
    slug: row.slug,
    name: row.name,
    description: row.description,
    category: row.category,
    active: Number(row.active) === 1,
    origin: parseOrigin(row.origin),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface SkillFilters {
  /** Lower-cased slug. */
  slugKey?: string | undefined;
  /** Lower-cased category. */
  categoryKey?: string | undefined;
}


/** A ranking's rows, best first, and each one's score (higher is better), index for index. */
export interface Ranked<Row> {
  rows: Row[];
  scores: number[];
}

/** An empty ranking, a new one each time (answers are cached and compared by identity). */
const none = <Row>(): Ranked<Row> => ({ rows: [], scores: [] });

/** Postings plus words the in-memory search index holds over all owners (some 20 MB at most). */
const SEARCH_INDEX_MAX_COST = 1_500_000;

/** What a change of a skill may set. */
export type SkillChanges = Partial<Omit<SkillsTable, 'id' | 'owner_id' | 'created_at' | 'origin'>>;

/**
 * The skills. Creations, changes and deletions share commits with concurrent writes
 * (storage/group-commit.ts): the repository decides how (a batch's creations in one statement
 * where it can), and a write answers once it is durable. `indexPercent`: the share of
 * SEARCH_INDEX_MAX_COST kept (the SEARCH_INDEX_PERCENT setting).
 */
export function createSkillsRepo(db: Executor<SkillsTables>, dialect: Dialect, groupCommit: Pick<GroupCommit, 'run' | 'runBatched'>, writes?: WriteTracker, indexPercent = 100) {
  // Without a write tracker SQLite has no way to see writes, so the database ranks instead.
  const index =
    dialect === 'postgres' || writes
      ? createSearchIndex<number>({
          db,
          dialect,
          index: SKILLS_FULL_TEXT,
          attributes: ['slug_key', 'category_key'],
          // The summary columns (descriptions are at most 1,024 characters): a search reads no row.
          // Each skill's summary is made once per build, and a search answers those objects: the
          // same ones until the next write rebuilds the index, so that the route serializes each
          // skill once rather than once per answer it appears in.
          payload: SUMMARY_COLUMNS,
          present: (row) => toSummary(row as unknown as SkillSummaryRow) as unknown as Record<string, unknown>,
          writes,
          pageSize: 500,
          maxCost: (SEARCH_INDEX_MAX_COST * indexPercent) / 100,
          integerIds: true,
        })
      : undefined;
  const sqliteWeights = sql.raw(SKILLS_FULL_TEXT.columns.map((c) => c.weight.toFixed(1)).join(', '));

  /**
   * The owner's skills matching `q`, best first: ranked by the in-memory index, then read by
   * id; or, where the index does not answer (too large, unusual query words), by the database,
   * rows and rank in one query. The database's ranking is
   * the same as `searchRanked` (bm25 with the index weights on SQLite, ts_rank over the
   * weighted tsvector on PostgreSQL); it is written out here so that the category and slug
   * filters apply before the limit and the rows come back without a second query.
   */
  async function ranked<Row>(
    ownerId: string,
    q: string,
    options: SkillFilters & { limit: number; mode: MatchMode; columns: 'summary' | 'suggestion'; terms?: readonly string[] | undefined },
  ): Promise<Ranked<Row>> {
    const terms = options.terms ?? searchTerms(q);
    if (terms.length === 0) return none();
    // Rows read from the database answered as the index answers them: summaries, or suggestion
    // rows (without the score the query read with them).
    const presented = (rows: Array<Record<string, unknown>>): Ranked<Row> => ({
      rows: rows.map((row) => {
        if (options.columns === 'summary') return toSummary(row as unknown as SkillSummaryRow);
        const { search_score: _score, ...rest } = row;
        return rest;
      }) as Row[],
      scores: rows.map((row) => Number(row.search_score)),
    });
    const hits = await index?.search(ownerId, {
      q,
      terms,
      limit: options.limit,
      mode: options.mode,
      where: { slug_key: options.slugKey, category_key: options.categoryKey },
    });
    if (hits) {
      if (hits.length === 0) return none();
      const scores = hits.map((hit) => hit.rank);
      if (hits.every((hit) => hit.row)) {
        // The index keeps the summaries: they are answered as they are (the same objects while
        // the index is unchanged; callers do not modify them).
        if (options.columns === 'summary') return { rows: hits.map((hit) => hit.row as Row), scores };
        const pick = SUGGESTION_COLUMNS;
        return { rows: hits.map((hit) => Object.fromEntries(pick.map((c) => [c, c === 'id' ? hit.id : hit.row![c]])) as Row), scores };
      }
      const rows = await db
        .selectFrom('skills')
        .select(options.columns === 'summary' ? SUMMARY_COLUMNS : SUGGESTION_COLUMNS)
        .where('owner_id', '=', ownerId)
        .where('id', 'in', hits.map((hit) => hit.id))
        .execute();
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      const found = hits.flatMap((hit) => {
        const row = byId.get(hit.id);
        return row ? [{ ...row, search_score: hit.rank }] : [];
      });
      return presented(found);
    }
    const columns =
      options.columns === 'summary'
        ? sql.raw(SUMMARY_COLUMNS.map((c) => `t.${c}`).join(', '))
        : sql.raw(['id', 'slug', 'name', 'description', 'category'].map((c) => `t.${c}`).join(', '));
    const slugFilter = options.slugKey !== undefined ? sql`AND t.slug_key = ${options.slugKey}` : sql.raw('');
    const categoryFilter = options.categoryKey !== undefined ? sql`AND t.category_key = ${options.categoryKey}` : sql.raw('');
    if (dialect === 'sqlite') {
      // bm25 is lower-is-better; the score answered is higher-is-better on both engines.
      const result = await sql<Record<string, unknown>>`
        SELECT ${columns}, -bm25(skills_fts, ${sqliteWeights}) AS search_score
        FROM skills_fts JOIN skills t ON t.id = skills_fts.rowid
        WHERE skills_fts MATCH ${sqliteMatchExpression(terms, options.mode)} AND t.owner_id = ${ownerId} ${slugFilter} ${categoryFilter}
        ORDER BY bm25(skills_fts, ${sqliteWeights}), t.id
        LIMIT ${options.limit}`.execute(db);
      return presented(result.rows);
    }
    const result = await sql<Record<string, unknown>>`
      SELECT ${columns}, ts_rank(t.search_vector, q) AS search_score
      FROM skills t, to_tsquery('english', ${pgTsQueryText(terms, options.mode)}) q
      WHERE t.owner_id = ${ownerId} AND t.search_vector @@ q ${slugFilter} ${categoryFilter}
      ORDER BY ts_rank(t.search_vector, q) DESC, t.id
      LIMIT ${options.limit}`.execute(db);
    return presented(result.rows);
  }

  async function insertOne(row: NewSkillRow, trx?: Executor<SkillsTables>): Promise<number> {
    const inserted = await (trx ?? db).insertInto('skills').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  /**
   * New skills of a group commit's batch; answers their ids in their order. On PostgreSQL one
   * statement however many there are (the columns go as arrays and are unnested, so the SQL
   * text and its prepared statement stay the same), each id matched to its row by owner and
   * slug key, which the unique index makes one row. Two of one name in a batch fail the
   * statement, and the group commit then writes each alone, so only the second is refused. On
   * SQLite one INSERT each: in process, a statement costs less than building a longer one.
   */
  async function insertMany(rows: readonly NewSkillRow[], trx: Executor<SkillsTables>): Promise<number[]> {
    if (dialect === 'sqlite' || rows.length === 1) {
      const ids: number[] = [];
      for (const row of rows) ids.push(await insertOne(row, trx));
      return ids;
    }
    const text = (name: Exclude<keyof NewSkillRow, 'active'>) => rows.map((row) => row[name]);
    const inserted = await trx
      .insertInto('skills')
      .columns(['owner_id', 'slug', 'slug_key', 'name', 'description', 'category', 'category_key', 'script_content', 'active', 'origin', 'created_at', 'updated_at'])
      .expression(
        sql`SELECT * FROM unnest(${text('owner_id')}::text[], ${text('slug')}::text[], ${text('slug_key')}::text[], ${text('name')}::text[], ${text('description')}::text[], ${text('category')}::text[], ${text('category_key')}::text[], ${text('script_content')}::text[], ${rows.map((row) => row.active)}::int[], ${text('origin')}::text[], ${text('created_at')}::text[], ${text('updated_at')}::text[])`,
      )
      .returning(['id', 'owner_id', 'slug_key'])
      .execute();
    const ids = new Map(inserted.map((row) => [`${row.owner_id}\u0000${row.slug_key}`, Number(row.id)]));
    return rows.map((row) => {
      const id = ids.get(`${row.owner_id}\u0000${row.slug_key}`);
      if (id === undefined) throw new Error(`The skill "${row.slug}" was not among the rows the insert answered`);
      return id;
    });
  }

  /** New skills: the creations of a batch in one statement where `insertMany` writes them so (PostgreSQL). */
  const creations: BatchedWork<NewSkillRow, number> = {
    run: (trx, rows) => insertMany(rows, trx),
    oneStatement: () => dialect === 'postgres',
  };

  /** The row as `get` reads it, locked on PostgreSQL inside a transaction. */
  function getRow(ownerId: string, id: number, trx?: Executor<SkillsTables>): Promise<SkillRow | undefined> {
    let query = (trx ?? db).selectFrom('skills').select(FULL_COLUMNS).where('owner_id', '=', ownerId).where('id', '=', id);
    if (trx && dialect === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  return {
    /** A new skill, committed with the creations of concurrent requests; answers its id. */
    create(row: NewSkillRow): Promise<number> {
      return groupCommit.runBatched(creations, row);
    },

    /**
     * Reads the row, computes the change from it and writes it in one transaction (the row is
     * locked on PostgreSQL), so a concurrent change cannot slip between the read and the write.
     * Answers the row as it was and the changes, or undefined when the owner has no such skill.
     * `compute` may run twice (see the rule for units in group-commit.ts): it must only compute.
     */
    change<C extends SkillChanges>(ownerId: string, id: number, compute: (row: SkillRow) => C): Promise<{ row: SkillRow; changes: C } | undefined> {
      return groupCommit.run(async (trx) => {
        const row = await getRow(ownerId, id, trx);
        if (!row) return undefined;
        const changes = compute(row);
        await trx.updateTable('skills').set(changes).where('owner_id', '=', ownerId).where('id', '=', id).execute();
        return { row, changes };
      });
    },

    /**
     * One skill with its SKILL.md. Inside a transaction on PostgreSQL the row is locked, so
     * that an update computes its new SKILL.md from the version it replaces.
     */
    async get(ownerId: string, id: number): Promise<SkillRow | undefined> {
      return getRow(ownerId, id);
    },

    async getBySlug(ownerId: string, slugKey: string): Promise<SkillRow | undefined> {
      return db.selectFrom('skills').select(FULL_COLUMNS).where('owner_id', '=', ownerId).where('slug_key', '=', slugKey).executeTakeFirst();
    },

    /** Summaries (no SKILL.md) of the owner's skills of these ids, ordered by id. */
    async summariesByIds(ownerId: string, ids: readonly number[]): Promise<SkillSummaryRow[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('skills').select(SUMMARY_COLUMNS).where('owner_id', '=', ownerId).where('id', 'in', [...ids]).orderBy('id').execute();
    },

    /** Skills by id or slug in one query, ordered by id. */
    async getMany(ownerId: string, ids: number[], slugKeys: string[]): Promise<SkillRow[]> {
      if (ids.length === 0 && slugKeys.length === 0) return [];
      return db
        .selectFrom('skills')
        .select(FULL_COLUMNS)
        .where('owner_id', '=', ownerId)
        .where((eb) => {
          const any = [];
          if (ids.length > 0) any.push(eb('id', 'in', ids));
          if (slugKeys.length > 0) any.push(eb('slug_key', 'in', slugKeys));
          return eb.or(any);
        })
        .orderBy('id')
        .execute();
    },

    /** A page of summaries, newest first; `afterId` is the last id of the previous page. */
    async list(ownerId: string, query: SkillFilters & { limit: number; afterId?: number | undefined }): Promise<SkillSummaryRow[]> {
      let q = db.selectFrom('skills').select(SUMMARY_COLUMNS).where('owner_id', '=', ownerId);
      if (query.slugKey !== undefined) q = q.where('slug_key', '=', query.slugKey);
      if (query.categoryKey !== undefined) q = q.where('category_key', '=', query.categoryKey);
      if (query.afterId !== undefined) q = q.where('id', '<', query.afterId);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /** `terms`: `searchTerms(q)`, when the caller has them; `mode`: any word ranked, or every word required. */
    async search(ownerId: string, q: string, options: SkillFilters & { limit: number; mode: MatchMode; terms?: readonly string[] }): Promise<SkillSummary[]> {
      const { slugKey, categoryKey, limit, mode, terms } = options;
      return (await ranked<SkillSummary>(ownerId, q, { slugKey, categoryKey, limit, terms, mode, columns: 'summary' })).rows;
    },

    /** The owner's skills holding any word of `q`, best first, each with its score (higher is better): the words' ranking fusion is handed. */
    async rankByWords(ownerId: string, q: string, limit: number): Promise<Ranked<SkillSummary>> {
      return ranked<SkillSummary>(ownerId, q, { limit, mode: 'any', columns: 'summary' });
    },

    async suggest(ownerId: string, q: string, limit: number): Promise<SkillSuggestionRow[]> {
      return (await ranked<SkillSuggestionRow>(ownerId, q, { limit, mode: 'any', columns: 'suggestion' })).rows;
    },

    async listActive(ownerId: string, limit: number): Promise<SkillSuggestionRow[]> {
      return db
        .selectFrom('skills')
        .select(['id', 'slug', 'name', 'description', 'category'])
        .where('owner_id', '=', ownerId)
        .where('active', '=', 1)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    /** Deletes a skill (its attachments cascade), committed with concurrent writes; false when the owner has no such skill. */
    async delete(ownerId: string, id: number): Promise<boolean> {
      const result = await groupCommit.run((trx) => trx.deleteFrom('skills').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },
  };
}
