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
  created_at: string;
  updated_at: string;
}

export interface TokensTable {
  id: string;
  owner_id: string;
  kind: 'master' | 'session' | 'api' | 'handshake' | 'oauth';
  name: string;
  /** JSON array of scope names; empty for master and session tokens, which hold every scope. */
  scopes: string;
  secret_hash: string;
  hint: string;
  handshake_id: string | null;
  /** The OAuth client a token of kind `oauth` was issued to (authorization_clients.id). */
  client_id: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AuthorizationClientsTable {
  /** `mcpc_…` for a registered client; the metadata document's https URL otherwise. */
  id: string;
  kind: 'registered' | 'metadata_document';
  name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  secret_hash: string | null;
  client_uri: string | null;
  created_at: string;
  /** When a metadata document was last fetched. */
  fetched_at: string | null;
}

export interface AuthorizationRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  /** JSON array of the scopes asked for. */
  scopes: string;
  resource: string;
  csrf_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** SHA-256 of the email typed to send the request to a console (with or without an account). */
  console_email_hash: string | null;
  /** The account whose console the request was sent to; null until then, and for an unknown email. */
  owner_id: string | null;
  /** SHA-256 (hex) of the waiting page's secret. */
  wait_hash: string | null;
  /** The owner's answer in the console: approved or denied; null while undecided. */
  decision: 'approved' | 'denied' | null;
  /** JSON array of the scopes granted in the console. */
  granted_scopes: string | null;
  decided_at: string | null;
}

export interface AuthorizationCodesTable {
  /** SHA-256 (hex) of the code. */
  id: string;
  owner_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The token the code was exchanged for: revoked if the code is presented again. */
  token_id: string | null;
}

export interface AuthorizationRefreshTokensTable {
  /** SHA-256 (hex) of the refresh token. */
  id: string;
  owner_id: string;
  /** The grant: the `oauth` token it renews. Reusing a spent refresh token revokes it. */
  token_id: string;
  client_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
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
  /** SHA-256 (hex) of the one-time claim secret; null on handshakes made before claiming existed. */
  claim_hash: string | null;
  /** The approved token, sealed for the owner, until it is claimed or can no longer be. */
  claim_sealed: string | null;
  claimed_at: string | null;
  /** JSON array of the scopes granted on approval. */
  granted_scopes: string | null;
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

export interface ChatConversationsTable {
  id: string;
  owner_id: string;
  /** From the first message, shortened to one line. */
  title: string;
  created_at: string;
  updated_at: string;
}

export interface ChatMessagesTable {
  id: string;
  conversation_id: string;
  owner_id: string;
  role: 'user' | 'assistant';
  content: string;
  /** JSON array of `{ id, title }`: the documents the reply used (empty for user messages). */
  sources: string;
  /** `llm` or `retrieval` on assistant messages; null on user messages. */
  mode: 'llm' | 'retrieval' | null;
  /** The model that wrote an `llm` reply. */
  model: string | null;
  created_at: string;
}

export interface VaultDataKeysTable {
  id: string;
  owner_id: string;
  /** The root key that wraps this data key now (re-wrapping changes it, never the data key). */
  root_key_id: string;
  /** base64url of IV | ciphertext | GCM tag. */
  wrapped_key: string;
  created_at: string;
  rewrapped_at: string | null;
}

export interface VaultTokensTable {
  id: string;
  owner_id: string;
  name: string;
  service: string;
  /** `service` lower-cased: case-insensitive lookups. */
  service_key: string;
  website_url: string;
  /** The secret, sealed by the vault keyring; never stored in plain text. */
  secret_sealed: string;
  hint: string;
  discover_api: number;
  /** JSON of the discovered API (not secret), or null. */
  api_metadata: string | null;
  created_at: string;
  updated_at: string;
}

/** Marketplace listings: shared across owners; `snapshot` is what an install copies. */
export interface MarketplaceListingsTable {
  id: string;
  owner_id: string;
  type: 'skill' | 'persona';
  /** The original's id as text (skill ids are integers). */
  ref_id: string;
  title: string;
  description: string;
  price: number;
  /** JSON: the published content. */
  snapshot: string;
  snapshot_at: string;
  rating_sum: number;
  rating_count: number;
  /** round(average × 1 000 000), 0 when unrated: the rating sort key. */
  rating_key: number;
  installs: number;
  created_at: string;
  updated_at: string;
}

/** One rating per user and listing; a second replaces the first. */
export interface MarketplaceRatingsTable {
  listing_id: string;
  user_id: string;
  rating: number;
  review: string | null;
  created_at: string;
  updated_at: string;
}

export interface OAuthConnectionsTable {
  id: string;
  owner_id: string;
  provider: string;
  account_email: string | null;
  account_id: string | null;
  /** JSON array of the scopes the provider granted. */
  scopes: string;
  /** Sealed by the vault keyring; never stored in plain text. */
  access_token_sealed: string;
  /** Sealed by the vault keyring; null when the provider gave none. */
  refresh_token_sealed: string | null;
  expires_at: string;
  status: 'connected' | 'needs_reauth';
  /** Bumped on every token write (connect, refresh). */
  token_version: number;
  last_error: string | null;
  connected_at: string;
  refreshed_at: string | null;
  updated_at: string;
  /** Who is refreshing the tokens right now (a random id), null when nobody is. */
  refresh_lease: string | null;
  /** When that refresh's claim runs out, so a node that died mid-refresh blocks nobody for long. */
  refresh_lease_until: string | null;
}

export interface OAuthStatesTable {
  /** SHA-256 (hex) of the state; the state itself is never stored. */
  id: string;
  owner_id: string;
  provider: string;
  /** The PKCE code verifier, sealed by the vault keyring. */
  verifier_sealed: string;
  redirect_uri: string;
  /** JSON array of the scopes asked for. */
  scopes: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** SHA-256 (hex) of the binder in the cookie of the browser whose owner signed in; null until then. */
  browser_binding: string | null;
}

/** Stripe webhook events already handled, by Stripe's event id (billing). */
export interface BillingEventsTable {
  /** Stripe's event id (`evt_…`). */
  id: string;
  type: string;
  livemode: number;
  /** `applied`: the event changed a plan; `ignored`: nothing to do for it. */
  outcome: 'applied' | 'ignored';
  user_id: string | null;
  plan_id: string | null;
  /** When Stripe created the event. */
  created_at: string;
  received_at: string;
}

export interface ConnectorsTable {
  id: string;
  owner_id: string;
  name: string;
  /** `name` lower-cased: unique per owner. */
  name_key: string;
  base_url: string;
  auth_type: 'bearer' | 'header' | 'query' | 'none';
  /** The owner's vault token holding the credential; null for `none`. */
  vault_token_id: string | null;
  header_name: string | null;
  query_param: string | null;
  /** `rest`, or `rpc`: only the read methods are reads (GET may write). */
  api_style: 'rest' | 'rpc';
  /** For `rpc`: JSON array of the read methods (paths after the base address); null for `rest`. */
  read_methods: string | null;
  created_at: string;
  updated_at: string;
}

/** A remote PC whose AFP daemon registered (online is whether its daemon is connected now). */
export interface AfpDevicesTable {
  id: string;
  owner_id: string;
  name: string;
  /** Node's platform and architecture as the daemon reported them: linux-x64, darwin-arm64, win32-x64. */
  platform: string;
  privilege: 'read' | 'write' | 'exec';
  /** The real path of the folder the daemon may touch, as it last reported it. */
  root: string;
  daemon_version: string;
  last_seen_at: string;
  created_at: string;
  /**
   * SHA-256 (hex) of the device key of the daemon that registered the device; a connection for
   * the device with another key is refused. NULL only for a device registered before keys existed, which no connection may use until its owner removes it.
   */
  key_hash: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  owner_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  enabled: number;
  /** The signing secret (`whsec_…`), sealed by the keyring. */
  secret_sealed: string;
  created_at: string;
  updated_at: string;
  /** Attempts failed in a row, and when the first of them was made; reset by a success (migration 0029). */
  consecutive_failures: number;
  failing_since: string | null;
  /** Set while the circuit breaker pauses the webhook: no attempt until then, then one probe. */
  paused_until: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  owner_id: string;
  endpoint_id: string;
  /** The event's id: the `webhook-id` of every attempt. */
  event_id: string;
  event_type: string;
  /** The JSON body sent (and signed), the same on every attempt. */
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: string | null;
  /** Who holds the attempt being made, and until when (see migration 0022). */
  lease: string | null;
  lease_until: string | null;
  /** Why it failed when no attempt says so (an event past the pending caps, never sent). */
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  outcome: 'succeeded' | 'failed';
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface TokenPoliciesTable {
  token_id: string;
  owner_id: string;
  /** JSON: action class → 'ask' | 'deny' (classes left out are allowed). */
  rules: string;
  updated_at: string;
}

export interface ApprovalsTable {
  id: string;
  owner_id: string;
  token_id: string;
  token_name: string;
  action_class: string;
  method: string;
  url: string;
  operation_id: string | null;
  description: string;
  body_sealed: string | null;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'executed' | 'failed';
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  executed_at: string | null;
  result_status: number | null;
  result_sealed: string | null;
  result_expires_at: string | null;
  created_at: string;
  /** When the claim started the replay (approved only); see the sweep of stale replays. */
  replay_started_at: string | null;
}

/** A node sharing the PostgreSQL database (times: timestamptz there, read only through SQL comparisons). */
export interface ClusterNodesTable {
  node_id: string;
  started_at: string;
  heartbeat_at: string;
}

/** Which node holds a connected device's daemon link (PostgreSQL only). */
export interface AfpLinksTable {
  device_id: string;
  owner_id: string;
  node_id: string;
  connected_at: string;
  last_seen_at: string;
}

/** A request's arguments or answer too large for a notification, for the seconds the request runs (PostgreSQL only). */
export interface AfpPayloadsTable {
  id: string;
  body: string;
  created_at: string;
}

export interface Database {
  cluster_nodes: ClusterNodesTable;
  afp_links: AfpLinksTable;
  afp_payloads: AfpPayloadsTable;
  token_policies: TokenPoliciesTable;
  approvals: ApprovalsTable;
  marketplace_listings: MarketplaceListingsTable;
  marketplace_ratings: MarketplaceRatingsTable;
  users: UsersTable;
  tokens: TokensTable;
  handshakes: HandshakesTable;
  authorization_clients: AuthorizationClientsTable;
  authorization_requests: AuthorizationRequestsTable;
  authorization_codes: AuthorizationCodesTable;
  authorization_refresh_tokens: AuthorizationRefreshTokensTable;
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
  chat_conversations: ChatConversationsTable;
  chat_messages: ChatMessagesTable;
  vault_data_keys: VaultDataKeysTable;
  vault_tokens: VaultTokensTable;
  oauth_connections: OAuthConnectionsTable;
  oauth_states: OAuthStatesTable;
  billing_events: BillingEventsTable;
  connectors: ConnectorsTable;
  afp_devices: AfpDevicesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
