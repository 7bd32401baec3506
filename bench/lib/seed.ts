/**
 * Fills a fresh Hearth with the data set through its public API, many requests at a time, and
 * adds what makes every section of the gateway context non-empty: an active persona with
 * documents and a skill attached, active skills, the identity, preferences and a connector.
 */
import { api, inParallel, registerOwner } from './http.js';
import { buildOwnerIndex, createBuilder } from '../../src/storage/search/owner-index.js';
import { DOCUMENTS, MEMORY_ENTRIES, RARE_WORD, commonQuery, documentContent, memoryContent, type SkillBody } from './dataset.js';
import { ownerQuestion } from './notes.js';

/**
 * The memory module's bound on its in-memory words index (SEARCH_INDEX_MAX_COST in
 * src/modules/memory/memory.repo.ts, at the default SEARCH_INDEX_PERCENT): an owner past it is
 * searched by a scan of its rows. Repeated here, not imported: the repository keeps it private.
 */
const MEMORY_INDEX_BOUND = 500_000;

const SEED_CONCURRENCY = 50;

export interface Seeded {
  /** The owner's master token: every row but the first reads with it. */
  masterToken: string;
  /** A token holding a few scopes, as an agent's would. */
  scopedToken: string;
  /** A second owner's master token: its memory takes the write row's entries, so the reading owner keeps exactly the data set. */
  writerToken: string;
  /** The slug the by-slug row reads: a skill from the middle of the catalogue. */
  slug: string;
  seconds: number;
}

export async function seed(baseUrl: string, skills: SkillBody[]): Promise<Seeded> {
  const started = performance.now();
  const masterToken = await registerOwner(baseUrl, 'bench-owner');
  const writerToken = await registerOwner(baseUrl, 'bench-writer');
  const call = <T = any>(method: string, url: string, body?: unknown) => api<T>(baseUrl, method, url, body, masterToken);

  await inParallel(MEMORY_ENTRIES, SEED_CONCURRENCY, (i) => call('POST', '/api/v1/memory', { content: memoryContent(i) }));
  const documents = await inParallel(DOCUMENTS, SEED_CONCURRENCY, (i) =>
    call('POST', '/api/v1/brain/knowledge-base', { title: `Document ${i}`, content: documentContent(i) }),
  );
  const created = await inParallel(skills.length, SEED_CONCURRENCY, (i) => call('POST', '/api/v1/skills', skills[i]));
  const skillIds = created.map((res) => res.data.id as number);

  // Five active skills, spread over the catalogue, for the context's skills section.
  for (const i of [0, 2_000, 4_000, 6_000, 8_000]) await call('POST', `/api/v1/skills/${skillIds[i]}/activate`);
  const persona = await call('POST', '/api/v1/personas', {
    name: 'Assistant',
    description: 'The everyday assistant',
    soul_content: 'Be brief, kind and precise. Ask before acting on anything irreversible. '.repeat(10),
  });
  await call('POST', `/api/v1/personas/${persona.data.id}/activate`);
  for (const doc of documents.slice(0, 3)) await call('POST', `/api/v1/personas/${persona.data.id}/documents`, { documentId: doc.data.id });
  await call('POST', `/api/v1/personas/${persona.data.id}/skills`, { skillId: skillIds[0] });
  await call('PUT', '/api/v1/identity', {
    name: 'Alex Example',
    bio: 'Builds things and writes about them.',
    location: 'Lisbon',
    links: ['https://example.com'],
    professional: { title: 'Engineer', company: 'Example Ltd', skills: ['TypeScript', 'PostgreSQL'] },
    availability: { timezone: 'Europe/Lisbon', hours: '09:00-17:00' },
  });
  await call('PUT', '/api/v1/preferences', { language: 'en', tone: 'concise' });
  await call('POST', '/api/v1/connectors', { name: 'weather', baseUrl: 'https://api.example.com/v1', authType: 'none' });

  const token = await call('POST', '/api/v1/tokens', { name: 'bench agent', scopes: ['read', 'memory', 'skills'] });
  return {
    masterToken,
    scopedToken: token.data.token as string,
    writerToken,
    slug: skills[skills.length / 2]!.name,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Reads back what the rows rely on, so a search that quietly matches nothing (or a section
 * that is missing) shows here instead of as a fast, meaningless figure. Answers problems.
 */
export async function checkSeeded(baseUrl: string, seeded: Seeded): Promise<string[]> {
  const problems: string[] = [];
  const get = (url: string) => api(baseUrl, 'GET', url, undefined, seeded.masterToken);
  const rare = await get(`/api/v1/skills?q=${RARE_WORD}&limit=20`);
  if (rare.data.length !== 20) problems.push(`q=${RARE_WORD} found ${rare.data.length} skills, expected a full page of 20`);
  for (const k of [0, 1, 2]) {
    const q = commonQuery(k);
    const common = await get(`/api/v1/skills?q=${encodeURIComponent(q)}&limit=20`);
    if (common.data.length !== 20) problems.push(`q=${q} found ${common.data.length} skills, expected a full page of 20`);
  }
  // The one search must find notes and passages for the questions it is asked, not answer empty.
  for (const k of [0, 1, 2]) {
    const q = ownerQuestion(k);
    const found = await get(`/api/v1/search?q=${encodeURIComponent(q)}&types=memory,knowledge`);
    const types = new Set((found.data as Array<{ type: string }>).map((hit) => hit.type));
    if (!types.has('memory') || !types.has('knowledge')) problems.push(`search q=${q} found ${[...types].join(' and ') || 'nothing'}, expected memory entries and passages`);
  }
  const context = await get('/api/v1/gateway/context');
  for (const [section, value] of Object.entries(context.data)) {
    // `services` lists accounts connected through an OAuth provider's consent screen, which no
    // API call can stand in for: it stays empty here.
    if (section === 'services') continue;
    if (value === null || (Array.isArray(value) && value.length === 0)) problems.push(`the gateway context's ${section} section is empty`);
  }
  await get(`/api/v1/skills/_by_slug/${seeded.slug}`);
  return problems;
}

/**
 * What the seeded owner's memory costs the words index, built here by the server's own code from
 * the same texts: the search row must time the index, not the scan an owner past the bound gets.
 * `textsCost` is what the entries' kept texts cost (memory.repo.ts' SEARCH_PAYLOAD, bounded
 * apart by the same figure): past it, the row would time reading each hit's row instead.
 */
export function memoryIndexCost(): { cost: number; textsCost: number; bound: number; words: number } {
  const rows = Array.from({ length: MEMORY_ENTRIES }, (_, i) => ({ id: String(i), content: memoryContent(i), tags: '[]', superseded_at: null, valid_until: null }));
  const fullText = { table: 'memory_entries', rowKey: 'id', columns: [{ name: 'content', weight: 1 }] };
  const index = buildOwnerIndex<string>(rows, fullText, [], 0)!;
  const withTexts = createBuilder<string>(fullText, [], ['content', 'tags', 'superseded_at', 'valid_until'], undefined, Infinity, Infinity);
  for (const row of rows) withTexts.add(row);
  return { cost: index.cost, textsCost: withTexts.finish(0)!.cost - index.cost, bound: MEMORY_INDEX_BOUND, words: index.words.length };
}

/** How many memory entries the owner has, as the gateway context counts them. */
export async function memoryTotal(baseUrl: string, token: string): Promise<number> {
  const context = await api(baseUrl, 'GET', '/api/v1/gateway/context', undefined, token);
  return context.data.memory.total as number;
}
