import type { ApiAnswer } from './mcp.tools.js';

/**
 * The owner's persona, skills and knowledge-base documents as MCP resources, and each active
 * skill as a prompt. Like the tools, everything is read through the API's own routes with the
 * caller's token, so a resource is listed and readable exactly when its route is.
 */

/** Runs a GET of the API as the caller. */
export type ApiGet = (url: string) => Promise<ApiAnswer>;

export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  description?: string;
  mimeType: string;
}

export interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

/** Resources and prompts per page. */
export const MCP_PAGE_SIZE = 50;

export const PERSONA_URI = 'hearth://persona';
const SKILL_URI = /^hearth:\/\/skills\/(.+)$/;
const DOCUMENT_URI = /^hearth:\/\/knowledge\/(.+)$/;

export const RESOURCE_TEMPLATES = [
  { uriTemplate: 'hearth://skills/{slug}', name: 'skill', title: 'A skill', description: 'A skill of the owner, as markdown with its front matter', mimeType: 'text/markdown' },
  { uriTemplate: 'hearth://knowledge/{id}', name: 'document', title: 'A knowledge-base document', description: "A document of the owner's knowledge base", mimeType: 'text/plain' },
];

/** Thrown for a resource or prompt that does not exist or may not be read; `code` is the API's. */
export class McpLookupError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function parse<T>(answer: ApiAnswer): T {
  if (answer.status >= 400) {
    let code = 'UPSTREAM_ERROR';
    let message = `HTTP ${answer.status}`;
    try {
      const body = JSON.parse(answer.body) as { error?: string; message?: string };
      code = body.error ?? code;
      message = body.message ?? message;
    } catch {
      // Not the API's error shape: keep the status.
    }
    throw new McpLookupError(code, `${code}: ${message}`);
  }
  return JSON.parse(answer.body) as T;
}

/** One list paged across kinds: which kind the next page continues, and that kind's own cursor. */
interface Position {
  kind: 'skills' | 'knowledge';
  cursor?: string;
}

function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decodeCursor(cursor: string | undefined): Position | undefined {
  if (!cursor) return undefined;
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position;
    if ((position.kind === 'skills' || position.kind === 'knowledge') && (position.cursor === undefined || typeof position.cursor === 'string')) return position;
  } catch {
    // Falls through to the refusal.
  }
  throw new McpLookupError('VALIDATION_ERROR', 'VALIDATION_ERROR: cursor is not a nextCursor this server gave');
}

interface Persona {
  id: string;
  name: string;
  description: string | null;
  soul_content: string;
  active: boolean;
}
interface SkillSummary {
  id: number;
  slug: string;
  name: string;
  description: string | null;
  active: boolean;
}
interface DocumentSummary {
  id: string;
  title: string;
  mimeType?: string | null;
}
interface PageOf<T> {
  data: T[];
  nextCursor: string | null;
}

/** The active persona, if the caller may read personas and one is active. */
async function activePersona(get: ApiGet): Promise<Persona | undefined> {
  const answer = await get('/api/v1/personas/active');
  if (answer.status === 403 || answer.status === 404) return undefined;
  return parse<{ data: Persona }>(answer).data;
}

/** A page of resources: the persona first, then skills, then documents, each as far as the token may read them. */
export async function listResources(get: ApiGet, cursor: string | undefined): Promise<{ resources: ResourceEntry[]; nextCursor?: string }> {
  const resources: ResourceEntry[] = [];
  let position = decodeCursor(cursor);
  if (!position) {
    const persona = await activePersona(get);
    if (persona) {
      resources.push({ uri: PERSONA_URI, name: 'persona', title: `Persona: ${persona.name}`, description: 'The active persona: adopt it', mimeType: 'text/markdown' });
    }
    position = { kind: 'skills' };
  }
  if (position.kind === 'skills') {
    const answer = await get(`/api/v1/skills?limit=${MCP_PAGE_SIZE}${position.cursor ? `&cursor=${encodeURIComponent(position.cursor)}` : ''}`);
    if (answer.status !== 403) {
      const page: PageOf<SkillSummary> = parse(answer);
      for (const skill of page.data) {
        resources.push({ uri: `hearth://skills/${skill.slug}`, name: skill.slug, title: skill.name, ...(skill.description ? { description: skill.description } : {}), mimeType: 'text/markdown' });
      }
      if (page.nextCursor) return { resources, nextCursor: encodeCursor({ kind: 'skills', cursor: page.nextCursor }) };
    }
    position = { kind: 'knowledge' };
  }
  const answer = await get(`/api/v1/brain/knowledge-base?limit=${MCP_PAGE_SIZE}${position.cursor ? `&cursor=${encodeURIComponent(position.cursor)}` : ''}`);
  if (answer.status === 403) return { resources };
  const page: PageOf<DocumentSummary> = parse(answer);
  for (const document of page.data) {
    resources.push({ uri: `hearth://knowledge/${document.id}`, name: document.id, title: document.title, mimeType: document.mimeType || 'text/plain' });
  }
  return page.nextCursor ? { resources, nextCursor: encodeCursor({ kind: 'knowledge', cursor: page.nextCursor }) } : { resources };
}

/** A skill's markdown (front matter and instructions), by slug. */
async function skillMarkdown(get: ApiGet, slug: string): Promise<{ skill: SkillSummary; markdown: string }> {
  const { data: skill }: { data: SkillSummary } = parse(await get(`/api/v1/skills/_by_slug/${encodeURIComponent(slug)}`));
  const answer = await get(`/api/v1/skills/${skill.id}/skill.md`);
  if (answer.status >= 400) parse(answer);
  return { skill, markdown: answer.body };
}

export async function readResource(get: ApiGet, uri: string): Promise<ResourceContent> {
  if (uri === PERSONA_URI) {
    const persona = await activePersona(get);
    if (!persona) throw new McpLookupError('NOT_FOUND', 'NOT_FOUND: no persona is active, or this token may not read personas (scope personas)');
    const text = `# ${persona.name}\n\n${persona.description ? `${persona.description}\n\n` : ''}${persona.soul_content}`;
    return { uri, mimeType: 'text/markdown', text };
  }
  const skill = SKILL_URI.exec(uri);
  if (skill) return { uri, mimeType: 'text/markdown', text: (await skillMarkdown(get, decodeURIComponent(skill[1]!))).markdown };
  const document = DOCUMENT_URI.exec(uri);
  if (document) {
    const { data }: { data: { content: string; mimeType?: string | null } } = parse(await get(`/api/v1/brain/knowledge-base/${encodeURIComponent(decodeURIComponent(document[1]!))}`));
    return { uri, mimeType: data.mimeType || 'text/plain', text: data.content };
  }
  throw new McpLookupError('NOT_FOUND', `NOT_FOUND: ${uri} is not a Hearth resource; resources/list names them`);
}

/** A page of prompts: the owner's active skills. */
export async function listPrompts(get: ApiGet, cursor: string | undefined): Promise<{ prompts: Array<{ name: string; title: string; description?: string }>; nextCursor?: string }> {
  const position = decodeCursor(cursor);
  const answer = await get(`/api/v1/skills?limit=${MCP_PAGE_SIZE}${position?.cursor ? `&cursor=${encodeURIComponent(position.cursor)}` : ''}`);
  if (answer.status === 403) return { prompts: [] };
  const page: PageOf<SkillSummary> = parse(answer);
  const prompts = page.data
    .filter((skill) => skill.active)
    .map((skill) => ({ name: skill.slug, title: skill.name, ...(skill.description ? { description: skill.description } : {}) }));
  return page.nextCursor ? { prompts, nextCursor: encodeCursor({ kind: 'skills', cursor: page.nextCursor }) } : { prompts };
}

/** An active skill as a prompt: its instructions, as one user message. */
export async function getPrompt(get: ApiGet, name: string) {
  const { skill, markdown } = await skillMarkdown(get, name);
  if (!skill.active) throw new McpLookupError('NOT_FOUND', `NOT_FOUND: the skill ${name} is not active; activate it to use it as a prompt`);
  return {
    ...(skill.description ? { description: skill.description } : {}),
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: markdown } }],
  };
}
