/**
 * What an archive's values must be beyond their column's kind: the shape of each JSON column,
 * the values of each enumerated text column, as the owning module writes and reads them.
 *
 * A column's kind (portability.format.ts) says only "JSON" or "text": any JSON fits a JSON column
 * and any string a text one, yet the owning module decodes what it stored with its own checks
 * (`decodeJson(…, isStringArray, …)`, its answer schemas), and a stored value it cannot read
 * makes every later read of the account fail (a memory entry whose tags are an object answered
 * 500 to every listing of the account's history). So an import holds each value to what the
 * module itself would have written, taken from the module's exported schemas and enumerations
 * where it exports them, and refuses the archive otherwise, naming the record and the field.
 */
import { Type, type TSchema } from '@sinclair/typebox';
// Check alone, not the Value namespace (see plans.service.ts): the rest is never used here.
import { Check } from '@sinclair/typebox/value';
import { CHANNELS } from '../../http/channel.js';
import { isJsonObject, isStringArray } from '../../storage/columns.js';
import { AuditEntrySchema } from '../audit/audit.schemas.js';
import { ChatMessageSchema } from '../chat/chat.schemas.js';
import { AUTH_TYPES } from '../connectors/connectors.schemas.js';
import { MEMORY_KINDS, MemoryAuthorSchema, MemorySourceSchema } from '../memory/memory.schemas.js';
import { SKILL_ID_MAX, SkillOriginSchema } from '../skills/skills.schemas.js';
import { ApiStyle } from '../vault/vault.schemas.js';

interface FieldRule {
  holds(value: unknown): boolean;
  /** What the value must be, as a message ends: "the field tags must be <must>". */
  must: string;
}

const listOfStrings: FieldRule = { holds: isStringArray, must: 'a list of strings' };
const jsonObject: FieldRule = { holds: isJsonObject, must: 'a JSON object' };
const oneOf = (values: readonly string[]): FieldRule => ({
  holds: (value) => typeof value === 'string' && values.includes(value),
  must: `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
});
const shaped = (schema: TSchema, must: string): FieldRule => ({ holds: (value) => Check(schema, value), must });
/** The string literals of a union schema (`Type.Union([Type.Literal('a'), …])`, unions in it included), as the module declares them. */
function literalsOf(schema: TSchema): string[] {
  const { const: value, anyOf } = schema as { const?: unknown; anyOf?: TSchema[] };
  if (typeof value === 'string') return [value];
  return (anyOf ?? []).flatMap(literalsOf);
}

// memory.repo.ts reads `author` as the token and agent (the channel has a column of its own), and
// `editor` and `last_seen_by` as whole authors: the API answers them with MemoryAuthorSchema.
const StoredAuthor = Type.Object({ token: MemoryAuthorSchema.properties.token, agent: MemoryAuthorSchema.properties.agent });
const AUTHOR = 'an author as Hearth records it ({ "channel", "token": { "id", "name", "kind" } or null, "agent": { "kind", "id", "name" } or null })';

/**
 * A chat reply's sources as chat.repo.ts keeps them (`sourcesOf`): objects with a string id and
 * title (replies stored before chat cited memory have no `type`, so it is not required).
 */
const ChatSources = Type.Array(Type.Object({ id: Type.String(), title: Type.String() }));

/**
 * The rules, by table and column. A column left out holds what its kind says (any JSON, any
 * string); null is judged by the column's nullability before these rules are asked.
 */
const FIELD_RULES: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  identity: { document: jsonObject },
  preferences: { document: jsonObject },
  memory_entries: {
    kind: oneOf(MEMORY_KINDS),
    channel: oneOf(CHANNELS),
    tags: listOfStrings,
    supersedes: listOfStrings,
    author: shaped(StoredAuthor, AUTHOR),
    editor: shaped(MemoryAuthorSchema, AUTHOR),
    last_seen_by: shaped(MemoryAuthorSchema, AUTHOR),
    source: shaped(MemorySourceSchema, 'a source as the memory API takes it ({ "kind", "ref"?, "quote"? })'),
  },
  kb_passages: { heading_path: listOfStrings },
  // The numbers the skills API reads (GET /skills/{id} takes 1 to SKILL_ID_MAX).
  skills: {
    id: { holds: (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= SKILL_ID_MAX, must: `a whole number from 1 to ${SKILL_ID_MAX}` },
    origin: shaped(SkillOriginSchema, 'a JSON object with a string "type"'),
  },
  chat_messages: {
    role: oneOf(literalsOf(ChatMessageSchema.properties.role)),
    mode: oneOf(literalsOf(ChatMessageSchema.properties.mode)),
    sources: shaped(ChatSources, 'a list of sources, each with a string "id" and "title"'),
  },
  vault_tokens: { api_metadata: jsonObject },
  connectors: { auth_type: oneOf(AUTH_TYPES), api_style: oneOf(literalsOf(ApiStyle)), read_methods: listOfStrings },
  // The states oauth.tables.ts declares a stored connection in (the API's `not_connected` is no row).
  oauth_connections: { scopes: listOfStrings, status: oneOf(['connected', 'needs_reauth']) },
  webhook_endpoints: { events: listOfStrings },
  audit_log: { outcome: oneOf(literalsOf(AuditEntrySchema.properties.outcome)), details: jsonObject },
};

/**
 * Why a record of the archive (its values as the archive holds them, JSON decoded) holds a value
 * its module never writes: "the field tags must be a list of strings"; null when every value fits.
 */
export function fieldProblem(table: string, record: Readonly<Record<string, unknown>>): string | null {
  if (Object.hasOwn(FIELD_RULES, table)) {
    for (const [column, rule] of Object.entries(FIELD_RULES[table]!)) {
      const value = record[column];
      if (value === null || value === undefined) continue;
      if (!rule.holds(value)) return `the field ${column} must be ${rule.must}`;
    }
  }
  // The plan's knowledgeBytes limit adds up the documents' size_bytes (knowledge.repo.ts), which
  // the knowledge module sets to the content's size: an archive saying less would pass the limit.
  if (table === 'kb_documents' && typeof record.content === 'string' && record.size_bytes !== Buffer.byteLength(record.content, 'utf8')) {
    return `the field size_bytes must be the size of its content in bytes of UTF-8 (${Buffer.byteLength(record.content, 'utf8')})`;
  }
  return null;
}
