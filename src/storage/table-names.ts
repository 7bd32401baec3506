/**
 * Every table the migrations create, by name: what a derived cache, a gateway section or the
 * token cache says it reads, so that a misspelt table fails type-checking. Storage knows these
 * names because its migrations create the tables; their columns are declared by the modules that
 * own them (`<module>.tables.ts`), which storage never imports. test/schema.drift.test.ts fails
 * when this list and the tables the modules and storage declare differ.
 */
export const TABLE_NAMES = [
  'account_erasures',
  'afp_devices',
  'afp_links',
  'afp_payloads',
  'approvals',
  'audit_log',
  'authorization_clients',
  'authorization_codes',
  'authorization_refresh_tokens',
  'authorization_requests',
  'billing_events',
  'chat_conversations',
  'chat_messages',
  'cluster_nodes',
  'connectors',
  'event_outbox',
  'export_jobs',
  'handshakes',
  'identity',
  'kb_documents',
  'kb_passages',
  'kysely_migration',
  'kysely_migration_lock',
  'marketplace_listings',
  'marketplace_ratings',
  'memory_entries',
  'oauth_connections',
  'oauth_states',
  'password_resets',
  'persona_documents',
  'persona_skills',
  'personas',
  'preferences',
  'search_claims',
  'search_generations',
  'search_vectors',
  'shared_counters',
  'skill_documents',
  'skills',
  'token_policies',
  'tokens',
  'users',
  'vault_data_keys',
  'vault_tokens',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
] as const;

/** A table of the database, as the migrations name it. */
export type TableName = (typeof TABLE_NAMES)[number];
