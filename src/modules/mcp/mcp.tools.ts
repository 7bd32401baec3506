import { Ajv, type ValidateFunction } from 'ajv';
import type { CatalogRoute, Principal } from '../../http/access.js';
import { checkAccess } from '../../http/access.js';

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
}

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

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'get_context',
    title: 'Load the context',
    operationId: 'getGatewayContext',
    description:
      "Call this first, with task (what you are about to do) when you know it: the active persona (adopt it), the owner's identity, the memory entries and knowledge passages most relevant to the task, connected services, each section as far as the token's scopes allow, within maxTokens.",
    annotations: read(),
    defaults: { maxTokens: MCP_CONTEXT_TOKENS },
    // The REST route list is of no use to a model, whose tool list is what it may do.
    fixed: { omit: 'endpoints' },
  },
  {
    name: 'search',
    title: 'Search everything',
    operationId: 'search',
    description:
      "Find what the owner knows: one search over memory entries, knowledge-base passages and skills, by words and by meaning, best first. q is a question or words in plain language; types (memory,knowledge,skills) narrows it, limit (default 10, at most 50). Each hit carries its id, type, title, the matching text (the query's words marked in marks), a score and whether it matched by words, meaning or both: enough to answer without another call (a skill's slug goes to get_skill, a passage's document id to read_document).",
    annotations: read(),
  },
  {
    name: 'search_memory',
    title: 'Search memory',
    operationId: 'listMemory',
    description:
      "The owner's long-term memory, newest first. With q (a question or words, in plain language), the entries holding any of its words, best first: more and rarer words rank higher; match=all keeps only entries holding every word. kind, tag, pinned, author (a token id) and channel (api, mcp, console) narrow the answer; superseded and expired entries are left out unless include=history, and asOf answers what was current at a date. Each entry tells who wrote it (author) and from what (source).",
    annotations: read(),
  },
  {
    name: 'add_memory',
    title: 'Remember',
    operationId: 'createMemory',
    description:
      'Store a new long-term memory entry (markdown, up to 64 KB). Say what it is with kind (fact, preference, event, instruction; note by default), tags, ' +
      "pinned for the owner's core facts and standing instructions, validFrom/validUntil when it holds only for a time, and source: where it comes from " +
      '(kind conversation, mail, document, url or other; ref; a short quote). Hearth records that you wrote it. When a stored fact changed ' +
      '(a move, a new job, a changed preference), add the new fact with supersedes: [the old entry\'s id] rather than a second entry beside it: ' +
      'the old one is kept as history and no longer served as current.',
    annotations: add(),
  },
  {
    name: 'update_memory',
    title: 'Change a memory',
    operationId: 'updateMemory',
    description:
      'Change a memory entry: its content, or any of kind, tags, pinned, validFrom, validUntil and source (null clears one); what you leave out stays. ' +
      'To correct a mistake, change it; when the fact itself changed, add the new one with add_memory and supersedes, or give supersededBy alone here ' +
      'to mark this entry replaced by a newer one (it is kept as history).',
    annotations: overwrite(),
  },
  { name: 'delete_memory', title: 'Forget a memory', operationId: 'deleteMemory', description: 'Delete one memory entry for good.', annotations: overwrite() },
  {
    name: 'search_knowledge',
    title: 'Search the knowledge base',
    operationId: 'searchKBPassages',
    description:
      "The passages of the owner's knowledge-base documents that best answer q (a question or words, in plain language), best first: each with its text, the document's id and title, the headings above it and its offsets in the document; read_document gives the whole document. match=all keeps only passages holding every word.",
    annotations: read(),
  },
  { name: 'read_document', title: 'Read a document', operationId: 'getKBDocument', description: 'One knowledge-base document with its full content.', annotations: read() },
  { name: 'add_document', title: 'Add a document', operationId: 'createKBDocument', description: 'Add a text or markdown document to the knowledge base.', annotations: add() },
  { name: 'list_skills', title: 'List skills', operationId: 'listSkills', description: "The owner's skills; filter by q, category or slug.", annotations: read() },
  { name: 'get_skill', title: 'Get a skill', operationId: 'getSkillBySlug', description: 'One skill with its instructions, by its slug.', annotations: read() },
  { name: 'get_persona', title: 'Get the persona', operationId: 'getActivePersona', description: 'The active persona with its soul content: adopt it.', annotations: read() },
  {
    name: 'get_identity',
    title: 'Get the identity',
    operationId: 'getIdentity',
    description: "The owner's public profile; its professional and availability sections need their own scopes.",
    annotations: read(),
  },
  { name: 'list_services', title: 'List services', operationId: 'listServices', description: 'The services the owner can reach through Hearth and whether each is connected.', annotations: read() },
  {
    name: 'call_service',
    title: 'Call a service method',
    operationId: 'executeServiceMethod',
    description: 'Run a named method of a connected service with parameters; list the methods with the API first.',
    annotations: act(),
  },
  {
    name: 'proxy_request',
    title: 'Send a request to a service',
    operationId: 'proxyServiceRequest',
    description: "Send an HTTP request to a connected service's API with the owner's credentials added by Hearth.",
    annotations: act(),
  },
  { name: 'list_mail', title: 'List mail', operationId: 'listMailMessages', description: "Messages in the owner's connected mailbox, newest first; q searches.", annotations: read(true) },
  { name: 'read_mail', title: 'Read mail', operationId: 'getMailMessage', description: 'One message with its headers and text.', annotations: read(true) },
  { name: 'send_mail', title: 'Send mail', operationId: 'sendMail', description: "Send an email from the owner's connected mailbox.", annotations: add(true) },
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
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
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

function successSchema(route: CatalogRoute): JsonSchema & { type: 'object' } {
  const responses = route.schema.response ?? {};
  const key = Object.keys(responses).find((status) => /^2\d\d$/.test(status));
  const schema = key ? plain(responses[key]) : undefined;
  if (schema && schema.type === 'object') return schema as JsonSchema & { type: 'object' };
  // An answer without a JSON object body (204): the tool answers an empty object.
  return { type: 'object', properties: {} };
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
    return {
      ...spec,
      route,
      inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
      outputSchema: successSchema(route),
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
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, coerceTypes: true });
const validators = new WeakMap<Tool, ValidateFunction>();

/** Why the arguments do not fit the tool, or null when they do. */
export function argumentsProblem(tool: Tool, args: Record<string, unknown>): string | null {
  let validate = validators.get(tool);
  if (!validate) {
    validate = ajv.compile(tool.inputSchema);
    validators.set(tool, validate);
  }
  if (!validate(args)) {
    return (validate.errors ?? [])
      .map((error) => `${error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'arguments'} ${error.message ?? 'is not valid'}${error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : ''}`)
      .join('; ');
  }
  for (const name of tool.placement.path) {
    const value = String(args[name] ?? '');
    // A dot segment is resolved away by URL parsing, and would name the parent route.
    if (value === '' || value === '.' || value === '..') return `${name} must name one record`;
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
