import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

/**
 * The most text an extraction may answer: the knowledge base's largest document
 * (KB_MAX_CONTENT_BYTES, 10 MiB), written out here because configuration sits under every module;
 * config.test checks that the two agree.
 */
const EXTRACT_TEXT_CEILING = 10 * 1024 * 1024;


/**
 * Every setting Hearth reads, parsed and checked once at start.
 * The names of the first block are fixed by the conventions; the rest are Hearth's own
 * and are listed in the README.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicBaseUrl: string;
  registration: 'first-user' | 'open';
  vaultKey: string | undefined;
  /** Older root keys (VAULT_PREVIOUS_KEYS), kept to read data keys they still wrap during a rotation. */
  vaultPreviousKeys: string[];
  allowPrivateNetwork: boolean;

  logLevel: string;
  /** `json` (one JSON object a line, for log collectors) or `pretty` (readable lines, for development). */
  logFormat: 'json' | 'pretty';
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  /** Lifetime of a session token from login. */
  sessionTtlMs: number;
  /** A pending handshake not decided within this time reads `denied`. */
  handshakeTtlMs: number;
  /** A request held for the owner's approval and not decided within this time expires. */
  approvalTtlMs: number;
  /**
   * What pending approvals may hold, so that held requests cannot grow the database without
   * bound: requests of one token, of one owner, and the bytes of one owner's held bodies.
   */
  approvalLimits: { pendingPerToken: number; pendingPerOwner: number; pendingBytesPerOwner: number };
  /** Register and login attempts per client address per minute. */
  authRateLimitPerMinute: number;
  /** Public handshake requests (create and status) per client address per minute. */
  handshakeRateLimitPerMinute: number;
  /** General per-token limit in requests per minute; 0 turns it off (the default). */
  tokenRateLimitPerMinute: number;
  /** log2 of scrypt's cost parameter N for new password hashes. */
  passwordHashCost: number;
  /**
   * Which reverse proxies' X-Forwarded-For to believe when reading the client address: false,
   * a number of proxy hops, or the proxies' addresses and CIDR ranges (true trusts any sender).
   */
  trustProxy: boolean | number | string[];

  /** The most memory entries the gateway context carries (newest first). */
  gatewayMemoryLimit: number;

  /**
   * SEARCH_INDEX_PERCENT: the share of each table's default in-memory search index bound kept
   * (memory, knowledge base, skills); an owner beyond it is searched by reading its rows. 0 keeps none.
   */
  searchIndexPercent: number;

  /**
   * SEARCH_VECTOR_CACHE_MB: the most memory the owners' search vectors loaded for ranking by
   * meaning take (the least recently searched owners are dropped, and read again when needed).
   */
  searchVectorCacheMb: number;

  /**
   * SEARCH_MEANING_MIN: the least cosine an item found by meaning alone (no word of the query)
   * needs to be answered; the words' hits are never dropped by it. Cosines differ by model, so the
   * default (unset) depends on the embedder: measured for the built-in encoder (`meaningFloorFor`,
   * docs/decisions/search.md, "A floor for meaning"); none for an OpenAI-compatible model.
   */
  searchMeaningMin: number | undefined;

  /**
   * SEARCH_MEANING_MARGIN: an item found by meaning alone also needs a cosine within this much of
   * the query's best cosine. Unset: the embedder's default, as for the floor. 2 turns it off.
   */
  searchMeaningMargin: number | undefined;

  /**
   * MEMORY_DUPLICATE_COSINE: a new memory entry whose vector is at least this close (cosine) to a
   * current entry of the owner's is a duplicate of it, as one with the same text is. Unset: off,
   * text only; the built-in encoder cannot tell a changed value from a rewording (measured by
   * bench:dedup, docs/decisions/memory.md, "No duplicates"), so only a model measured to can.
   */
  memoryDuplicateCosine: number | undefined;

  /**
   * Reading untrusted files (uploads' PDF, DOCX, HTML and text; OpenAPI YAML found by discovery):
   * each job runs in a worker process of its own, at most `concurrency` at once (a few more wait),
   * stopped past `timeoutMs` or `maxMemoryMb`, and refused past the page, inflated-size and text caps.
   */
  extract: ExtractSettings;

  /** Outbound calls (discovery, proxy, providers): total time and largest response. */
  outboundTimeoutMs: number;
  outboundMaxBytes: number;

  /** OAuth providers; a provider without a client id answers 503 PROVIDER_NOT_CONFIGURED. */
  google: OAuthProviderConfig;
  microsoft: OAuthProviderConfig;

  /** An OpenAI-compatible chat-completions endpoint; unset means the built-in retrieval answer. */
  llm: { baseUrl: string | undefined; apiKey: string | undefined; model: string; timeoutMs: number };
  /** Estimated tokens of context (persona, documents, passages, memory, history) a chat prompt may carry. */
  chatContextTokens: number;

  /** Sentence vectors for search by meaning: the built-in encoder, an OpenAI-compatible endpoint, or off. */
  embeddings: EmbeddingsSettings;

  /** Payments; an unset secret key means checkout answers 503 PROVIDER_NOT_CONFIGURED. */
  stripe: { secretKey: string | undefined; webhookSecret: string | undefined; apiBaseUrl: string };
  /** Plan limits apply when billing is configured or PLAN_LIMITS=on. */
  planLimits: boolean;
  /** A JSON file replacing the built-in plans. */
  plansFile: string | undefined;

  /**
   * Remote PCs: how long a file operation waits for the daemon (exec waits for its own timeout),
   * the daemons' heartbeat interval, and where daemon downloads are built.
   */
  afp: { requestTimeoutMs: number; heartbeatMs: number; buildDir: string };

  /**
   * Several nodes on one PostgreSQL: how often each node writes its heartbeat in the node
   * registry; a node silent for three intervals is dead (its remote PCs show offline).
   */
  clusterHeartbeatMs: number;

  /**
   * The console's live event stream (GET /api/v1/events): how often a heartbeat comment is sent
   * (and the stream's token checked again), and how many streams one owner may hold open.
   */
  events: { heartbeatMs: number; maxStreamsPerOwner: number; maxStreams: number };

  /**
   * Webhook deliveries: the first two retry delays (then each delay doubles), how long a delivery
   * is retried before it is given up, the time one attempt may take, and endpoints per owner.
   */
  webhooks: WebhookSettings;

  /**
   * Scheduled backups: BACKUP_DIR (unset: none), every BACKUP_INTERVAL_HOURS, the newest
   * BACKUP_KEEP kept (docs/decisions/backups.md).
   */
  backups: { dir: string | undefined; intervalMs: number; keep: number };
}

export interface WebhookSettings {
  firstRetryMs: number;
  secondRetryMs: number;
  retryForMs: number;
  /** WEBHOOK_TIMEOUT_MS: the time one attempt may take, answer included. */
  timeoutMs: number;
  maxEndpointsPerOwner: number;
  /** WEBHOOK_CONCURRENCY: attempts one process makes at once. */
  concurrency: number;
  /**
   * WEBHOOK_OWNER_CONCURRENCY: of those, the most one owner's deliveries may take, so that one
   * owner's slow or silent endpoints leave lanes free for everyone else.
   */
  ownerConcurrency: number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: attempts in flight to one webhook at once, across every node. */
  endpointConcurrency: number;
  /** WEBHOOK_MAX_PENDING_PER_ENDPOINT, WEBHOOK_MAX_PENDING_PER_OWNER: deliveries waiting to be sent; events past them are recorded as not sent. */
  maxPendingPerEndpoint: number;
  maxPendingPerOwner: number;
  /** WEBHOOK_TEST_RATE_LIMIT: `POST /webhooks/{id}/test` calls per owner per minute. */
  testPerMinute: number;
  /**
   * The circuit breaker: a webhook whose attempts failed WEBHOOK_PAUSE_AFTER_FAILURES times in a
   * row, over at least WEBHOOK_PAUSE_AFTER_MS, is paused for WEBHOOK_PAUSE_FOR_MS; then one probe
   * delivery is tried, which resumes it when it succeeds and pauses it again when it fails.
   */
  pauseAfterFailures: number;
  pauseAfterMs: number;
  pauseForMs: number;
  /**
   * WEBHOOK_DELIVERY_RETENTION_DAYS: how long a delivered or failed delivery, with its attempts,
   * is kept after it finished; pending ones are kept until they finish.
   */
  deliveryRetentionDays: number;
}

export interface EmbeddingsSettings {
  /** EMBEDDINGS: `builtin` (the encoder shipped with Hearth, in a worker process), `openai` or `off`. */
  kind: 'builtin' | 'openai' | 'off';
  /** EMBEDDINGS_BASE_URL, ending in `/v1` as OpenAI's does: vectors come from `POST {baseUrl}/embeddings`. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string;
  /** EMBEDDINGS_DIMENSIONS: the length every vector must have (0: whatever the first answer has). */
  dimensions: number;
  /** Texts per request to the endpoint, or per batch in the worker. */
  batchSize: number;
  /** Characters of one text that are embedded; the rest is cut off. */
  maxChars: number;
  /** How long one batch may take (a request, or the worker's answer). */
  timeoutMs: number;
  /** The built-in worker's memory cap: its heap limit and resident memory. */
  maxMemoryMb: number;
  /** The built-in worker stops after this long without work. */
  idleMs: number;
}

export interface ExtractSettings {
  /** EXTRACT_TIMEOUT_MS: wall-clock time one job may take in its worker. */
  timeoutMs: number;
  /** EXTRACT_MAX_MEMORY_MB: a worker's JavaScript heap limit, and what each running job may add to the process's resident memory. */
  maxMemoryMb: number;
  /** EXTRACT_MAX_PAGES: a PDF with more pages is refused before any page is read. */
  maxPages: number;
  /** EXTRACT_MAX_INFLATED_BYTES: what a DOCX's zip entries may expand to together. */
  maxInflatedBytes: number;
  /**
   * EXTRACT_MAX_TEXT_CHARS: the most text one file may yield. At most the knowledge base's own
   * content limit (10 MiB): more text could only be read to be refused.
   */
  maxTextChars: number;
  /**
   * EXTRACT_CONCURRENCY: jobs running at once; four times as many may wait, more answer 429. One
   * owner runs at most half of them (rounded up) and has at most two waiting (parsing.pool.ts).
   */
  concurrency: number;
}

export interface OAuthProviderConfig {
  clientId: string | undefined;
  clientSecret: string | undefined;
  /**
   * When set (`http://127.0.0.1:9999`), every address of the provider keeps its path and takes
   * this origin instead: how tests reach a local fake of the provider.
   */
  endpointOverride: string | undefined;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function decimal<F extends number | undefined>(env: Env, name: string, fallback: F, min: number, max: number): number | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function optionalUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) address, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** A vault root key: 32 bytes, base64 (or base64url). */
function vaultKeyValue(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value) || Buffer.from(value, 'base64').length !== 32) {
    throw new ConfigError(
      `${name} must be 32 random bytes in base64 (make one with: openssl rand -base64 32); the value given is not (it is not shown: it is a secret)`,
    );
  }
  return value;
}

/**
 * TRUST_PROXY: `false` (default), `true` (any sender; only safe when nothing but the proxy can
 * reach the server), a hop count (`1`), or proxy addresses and ranges (`10.0.0.0/8,127.0.0.1`).
 * Trusting too much lets clients forge the address that rate limits and the audit log use.
 */
function trustProxy(raw: string | undefined): boolean | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(false|off|no|0)$/i.test(value)) return false;
  if (/^(true|on|yes)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    if (!isIP(address ?? '') || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
      throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or proxy addresses/CIDR ranges, got "${raw}"`);
    }
  }
  return entries;
}

function oauthProvider(env: Env, prefix: string): OAuthProviderConfig {
  return {
    clientId: env[`${prefix}_CLIENT_ID`] || undefined,
    clientSecret: env[`${prefix}_CLIENT_SECRET`] || undefined,
    endpointOverride: optionalUrl(env, `${prefix}_ENDPOINT_OVERRIDE`),
  };
}

function embeddingsSettings(env: Env): EmbeddingsSettings {
  const kind = oneOf(env, 'EMBEDDINGS', ['builtin', 'openai', 'off'] as const, 'builtin');
  const baseUrl = optionalUrl(env, 'EMBEDDINGS_BASE_URL');
  if (kind === 'openai' && !baseUrl) {
    throw new ConfigError('EMBEDDINGS=openai needs EMBEDDINGS_BASE_URL, the OpenAI-compatible API ending in /v1 (https://api.openai.com/v1, http://127.0.0.1:11434/v1 for Ollama)');
  }
  if (kind === 'openai' && !env.EMBEDDINGS_MODEL) {
    throw new ConfigError('EMBEDDINGS=openai needs EMBEDDINGS_MODEL, the model the endpoint embeds with (text-embedding-3-small, nomic-embed-text)');
  }
  return {
    kind,
    baseUrl,
    apiKey: env.EMBEDDINGS_API_KEY || undefined,
    model: kind === 'openai' ? env.EMBEDDINGS_MODEL! : kind === 'builtin' ? 'universal-sentence-encoder-lite' : 'none',
    dimensions: int(env, 'EMBEDDINGS_DIMENSIONS', 0, 0, 65_536),
    batchSize: int(env, 'EMBEDDINGS_BATCH_SIZE', kind === 'openai' ? 64 : 16, 1, 2048),
    maxChars: int(env, 'EMBEDDINGS_MAX_CHARS', 2_000, 100, 100_000),
    timeoutMs: int(env, 'EMBEDDINGS_TIMEOUT_MS', 30_000, 1_000, 600_000),
    maxMemoryMb: int(env, 'EMBEDDINGS_MAX_MEMORY_MB', 512, 64, 65_536),
    idleMs: int(env, 'EMBEDDINGS_IDLE_MS', 300_000, 100, 86_400_000),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// (unset it to use the embedded database)');
  }
  const webhookConcurrency = int(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256);
  const embeddings = embeddingsSettings(env);
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${hostForUrl}:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+(\/.*)?$/.test(publicBaseUrl)) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http(s) address, got "${env.PUBLIC_BASE_URL}"`);
  }
  if (/\/api\/v1$/.test(publicBaseUrl)) {
    throw new ConfigError('PUBLIC_BASE_URL must not end with /api/v1: every path already starts with it');
  }

  const dataDir = path.resolve(env.DATA_DIR || './data');
  const backupDir = env.BACKUP_DIR ? path.resolve(env.BACKUP_DIR) : undefined;
  if (backupDir && (backupDir === dataDir || backupDir.startsWith(dataDir + path.sep))) {
    throw new ConfigError(`BACKUP_DIR ${backupDir} is inside DATA_DIR ${dataDir}: a backup must live apart from what it backs up (another disk, ideally); set BACKUP_DIR elsewhere`);
  }

  return {
    port,
    host,
    dataDir,
    databaseUrl,
    publicBaseUrl,
    registration: oneOf(env, 'REGISTRATION', ['first-user', 'open'] as const, 'first-user'),
    vaultKey: env.VAULT_KEY ? vaultKeyValue('VAULT_KEY', env.VAULT_KEY) : undefined,
    vaultPreviousKeys: (env.VAULT_PREVIOUS_KEYS ?? '')
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((key, i) => vaultKeyValue(`VAULT_PREVIOUS_KEYS (key ${i + 1})`, key)),
    allowPrivateNetwork: bool(env, 'ALLOW_PRIVATE_NETWORK', false),

    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, 'json'),
    bodyLimit: int(env, 'BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    sessionTtlMs: int(env, 'SESSION_TTL_HOURS', 24, 1, 24 * 365) * 3_600_000,
    handshakeTtlMs: int(env, 'HANDSHAKE_TTL_HOURS', 24 * 7, 1, 24 * 365) * 3_600_000,
    approvalTtlMs: int(env, 'APPROVAL_TTL_MINUTES', 15, 1, 24 * 60 * 7) * 60_000,
    approvalLimits: {
      pendingPerToken: int(env, 'APPROVAL_MAX_PENDING_PER_TOKEN', 20, 1, 100_000),
      pendingPerOwner: int(env, 'APPROVAL_MAX_PENDING_PER_OWNER', 100, 1, 1_000_000),
      pendingBytesPerOwner: int(env, 'APPROVAL_MAX_PENDING_BYTES', 64 * 1024 * 1024, 64 * 1024, 16 * 1024 * 1024 * 1024),
    },
    authRateLimitPerMinute: int(env, 'AUTH_RATE_LIMIT', 20, 1, 1_000_000),
    handshakeRateLimitPerMinute: int(env, 'HANDSHAKE_RATE_LIMIT', 30, 1, 1_000_000),
    tokenRateLimitPerMinute: int(env, 'TOKEN_RATE_LIMIT', 0, 0, 10_000_000),
    passwordHashCost: int(env, 'PASSWORD_HASH_COST', 15, 10, 20),
    trustProxy: trustProxy(env.TRUST_PROXY),

    gatewayMemoryLimit: int(env, 'GATEWAY_MEMORY_LIMIT', 100, 1, 100_000),
    searchIndexPercent: int(env, 'SEARCH_INDEX_PERCENT', 100, 0, 10_000),
    searchVectorCacheMb: int(env, 'SEARCH_VECTOR_CACHE_MB', 128, 1, 65_536),
    searchMeaningMin: decimal(env, 'SEARCH_MEANING_MIN', undefined, -1, 1),
    searchMeaningMargin: decimal(env, 'SEARCH_MEANING_MARGIN', undefined, 0, 2),
    memoryDuplicateCosine: decimal(env, 'MEMORY_DUPLICATE_COSINE', undefined, 0, 1),
    extract: {
      timeoutMs: int(env, 'EXTRACT_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
      maxMemoryMb: int(env, 'EXTRACT_MAX_MEMORY_MB', 256, 32, 65_536),
      maxPages: int(env, 'EXTRACT_MAX_PAGES', 2_000, 1, 1_000_000),
      maxInflatedBytes: int(env, 'EXTRACT_MAX_INFLATED_BYTES', 32 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
      maxTextChars: int(env, 'EXTRACT_MAX_TEXT_CHARS', EXTRACT_TEXT_CEILING, 1_000, EXTRACT_TEXT_CEILING),
      concurrency: int(env, 'EXTRACT_CONCURRENCY', 2, 1, 64),
    },
    outboundTimeoutMs: int(env, 'OUTBOUND_TIMEOUT_MS', 30_000, 100, 600_000),
    outboundMaxBytes: int(env, 'OUTBOUND_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),

    google: oauthProvider(env, 'GOOGLE'),
    microsoft: oauthProvider(env, 'MICROSOFT'),

    llm: {
      baseUrl: optionalUrl(env, 'LLM_BASE_URL'),
      apiKey: env.LLM_API_KEY || undefined,
      model: env.LLM_MODEL || 'gpt-4o-mini',
      timeoutMs: int(env, 'LLM_TIMEOUT_MS', 60_000, 1000, 600_000),
    },
    chatContextTokens: int(env, 'CHAT_CONTEXT_TOKENS', 6_000, 500, 1_000_000),
    embeddings,

    stripe: {
      secretKey: env.STRIPE_SECRET_KEY || undefined,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      apiBaseUrl: optionalUrl(env, 'STRIPE_API_BASE_URL') ?? 'https://api.stripe.com',
    },
    planLimits: Boolean(env.STRIPE_SECRET_KEY) || bool(env, 'PLAN_LIMITS', false),
    plansFile: env.PLANS_FILE || undefined,

    clusterHeartbeatMs: int(env, 'CLUSTER_HEARTBEAT_MS', 2_000, 100, 60_000),
    afp: {
      requestTimeoutMs: int(env, 'AFP_REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
      heartbeatMs: int(env, 'AFP_HEARTBEAT_MS', 15_000, 1000, 300_000),
      buildDir: path.resolve(env.AFP_BUILD_DIR || './build/afp'),
    },

    events: {
      heartbeatMs: int(env, 'EVENTS_HEARTBEAT_MS', 25_000, 1000, 300_000),
      maxStreamsPerOwner: int(env, 'EVENTS_MAX_STREAMS_PER_OWNER', 8, 1, 100),
      maxStreams: int(env, 'EVENTS_MAX_STREAMS', 2_000, 1, 100_000),
    },
    webhooks: {
      firstRetryMs: int(env, 'WEBHOOK_FIRST_RETRY_MS', 2_000, 1, 3_600_000),
      secondRetryMs: int(env, 'WEBHOOK_SECOND_RETRY_MS', 10_000, 1, 3_600_000),
      retryForMs: int(env, 'WEBHOOK_RETRY_FOR_MS', 24 * 3_600_000, 1, 7 * 24 * 3_600_000),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
      maxEndpointsPerOwner: int(env, 'WEBHOOK_MAX_ENDPOINTS', 20, 1, 1000),
      concurrency: webhookConcurrency,
      ownerConcurrency: int(env, 'WEBHOOK_OWNER_CONCURRENCY', Math.max(1, Math.floor(webhookConcurrency / 2)), 1, webhookConcurrency),
      endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 64),
      maxPendingPerEndpoint: int(env, 'WEBHOOK_MAX_PENDING_PER_ENDPOINT', 1_000, 1, 1_000_000),
      maxPendingPerOwner: int(env, 'WEBHOOK_MAX_PENDING_PER_OWNER', 5_000, 1, 10_000_000),
      testPerMinute: int(env, 'WEBHOOK_TEST_RATE_LIMIT', 10, 1, 100_000),
      pauseAfterFailures: int(env, 'WEBHOOK_PAUSE_AFTER_FAILURES', 10, 1, 100_000),
      pauseAfterMs: int(env, 'WEBHOOK_PAUSE_AFTER_MS', 5 * 60_000, 0, 7 * 24 * 3_600_000),
      pauseForMs: int(env, 'WEBHOOK_PAUSE_FOR_MS', 15 * 60_000, 1, 7 * 24 * 3_600_000),
      deliveryRetentionDays: int(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
    },
    backups: {
      dir: backupDir,
      intervalMs: Math.round(decimal(env, 'BACKUP_INTERVAL_HOURS', 24, 0.0001, 8760) * 3_600_000),
      keep: int(env, 'BACKUP_KEEP', 7, 1, 10_000),
    },
  };
}

/** Reads `.env` from the working directory into process.env, if there is one. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
