import { AppError, InputError, notFound } from '../../http/errors.js';
import { isoNow } from '../../lib/time.js';
import type { MatchMode } from '../../storage/search/full-text.js';
import { searchTerms } from '../../storage/search/tokenizer.js';
import type { Dialect } from '../../storage/dialect.js';
import type { GroupCommit } from '../../storage/group-commit.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { Executor } from '../../storage/columns.js';
import type { SkillsTables } from './skills.tables.js';
import type { AttachmentsService } from '../attachments/attachments.service.js';
import { createDerivedCache, uncached, type DerivedCache } from '../../storage/derived-cache.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import { createSkillsRepo, toSummary, type SkillRow, type SkillSuggestionRow } from './skills.repo.js';
import type { ChangePublisher } from '../events/events.changes.js';
import {
  SKILL_BATCH_MAX,
  SKILL_DESCRIPTION_MAX,
  SKILL_NAME_REGEX,
  SKILL_SCRIPT_MAX,
  SKILL_SUGGESTIONS_MAX,
  type CreateSkillBody,
  type Skill,
  type SkillOrigin,
  type SkillSuggestion,
  type SkillSummary,
  type UpdateSkillBody,
} from './skills.schemas.js';

/** The fields a skill is made from, by the API or from a marketplace snapshot. */
export type SkillInput = CreateSkillBody;
export type SkillPatch = UpdateSkillBody;

export interface SkillListQuery {
  slug?: string | undefined;
  category?: string | undefined;
  q?: string | undefined;
  /** With q: any word ranked (the default), or every word required. */
  match?: MatchMode | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Skills the gateway context lists at most, so that a large catalogue cannot bloat it. */
export const CONTEXT_SKILLS_MAX = 100;

export interface SkillsServiceOptions {
  db: Executor<SkillsTables>;
  dialect: Dialect;
  attachments: AttachmentsService;
  /** Given to the repository, whose creations, changes and deletions share commits with concurrent ones (storage/group-commit.ts). */
  groupCommit: Pick<GroupCommit, 'run' | 'runBatched'>;
  /**
   * Keeps recent search and suggestion answers while the skills table is unchanged (embedded
   * engine only; see storage/write-tracker.ts), and tells the repository's in-memory search
   * index when to rebuild. A search still costs more than serving its answer again, and agents
   * repeat searches within a session.
   */
  writes?: WriteTracker | undefined;
  /** Told after each successful write (MCP sessions list their resources and prompts again). */
  changes?: ChangePublisher | undefined;
  /** SEARCH_INDEX_PERCENT: the share of the search index's default bound kept. */
  searchIndexPercent?: number | undefined;
}

const CREATED: SkillOrigin = { type: 'created' };

/** A cache key of one owner's: what `cached` and `getBySlug` store under, and the peeks read. */
const ownerKey = (ownerId: string, key: string) => `${ownerId}\u0000${key}`;

function toSkill(row: SkillRow): Skill {
  return { ...toSummary(row), scriptContent: row.script_content };
}

function toSuggestion(row: SkillSuggestionRow): SkillSuggestion {
  return { id: Number(row.id), slug: row.slug, name: row.name, description: row.description, category: row.category };
}

/** An input refused, named as the service knows it; the routes place it in the request. */
function invalid(field: string, message: string): InputError {
  return new InputError(field, message);
}

/** Trims and checks a name; the routes' schema says the same, but snapshots do not pass through it. */
function normalizeName(raw: string): string {
  const name = raw.trim();
  if (!SKILL_NAME_REGEX.test(name)) {
    throw invalid(
      'name',
      'must be 1 to 100 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit (the name is the slug, used in URLs)',
    );
  }
  return name;
}

function slugConflict(name: string): AppError {
  return new AppError(
    'CONFLICT',
    `A skill named "${name}" already exists (names are unique regardless of case). Choose another name, or update the existing skill`,
  );
}

/**
 * The SKILL.md to store and the description to keep. The record's name and description are
 * written into the frontmatter; when the record has no description and the caller did not set
 * one, the frontmatter's own description becomes the record's.
 */
type Sanitizer = (typeof import('./skills.frontmatter.js'))['sanitizeSkillMarkdown'];
let sanitizer: Promise<Sanitizer> | undefined;
/** The SKILL.md sanitizer, loaded with its YAML library on the first write of a skill rather than at start-up. */
const loadSanitizer = (): Promise<Sanitizer> => (sanitizer ??= import('./skills.frontmatter.js').then((m) => m.sanitizeSkillMarkdown));

function sanitizeFor(sanitizeSkillMarkdown: Sanitizer, script: string, name: string, description: string, adoptDescription: boolean) {
  if (script.length > SKILL_SCRIPT_MAX) {
    throw new AppError('PAYLOAD_TOO_LARGE', `A SKILL.md may have at most ${SKILL_SCRIPT_MAX} characters`);
  }
  const first = sanitizeSkillMarkdown(script, { name, description });
  if (adoptDescription && description === '' && first.frontmatterDescription) {
    // A YAML escape can spell U+0000, which the record cannot hold on PostgreSQL.
    const adopted = first.frontmatterDescription.replace(/\u0000/g, '').slice(0, SKILL_DESCRIPTION_MAX);
    return { content: sanitizeSkillMarkdown(first.content, { name, description: adopted }).content, description: adopted };
  }
  return { content: first.content, description };
}

export function createSkillsService(deps: SkillsServiceOptions) {
  const { db, attachments } = deps;
  const changed = (ownerId: string) => deps.changes?.publish({ type: 'skills.changed', ownerId });
  const repo = createSkillsRepo(db, deps.dialect, deps.groupCommit, deps.writes, deps.searchIndexPercent);
  // Weighed in rows; about 1 KB per row at most (summaries, no SKILL.md): the budget bounds the
  // cache near 5 MB, some 250 pages of 20 (a page holds at most 200 rows).
  const cache: DerivedCache<SkillSummary[] | SkillSuggestion[]> = deps.writes
    ? createDerivedCache({
        tracker: deps.writes,
        tables: ['skills'],
        maxEntries: 2000,
        maxWeight: 5_000,
        weigh: (rows) => Math.max(1, rows.length),
        // Free-text searches rarely repeat word for word: a search's answer is kept from its second request on.
        admitAfter: 4000,
      })
    : uncached();

  // Skills fetched by slug, whole (SKILL.md included): agents look the same skills up by name again
  // and again. Weighed in characters, so that large SKILL.md files cannot grow it past about 16 MB.
  const bySlug: DerivedCache<Skill> = deps.writes
    ? createDerivedCache({
        tracker: deps.writes,
        tables: ['skills'],
        maxEntries: 1000,
        maxWeight: 16 * 1024 * 1024,
        weigh: (skill) => skill.scriptContent.length + skill.description.length + 512,
      })
    : uncached();

  async function cached<V extends SkillSummary[] | SkillSuggestion[]>(ownerId: string, key: string, load: () => Promise<V>): Promise<V> {
    return (await cache.get(ownerKey(ownerId, key), load)) as V;
  }

  async function requireRow(ownerId: string, id: number): Promise<SkillRow> {
    const row = await repo.get(ownerId, id);
    if (!row) throw notFound('Skill', id);
    return row;
  }

  async function insert(ownerId: string, input: SkillInput, origin: SkillOrigin): Promise<Skill> {
    const name = normalizeName(input.name);
    const category = (input.category ?? '').trim();
    const { content, description } = sanitizeFor(await loadSanitizer(), input.scriptContent ?? '', name, (input.description ?? '').trim(), true);
    const now = isoNow();
    const row = {
      owner_id: ownerId,
      slug: name,
      slug_key: name.toLowerCase(),
      name,
      description,
      category,
      category_key: category.toLowerCase(),
      script_content: content,
      active: 0,
      origin: JSON.stringify(origin),
      created_at: now,
      updated_at: now,
    };
    try {
      const id = await repo.create(row);
      changed(ownerId);
      return toSkill({ ...row, id });
    } catch (error) {
      // The unique index decides, so two concurrent creates of one name cannot both succeed.
      if (isUniqueViolation(error)) throw slugConflict(name);
      throw error;
    }
  }

  /**
   * Reads the row, computes the change from it and writes it in one transaction (the row is
   * locked on PostgreSQL), so a concurrent rename cannot leave a SKILL.md naming the old name.
   * The repository answers undefined for a missing skill rather than throwing.
   */
  async function change(
    ownerId: string,
    id: number,
    compute: (row: SkillRow) => Partial<SkillRow> & { slug_key?: string; category_key?: string },
    /** The new name, when the change renames: a unique violation then means it is taken. */
    newName?: string,
  ): Promise<Skill> {
    const now = isoNow();
    let skill: Skill | undefined;
    try {
      const changed = await repo.change(ownerId, id, (row) => ({ ...compute(row), updated_at: now }));
      skill = changed && toSkill({ ...changed.row, ...changed.changes });
    } catch (error) {
      if (isUniqueViolation(error) && newName !== undefined) throw slugConflict(newName);
      throw error;
    }
    if (!skill) throw notFound('Skill', id);
    changed(ownerId);
    return skill;
  }

  return {
    /** POST /skills. */
    async create(ownerId: string, input: SkillInput): Promise<Skill> {
      return insert(ownerId, input, CREATED);
    },

    /** For the marketplace: a copy of another skill, with its origin; 409 when the name is taken. */
    async createFromSnapshot(
      ownerId: string,
      snapshot: { name: string; description: string; category: string; scriptContent: string },
      origin: SkillOrigin,
    ): Promise<Skill> {
      return insert(ownerId, snapshot, origin);
    },

    /**
     * A page of skills, or a search's ranked answer; a search also answers the key its answer is
     * cached under, for `cachedSearch`, and whether the cache keeps this answer.
     */
    async list(
      ownerId: string,
      query: SkillListQuery,
    ): Promise<{ skills: SkillSummary[]; nextCursor: string | null; search?: { key: string; kept: boolean } }> {
      const filters = {
        slugKey: query.slug?.toLowerCase(),
        categoryKey: query.category?.toLowerCase(),
      };
      if (query.q !== undefined) {
        if (query.cursor !== undefined) {
          throw invalid('cursor', 'cannot be combined with q: search results are ranked, not paged; raise limit (up to 200) instead');
        }
        const { q, limit } = query;
        const mode = query.match ?? 'any';
        const terms = searchTerms(q);
        const key = `search\u0000${mode}\u0000${terms.join(' ')}\u0000${filters.slugKey ?? ''}\u0000${filters.categoryKey ?? ''}\u0000${limit}`;
        // Answered by the in-memory index, the summaries are the index's own (made once per build).
        // Options written out rather than spread: a spread copies keys in V8's runtime, per request.
        const skills = await cached(ownerId, key, () =>
          repo.search(ownerId, q, { slugKey: filters.slugKey, categoryKey: filters.categoryKey, limit, mode, terms }),
        );
        // Kept: the cache holds this very answer now (most first searches are not kept: see `admitAfter`).
        return { skills, nextCursor: null, search: { key, kept: cache.peek(ownerKey(ownerId, key)) === skills } };
      }
      const afterId = query.cursor !== undefined ? Number(query.cursor) : undefined;
      // One row more than asked says whether another page exists.
      const rows = await repo.list(ownerId, { ...filters, limit: query.limit + 1, afterId });
      const page = rows.slice(0, query.limit);
      const nextCursor = rows.length > query.limit ? String(page[page.length - 1]!.id) : null;
      return { skills: page.map(toSummary), nextCursor };
    },

    /**
     * The owner's skills holding any word of `q`, best first, with their bm25 scores: the words'
     * ranking the one search hands to fusion (skills.search.ts).
     */
    async rankByWords(ownerId: string, q: string, limit: number): Promise<Array<{ skill: SkillSummary; score: number }>> {
      const { rows, scores } = await repo.rankByWords(ownerId, q, limit);
      return rows.map((skill, i) => ({ skill, score: scores[i]! }));
    },

    /** The owner's skills of these ids (summaries), in no particular order; an id of no skill of the owner's is left out. */
    async summaries(ownerId: string, ids: readonly number[]): Promise<SkillSummary[]> {
      return (await repo.summariesByIds(ownerId, [...new Set(ids)])).map(toSummary);
    },

    async suggestions(ownerId: string, q: string): Promise<SkillSuggestion[]> {
      return cached(ownerId, `suggest\u0000${searchTerms(q).join(' ')}`, async () =>
        (await repo.suggest(ownerId, q, SKILL_SUGGESTIONS_MAX)).map(toSuggestion),
      );
    },

    /** One skill with its SKILL.md (also for the marketplace, which snapshots it). */
    async getForOwner(ownerId: string, id: number): Promise<Skill> {
      return toSkill(await requireRow(ownerId, id));
    },

    /** The same object while the skill is unchanged (on the embedded engine), which lets the route reuse its serialized body. */
    async getBySlug(ownerId: string, slug: string): Promise<Skill> {
      const slugKey = slug.toLowerCase();
      // An unknown slug throws, so it is never cached.
      return bySlug.get(ownerKey(ownerId, slugKey), async () => {
        const row = await repo.getBySlug(ownerId, slugKey);
        if (!row) throw new AppError('NOT_FOUND', `No skill with the slug "${slug}"`);
        return toSkill(row);
      });
    },

    /** The search answer cached under `searchKey` (a search's key from `list`), while it still holds; undefined otherwise. */
    cachedSearch(ownerId: string, searchKey: string): SkillSummary[] | undefined {
      return cache.peek(ownerKey(ownerId, searchKey)) as SkillSummary[] | undefined;
    },

    /** What getBySlug would answer from its cache now, without waiting; undefined when it must look. */
    cachedBySlug(ownerId: string, slug: string): Skill | undefined {
      return bySlug.peek(ownerKey(ownerId, slug.toLowerCase()));
    },

    async batch(ownerId: string, ids: number[], slugs: string[]): Promise<Skill[]> {
      if (ids.length + slugs.length > SKILL_BATCH_MAX) {
        throw new AppError('VALIDATION_ERROR', `Ask for at most ${SKILL_BATCH_MAX} skills at once (ids and slugs together)`);
      }
      const rows = await repo.getMany(ownerId, [...new Set(ids)], [...new Set(slugs.map((s) => s.toLowerCase()))]);
      return rows.map(toSkill);
    },

    async update(ownerId: string, id: number, patch: SkillPatch): Promise<Skill> {
      const name = patch.name !== undefined ? normalizeName(patch.name) : undefined;
      const sanitize = await loadSanitizer();
      return change(
        ownerId,
        id,
        (row) => {
          const nextName = name ?? row.name;
          const category = patch.category !== undefined ? patch.category.trim() : row.category;
          const { content, description } = sanitizeFor(
            sanitize,
            patch.scriptContent ?? row.script_content,
            nextName,
            patch.description !== undefined ? patch.description.trim() : row.description,
            patch.description === undefined,
          );
          return {
            name: nextName,
            slug: nextName,
            slug_key: nextName.toLowerCase(),
            description,
            category,
            category_key: category.toLowerCase(),
            script_content: content,
            ...(patch.active !== undefined ? { active: patch.active ? 1 : 0 } : {}),
          };
        },
        name,
      );
    },

    async remove(ownerId: string, id: number): Promise<{ id: number; deleted: true }> {
      // Attachments go with it: the link tables cascade on delete.
      if (!(await repo.delete(ownerId, id))) throw notFound('Skill', id);
      changed(ownerId);
      return { id, deleted: true };
    },

    async content(ownerId: string, id: number): Promise<{ id: number; slug: string; name: string; content: string }> {
      const row = await requireRow(ownerId, id);
      return { id: Number(row.id), slug: row.slug, name: row.name, content: row.script_content };
    },

    /** PUT /skills/{id}/skill.md: the SKILL.md replaced and sanitized against the record. */
    async setMarkdown(ownerId: string, id: number, markdown: string): Promise<Skill> {
      const sanitize = await loadSanitizer();
      return change(ownerId, id, (row) => {
        const { content, description } = sanitizeFor(sanitize, markdown, row.name, row.description, true);
        return { script_content: content, description };
      });
    },

    async setActive(ownerId: string, id: number, active: boolean): Promise<Skill> {
      return change(ownerId, id, () => ({ active: active ? 1 : 0 }));
    },

    /** The owner's active skills for the gateway context: one query, at most `limit`. */
    async activeSummaries(ownerId: string, limit = CONTEXT_SKILLS_MAX): Promise<SkillSuggestion[]> {
      return (await repo.listActive(ownerId, limit)).map(toSuggestion);
    },

    listDocuments: (ownerId: string, id: number) => attachments.listDocuments(ownerId, { type: 'skill', id }),
    attachDocument: (ownerId: string, id: number, documentId: string) => attachments.attachDocument(ownerId, { type: 'skill', id }, documentId),
    detachDocument: (ownerId: string, id: number, documentId: string) => attachments.detachDocument(ownerId, { type: 'skill', id }, documentId),
    listPersonas: (ownerId: string, id: number) => attachments.listPersonasOfSkill(ownerId, id),
  };
}

export type SkillsService = ReturnType<typeof createSkillsService>;
