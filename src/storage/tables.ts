/**
 * Table types for Kysely. Both engines store the same shapes:
 * - times are ISO 8601 UTC strings (see lib/time.ts),
 * - booleans are integers 0/1,
 * - JSON values are text.
 * Each later module adds its tables here beside its migration.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  role: 'admin' | 'user';
  plan_id: string;
  failed_logins: number;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface TokensTable {
  id: string;
  owner_id: string;
  kind: 'master' | 'session' | 'api' | 'handshake';
  name: string;
  /** JSON array of scope names; empty for master and session tokens, which hold every scope. */
  scopes: string;
  secret_hash: string;
  hint: string;
  handshake_id: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface HandshakesTable {
  id: string;
  owner_id: string;
  agent_id: string;
  requested_scopes: string;
  message: string;
  status: 'pending' | 'approved' | 'denied';
  token_id: string | null;
  client_ip: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  revoked_at: string | null;
}

export interface AuditLogTable {
  id: string;
  owner_id: string | null;
  action: string;
  outcome: 'success' | 'failure' | 'denied';
  token_id: string | null;
  ip: string | null;
  user_agent: string | null;
  target_type: string | null;
  target_id: string | null;
  /** JSON object of non-secret details. */
  details: string | null;
  created_at: string;
}

/** One JSON document per owner (identity, preferences). */
export interface OwnerDocumentTable {
  owner_id: string;
  document: string;
  updated_at: string;
}

export interface MemoryEntriesTable {
  id: string;
  owner_id: string;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface KbDocumentsTable {
  id: string;
  owner_id: string;
  /** Unique per owner: the upsert key. */
  title: string;
  content: string;
  source: string;
  mime_type: string | null;
  size_bytes: number;
  created_at: string;
  updated_at: string;
}

export interface SkillsTable {
  id: Generated<number>;
  owner_id: string;
  slug: string;
  /** `slug` lower-cased: unique per owner. */
  slug_key: string;
  name: string;
  description: string;
  category: string;
  category_key: string;
  script_content: string;
  active: number;
  /** JSON object: where the skill came from (created here, installed from a listing, …). */
  origin: string;
  created_at: string;
  updated_at: string;
}

export interface PersonasTable {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  soul_content: string;
  active: number;
  created_at: string;
  updated_at: string;
}

export interface PersonaDocumentsTable {
  persona_id: string;
  document_id: string;
  owner_id: string;
  created_at: string;
}

export interface PersonaSkillsTable {
  persona_id: string;
  skill_id: number;
  owner_id: string;
  created_at: string;
}

export interface SkillDocumentsTable {
  skill_id: number;
  document_id: string;
  owner_id: string;
  created_at: string;
}

export interface Database {
  users: UsersTable;
  tokens: TokensTable;
  handshakes: HandshakesTable;
  audit_log: AuditLogTable;
  identity: OwnerDocumentTable;
  preferences: OwnerDocumentTable;
  memory_entries: MemoryEntriesTable;
  kb_documents: KbDocumentsTable;
  skills: SkillsTable;
  personas: PersonasTable;
  persona_documents: PersonaDocumentsTable;
  persona_skills: PersonaSkillsTable;
  skill_documents: SkillDocumentsTable;
}
