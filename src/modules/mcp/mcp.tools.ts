import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { CatalogRoute, Principal } from '../../http/access.js';
import { checkAccess } from '../../http/access.js';
import { RecordId } from '../../http/schemas.js';

/**
 * MCP tools are the API itself: each tool names the route it mirrors by operationId, and its
 * input schema, output schema, scopes and error messages are that route's. A call runs the
 * route in-process with the caller's own token (see mcp.server.ts), so validation, access
 * checks, rate limits, audit and answers are exactly the API's and cannot drift from it.
 */

/** What the MCP specification asks a server to say truthfully about each tool. */
export interface ToolAnnotations {
  /** The tool changes nothing. */
  readOnlyHint: boolean;
  /** The tool may delete or overwrite what is stored (meaningful when not read-only). */
  destructiveHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** It reaches the world outside Hearth: a connected account, a remote PC, an LLM. */
  openWorldHint: boolean;
}

export interface ToolSpec {
  name: string;
  title: string;
  /** The route it runs. */
  operationId: string;
  description: string;
  annotations: ToolAnnotations;
  /**
   * Values the tool sends for arguments the caller leaves out, where a model's use differs from
   * the route's own default (shown as the argument's `default`; a value the caller gives wins).
   */
  defaults?: Readonly<Record<string, string | number | boolean>>;
  /** Query arguments the tool always sends and does not offer: what the route can do that a model has no use for. */
  fixed?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Optional query arguments the tool does not offer (the route's own default applies): filters
   * for the owner's review in the console, which would cost every prompt their words.
   */
  omitted?: readonly string[];
  /**
   * Shorter words for an argument than its route's description, where the route's are written
   * for a reader of the API reference and would cost every prompt a paragraph.
   */
  argumentNotes?: Readonly<Record<string, string>>;
  /**
   * What the tool makes of the route's answer (unwrapped from its `data`), for a tool whose
   * result is not the route's answer as it stands; it throws a ToolRefusal to answer an error.
   */
  answer?: (value: unknown, principal: Principal) => Record<string, unknown>;
}

/** A tool's refusal of a call whose route answered fine: told to the model as a tool error. */
export class ToolRefusal extends Error {}

/**
 * The token budget `get_context` asks for when the model names none: a model puts the whole
 * answer into its prompt, so it gets the owner's context at about a page of text, the items that
 * serve its `task` first, rather than every section whole (a master token's answer with 100
 * memory entries runs past 12,000 estimated tokens).
 */
export const MCP_CONTEXT_TOKENS = 4000;

const read = (openWorld = false): ToolAnnotations => ({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: openWorld });
const add = (openWorld = false): ToolAnnotations => ({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: openWorld });
const overwrite = (openWorld = false): ToolAnnotations => ({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: openWorld });
/** Effects outside Hearth that cannot be judged in advance (a service call, a shell command). */
const act = (): ToolAnnotations => ({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });

/**
 * check_approval's answer: the approval as the requesting token follows it. Over MCP a token sees
 * only the approvals its own calls asked for (the route also shows the owner's master token every
 * approval, which is the console's business, not a model's).
 */
function approvalOutcome(value: unknown, principal: Principal): Record<string, unknown> {
  const approval = value as { id: string; tokenId: string; status: string; description: string; expiresAt: string; result: { status: number; body: unknown } | null };
  if (approval.tokenId !== principal.tokenId) throw new ToolRefusal(`NOT_FOUND: no approval ${approval.id} of this token; check_approval takes the approvalId one of this token's calls answered`);
  const next: Record<string, string> = {
    pending: 'The owner has not decided yet: tell the person and check again later; do not repeat the call.',
    approved: 'Approved and running: check again shortly.',
    executed: 'The call ran; result holds what it answered.',
    failed: 'The call ran and failed; result holds its error when there is one.',
    denied: 'The owner refused: do not repeat the call unless the person asks for it.',
    expired: 'Nobody decided in time: call the tool again only if the person still wants it.',
  };
  const result = approval.result ? unwrap(approval.result.body) : undefined;
  return { approvalId: approval.id, status: approval.status, action: approval.description, expiresAt: approval.expiresAt, next: next[approval.status] ?? '', ...(result !== undefined ? { result } : {}) };
}

/**
 * add_memory's answer: the entry, flat as every tool answers one; when nothing was added, the
 * entry that already says it, with duplicateOf (its id) and matchedBy beside its fields.
 */
function memoryWriteAnswer(value: unknown): Record<string, unknown> {
  const body = value as Record<string, unknown>;
  if (typeof body.duplicateOf !== 'string' || typeof body.data !== 'object' || body.data === null) return body;
  return { ...(body.data as Record<string, unknown>), duplicateOf: body.duplicateOf, matchedBy: body.matchedBy };
}

/** The words a model needs for a memory entry's fields, shared by add_memory and update_memory. */
const MEMORY_FIELD_NOTES = {
  content: '',
  kind: '',
  tags: '',
  pinned: 'Always shown first',
  validFrom: '',
  validUntil: '',
  source: '',
} as const;

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'get_context',
    title: 'Load the context',
    operationId: 'getGatewayContext',
    description:
      "Call this first, with task when you know it: the persona to adopt, the owner's identity, and the memory and knowledge most relevant to the task, within maxTokens.",
    annotations: read(),
    defaults: { maxTokens: MCP_CONTEXT_TOKENS },
    // The REST route list is of no use to a model, whose tool list is what it may do.
    fixed: { omit: 'endpoints' },
    argumentNotes: {
      task: 'What you are about to do, in plain words: what serves it comes first',
      maxTokens: 'Budget for the whole answer in estimated tokens, 500 to 32000',
    },
  },
  {
    name: 'search',
    title: 'Search everything',
    operationId: 'search',
    description:
      "Use to find anything the owner wrote down or knows: memory, knowledge and skills at once, by words and meaning, best first; each hit holds its text and id.",
    annotations: read(),
    argumentNotes: {
      q: 'A question or words in plain language',
      types: 'Comma-separated: memory, knowledge, skills (default: all)',
    },
  },
  {
    name: 'search_memory',
    title: 'Search memory',
    operationId: 'listMemory',
    description:
      "Use to list or page through the owner's memory entries, newest first, or those matching q; prefer search to find something.",
    annotations: read(),
    argumentNotes: { q: 'Words or a question, best first', match: 'all: only entries holding every word of q', kind: '', tag: '', pinned: '', include: 'history: superseded entries too', asOf: 'What was current then' },
    omitted: ['author', 'channel'],
  },
  {
    name: 'add_memory',
    title: 'Remember',
    operationId: 'createMemory',
    description:
      "Use to remember something about the owner; when a stored fact changed, pass supersedes: [its id]. What is already stored is not added again: duplicateOf names it.",
    argumentNotes: { ...MEMORY_FIELD_NOTES, supersedes: 'Ids of entries this replaces' },
    annotations: add(),
    answer: memoryWriteAnswer,
  },
  {
    name: 'update_memory',
    title: 'Change a memory',
    operationId: 'updateMemory',
    description:
      'Use to correct an entry (null clears a field); when the fact changed, add_memory with supersedes instead.',
    argumentNotes: { ...MEMORY_FIELD_NOTES, supersededBy: 'Id of the entry replacing this; alone' },
    annotations: overwrite(),
  },
  { name: 'delete_memory', title: 'Forget a memory', operationId: 'deleteMemory', description: 'Delete one memory entry for good.', annotations: overwrite() },
  {
    name: 'search_knowledge',
    title: 'Search the knowledge base',
    operationId: 'searchKBPassages',
    description:
      "Use for passages of the owner's documents only, best answer to q first, each with its document's id (read_document gives the whole document).",
    annotations: read(),
    argumentNotes: { match: 'all: only passages holding every word of q' },
  },
  { name: 'read_document', title: 'Read a document', operationId: 'getKBDocument', description: 'One knowledge-base document with its full content.', annotations: read() },
  { name: 'add_document', title: 'Add a document', operationId: 'createKBDocument', description: 'Add a text or markdown document to the knowledge base.', annotations: add() },
  { name: 'list_skills', title: 'List skills', operationId: 'listSkills', description: "The owner's skills; filter by q, category or slug.", annotations: read(), argumentNotes: { q: 'Words matched against name, description and category', match: 'all: only skills holding every word of q', slug: '', category: '' } },
  { name: 'get_skill', title: 'Get a skill', operationId: 'getSkillBySlug', description: 'One skill with its instructions, by its slug.', annotations: read() },
  { name: 'get_persona', title: 'Get the persona', operationId: 'getActivePersona', description: 'The active persona with its soul content: adopt it.', annotations: read() },
  {
    name: 'get_identity',
    title: 'Get the identity',
    operationId: 'getIdentity',
    description: "The owner's public profile (other sections need their own scopes).",
    annotations: read(),
  },
  {
    name: 'list_services',
    title: 'List services',
    operationId: 'listServices',
    description: 'The services the owner can reach through Hearth and whether each is connected.',
    annotations: read(),
    argumentNotes: { category: 'Only services of this category', source: 'catalogue: built in; connector: defined by the owner; discovered: found on a website' },
  },
  {
    name: 'call_service',
    title: 'Call a service method',
    operationId: 'executeServiceMethod',
    description: 'Run a named method of a connected service (list_services names them).',
    annotations: act(),
  },
  {
    name: 'proxy_request',
    title: 'Send a request to a service',
    operationId: 'proxyServiceRequest',
    description: "Send an HTTP request to a connected service's API with the owner's credentials added by Hearth.",
    annotations: act(),
    argumentNotes: {
      service: 'A service id, connector or discovered API name',
      path: "Relative to the service's base address",
      headers: 'Extra headers; Hearth adds the credential',
      method: '',
    },
  },
  { name: 'list_mail', title: 'List mail', operationId: 'listMailMessages', description: "Messages in the owner's connected mailbox, newest first; q searches.", annotations: read(true) },
  { name: 'read_mail', title: 'Read mail', operationId: 'getMailMessage', description: 'One message with its headers and text.', annotations: read(true) },
  { name: 'send_mail', title: 'Send mail', operationId: 'sendMail', description: "Send an email from the owner's connected mailbox.", annotations: add(true), argumentNotes: { to: 'Recipients, comma-separated', subject: '', cc: 'Copy recipients', bcc: 'Blind copy recipients' } },
  { name: 'list_files', title: 'List files', operationId: 'listStorageFiles', description: "Files in the owner's connected file storage; q searches.", annotations: read(true) },
  { name: 'read_file', title: 'Read a file', operationId: 'readStorageFile', description: "Read a file of the owner's connected file storage (text as text, other files base64).", annotations: read(true) },
  { name: 'upload_file', title: 'Upload a file', operationId: 'uploadStorageFile', description: "Store a new file in the owner's connected file storage.", annotations: add(true) },
  { name: 'list_devices', title: 'List devices', operationId: 'listAfpDevices', description: "The owner's PCs running the Hearth daemon, and which are online.", annotations: read() },
  { name: 'device_ls', title: 'List a folder on a PC', operationId: 'afpListDir', description: 'The entries of a folder on one of the owner\'s PCs.', annotations: read(true) },
  { name: 'device_read', title: 'Read a file on a PC', operationId: 'afpReadFile', description: "Read a file on one of the owner's PCs.", annotations: read(true) },
  { name: 'device_write', title: 'Write a file on a PC', operationId: 'afpWriteFile', description: "Write a file on one of the owner's PCs, replacing what is there.", annotations: overwrite(true) },
  { name: 'device_exec', title: 'Run a command on a PC', operationId: 'afpExec', description: "Run a command on one of the owner's PCs and answer its output.", annotations: act() },
  {
    name: 'chat',
    title: 'Chat with the persona',
    operationId: 'chat',
    description: "Send a message to the owner's active persona, answered by the owner's configured model with memory and knowledge.",
    annotations: add(true),
  },
  {
    name: 'check_approval',
    title: 'Check an approval',
    operationId: 'getApproval',
    description:
      "Use after a call answered an approvalId (held for the owner's approval): its status and, once executed, what the call answered.",
    annotations: read(),
    argumentNotes: { id: 'The approvalId the held call answered' },
    answer: approvalOutcome,
  },
];

type JsonSchema = Record<string, unknown>;

/** What an API route answered to a tool call or a resource read. */
export interface ApiAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** A tool ready to list and to run: its schemas and the route it runs. */
export interface Tool extends ToolSpec {
  route: CatalogRoute;
  /** The route's input as one argument object, every rule kept: what arguments are checked against. */
  inputSchema: JsonSchema & { type: 'object' };
  /** The same arguments as tools/list shows them to a model: see compactSchema. */
  listedInputSchema: JsonSchema & { type: 'object' };
  /** Which input properties go where in the request. */
  placement: { path: string[]; query: string[]; body: string[] | 'whole' | null };
}

/**
 * A copy of a schema as plain JSON Schema: TypeBox's symbols dropped by the JSON round trip,
 * and `$id`s removed so that clients compiling several tools' schemas never see one twice.
 */
function plain(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' ? undefined : value)) as JsonSchema;
}

function objectParts(schema: unknown): { properties: Record<string, JsonSchema>; required: string[] } | undefined {
  if (!schema) return { properties: {}, required: [] };
  const s = plain(schema);
  if (s.type !== 'object' || typeof s.properties !== 'object') return undefined;
  return { properties: s.properties as Record<string, JsonSchema>, required: (s.required as string[] | undefined) ?? [] };
}

/** Argument descriptions longer than this are cut to their first sentence in tools/list. */
const LISTED_DESCRIPTION_CHARS = 80;

/**
 * A schema as a model needs it to choose arguments: types, enums, numeric bounds, defaults,
 * required names and one sentence of description. Length limits, patterns and their messages
 * stay in force (arguments are checked against the full schema, and a refusal names the rule),
 * but tools/list goes into every prompt, so it does not repeat them.
 */
/** Arguments whose name says all a model needs: their descriptions are left out of the list. */
const PAGING_ARGUMENTS = new Set(['limit', 'cursor']);

const isNullOnly = (schema: JsonSchema) => Object.keys(schema).length === 1 && schema.type === 'null';

function compactSchema(schema: unknown, nested = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactSchema(item, nested));
  if (typeof schema !== 'object' || schema === null) return schema;
  let source = schema as JsonSchema;
  const branches = Array.isArray(source.anyOf) ? (source.anyOf as unknown[]).map((branch) => compactSchema(branch, true) as JsonSchema) : undefined;
  if (Array.isArray(branches) && branches.length > 0 && branches.every((branch) => 'const' in branch)) {
    const { anyOf: _anyOf, ...rest } = source;
    source = { ...rest, type: typeof branches[0]!.const === 'number' ? 'number' : 'string', enum: branches.map((branch) => branch.const) };
  } else if (Array.isArray(branches) && branches.length > 0 && branches.every((branch) => Object.keys(branch).length === 1 && typeof branch.type === 'string')) {
    // A choice of plain types (text or null) is one type list.
    const { anyOf: _anyOf, ...rest } = source;
    source = { ...rest, type: branches.map((branch) => branch.type) };
  } else if (Array.isArray(branches) && branches.length === 2 && branches.some(isNullOnly)) {
    // A value or null (a field that null clears): the value's schema, with null among its types.
    const { anyOf: _anyOf, ...rest } = source;
    const value = branches.find((branch) => !isNullOnly(branch))!;
    if (typeof value.type === 'string') source = { ...rest, ...value, type: [value.type, 'null'] };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith('x-') || ['title', 'pattern', 'minLength', 'maxLength', 'patternProperties', 'additionalProperties'].includes(key)) continue;
    if (key === 'description' && typeof value === 'string') {
      // One sentence per argument: the words inside it (a list's items, an object's fields, one
      // branch of a choice) are the API reference's detail, and the argument's own says enough.
      if (nested) continue;
      // "Page size, 1 to 200 (default 50)" beside minimum, maximum and default says them twice.
      const bounded = 'minimum' in source || 'maximum' in source;
      const text = bounded ? value.replace(/,?\s*\d[\d,]* to \d[\d,]*(\s*\(default [^)]*\))?$/, '') : value;
      // An id argument's name says what it is; the API reference's generic words add nothing here.
      if (text && text !== RecordId.description) out[key] = shortDescription(text);
    }
    else if (key === 'properties' && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, compactSchema(property, true)]));
    } else out[key] = compactSchema(value, true);
  }
  return out;
}

function shortDescription(text: string): string {
  if (text.length <= LISTED_DESCRIPTION_CHARS) return text;
  // A sentence ends at a full stop, not at the one of "e.g." or "i.e.".
  let first = text.split(/(?<=\.)(?<!\b(?:e\.g|i\.e)\.)\s/)[0]!.replace(/\.$/, '');
  // Still long: what comes before its examples or details, when that says something.
  const lead = first.split(/:\s/)[0]!;
  if (first.length > LISTED_DESCRIPTION_CHARS && lead.length >= 20) first = lead;
  return first.length <= LISTED_DESCRIPTION_CHARS * 2 ? first : `${first.slice(0, LISTED_DESCRIPTION_CHARS * 2 - 1)}…`;
}

/**
 * A route's answer as a tool's result: the `{ data }` envelope is the API's, not the model's.
 * One resource answers as itself; a list (with `nextCursor` or other fields beside it) as
 * `{ items, … }`, since a result is an object; any other body as it is.
 */
export function unwrap(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body === undefined ? undefined : { value: body };
  const { data, ...rest } = body as Record<string, unknown>;
  if (!('data' in body)) return body as Record<string, unknown>;
  if (Array.isArray(data)) return { items: data, ...rest };
  if (typeof data === 'object' && data !== null && Object.keys(rest).length === 0) return data as Record<string, unknown>;
  return body as Record<string, unknown>;
}

/**
 * Builds each tool from the route it mirrors. Path parameters, query fields and body fields
 * become one flat argument object; a name used twice is a mistake in the table, caught here
 * when the app starts rather than by a confused agent.
 */
export function buildTools(catalog: readonly CatalogRoute[], specs: readonly ToolSpec[] = TOOL_SPECS): Tool[] {
  const byOperation = new Map(catalog.filter((r) => r.operationId).map((r) => [r.operationId!, r]));
  return specs.map((spec) => {
    const route = byOperation.get(spec.operationId);
    if (!route) throw new Error(`MCP tool ${spec.name} mirrors operation ${spec.operationId}, which no route has`);
    const path = objectParts(route.schema.params);
    const query = objectParts(route.schema.querystring);
    if (!path || !query) throw new Error(`MCP tool ${spec.name}: the route's params and querystring must be objects`);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const claim = (part: { properties: Record<string, JsonSchema>; required: string[] }) => {
      for (const [name, schema] of Object.entries(part.properties)) {
        if (name in properties) throw new Error(`MCP tool ${spec.name}: argument ${name} appears twice in the route's input`);
        properties[name] = schema;
      }
      required.push(...part.required);
    };
    claim(path);
    claim(query);
    for (const [name, value] of Object.entries(spec.defaults ?? {})) {
      const schema = query.properties[name];
      if (!schema || query.required.includes(name)) throw new Error(`MCP tool ${spec.name}: a default for ${name}, which is no optional query argument of its route`);
      properties[name] = { ...schema, default: value };
    }
    const notes = spec.argumentNotes ?? {};
    for (const name of spec.omitted ?? []) {
      if (!query.properties[name] || query.required.includes(name)) throw new Error(`MCP tool ${spec.name}: omits ${name}, which is no optional query argument of its route`);
      delete properties[name];
    }
    for (const name of Object.keys(spec.fixed ?? {})) {
      if (!query.properties[name] || query.required.includes(name)) throw new Error(`MCP tool ${spec.name}: a fixed ${name}, which is no optional query argument of its route`);
      delete properties[name];
    }
    let body: Tool['placement']['body'] = null;
    if (route.schema.body) {
      const parts = objectParts(route.schema.body);
      if (parts) {
        claim(parts);
        body = Object.keys(parts.properties);
      } else {
        claim({ properties: { body: plain(route.schema.body) }, required: ['body'] });
        body = 'whole';
      }
    }
    for (const name of Object.keys(notes)) if (!(name in properties)) throw new Error(`MCP tool ${spec.name}: a note for ${name}, which is no argument of it`);
    const listed = Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => {
        const compact = compactSchema(schema) as JsonSchema;
        // Paging arguments are the same on every list and named as every API names them.
        if (notes[name] === undefined && !PAGING_ARGUMENTS.has(name)) return [name, compact];
        // An empty note: the argument's name and type say it all.
        const { description: _description, ...bare } = compact;
        return [name, notes[name] ? { ...bare, description: notes[name] } : bare];
      }),
    );
    return {
      ...spec,
      route,
      inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
      listedInputSchema: { type: 'object', properties: listed, ...(required.length > 0 ? { required } : {}) },
      placement: { path: Object.keys(path.properties), query: Object.keys(query.properties), body },
    };
  });
}

/** Whether this caller may call the tool: the route's own access rule decides. */
export function mayCall(tool: Tool, principal: Principal): boolean {
  return checkAccess(tool.route.access, principal) === null;
}

/**
 * Arguments are checked against the tool's input schema before any request is made: a missing
 * or malformed path argument must never turn into another route's address. Formats and the
 * finer rules are left to the route, whose messages are the API's.
 */
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, coerceTypes: true, verbose: true });
const validators = new WeakMap<Tool, ValidateFunction>();

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/**
 * One rule an argument breaks, said as what to change: "content: must not be empty", not the
 * validator's "must NOT have fewer than 1 characters".
 */
function ruleText(error: ErrorObject): string {
  const schema = (error.parentSchema ?? {}) as JsonSchema;
  const params = error.params as Record<string, unknown>;
  const between = (low: unknown, high: unknown, unit: string) =>
    low !== undefined && high !== undefined ? `must be ${low} to ${high}${unit}` : low !== undefined ? `must be at least ${low}${unit}` : `must be at most ${high}${unit}`;
  switch (error.keyword) {
    case 'minLength':
      return schema.minLength === 1 ? 'must not be empty' : between(schema.minLength, schema.maxLength, ' characters long');
    case 'maxLength':
      return between(schema.minLength, schema.maxLength, ' characters long');
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return between(schema.minimum, schema.maximum, '');
    case 'minItems':
    case 'maxItems':
      return between(schema.minItems, schema.maxItems, ' items');
    case 'type':
      return `must be ${String(params.type).split(',').map((type) => TYPE_WORDS[type] ?? type).join(' or ')}`;
    case 'enum':
      return `must be one of ${(schema.enum as unknown[]).map(String).join(', ')}`;
    case 'anyOf': {
      const branches = (schema.anyOf as JsonSchema[] | undefined) ?? [];
      if (branches.length > 0 && branches.every((branch) => 'const' in branch)) return `must be one of ${branches.map((branch) => String(branch.const)).join(', ')}`;
      const types = branches.map((branch) => TYPE_WORDS[String(branch.type)]).filter(Boolean);
      return types.length === branches.length ? `must be ${types.join(' or ')}` : "is not of an allowed form; the tool's inputSchema shows what it takes";
    }
    case 'pattern':
      // The API's own words for the form, written for a person: "only letters, digits, …".
      return typeof schema['x-pattern-message'] === 'string' ? schema['x-pattern-message'] : 'is not of the allowed form; see its description in the inputSchema';
    default:
      return error.message ?? 'is not valid';
  }
}

/** Why the arguments do not fit the tool, or null when they do. */
export function argumentsProblem(tool: Tool, args: Record<string, unknown>): string | null {
  let validate = validators.get(tool);
  if (!validate) {
    validate = ajv.compile(tool.inputSchema);
    validators.set(tool, validate);
  }
  if (!validate(args)) {
    const problems = new Map<string, string>();
    for (const error of validate.errors ?? []) {
      const params = error.params as { missingProperty?: string; additionalProperty?: string };
      if (error.keyword === 'required') problems.set(params.missingProperty!, `${params.missingProperty}: is required`);
      else if (error.keyword === 'additionalProperties') problems.set(params.additionalProperty!, `${params.additionalProperty}: is no argument of ${tool.name}`);
      else {
        const at = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'arguments';
        // A value that fits no branch of an anyOf breaks every branch too; the anyOf says it once.
        if (error.schemaPath.includes('/anyOf/')) continue;
        if (!problems.has(at)) problems.set(at, `${at}: ${ruleText(error)}`);
      }
    }
    return [...problems.values()].join('; ');
  }
  for (const name of tool.placement.path) {
    const value = String(args[name] ?? '');
    // A dot segment is resolved away by URL parsing, and would name the parent route.
    if (value === '' || value === '.' || value === '..') return `${name}: must name one record (not empty, . or ..)`;
  }
  return null;
}

/** The request a tool call makes: method, URL with path and query filled in, and body. Call argumentsProblem first. */
export function toRequest(tool: Tool, args: Record<string, unknown>): { method: string; url: string; body: unknown } {
  let url = tool.route.path;
  for (const name of tool.placement.path) {
    const value = String(args[name] ?? '');
    if (value === '' || value === '.' || value === '..') throw new Error(`${tool.name}: ${name} must name one record`);
    url = url.replace(`{${name}}`, encodeURIComponent(value));
  }
  const query = new URLSearchParams();
  for (const name of tool.placement.query) {
    const value = tool.fixed?.[name] ?? args[name] ?? tool.defaults?.[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const qs = query.toString();
  let body: unknown;
  if (tool.placement.body === 'whole') body = args.body;
  else if (tool.placement.body) {
    const fields: Record<string, unknown> = {};
    for (const name of tool.placement.body) if (args[name] !== undefined) fields[name] = args[name];
    body = fields;
  }
  return { method: tool.route.method, url: qs ? `${url}?${qs}` : url, body };
}
