/**
 * The prose agents read: the `important` guidance, the base-address warning, the quick-start
 * steps and the llms.txt guide. Kept in one place so that every document says the same thing.
 */
import type { Access } from '../../http/access.js';
import { ERROR_STATUS, type ErrorCode } from '../../http/errors.js';
import type { QuickStartStep } from './discovery.schemas.js';

export const IMPORTANT =
  'Before calling any endpoint, revealing a token or executing a service, describe the intended action to the ' +
  'human user and wait for their explicit approval. Use the base address (canonicalBaseUrl) exactly as given: every path already ' +
  'begins with /api/v1, so never append /api/v1 to the base address, and never follow HTTP redirects (they drop ' +
  'the Authorization header).';

export const URL_WARNING =
  'Use the canonical base address as is and add the paths to it: every path already begins with /api/v1, so do ' +
  'not append /api/v1 to the base address (a doubled /api/v1/api/v1/ answers 404 ROUTE_NOT_FOUND). Do not follow ' +
  'HTTP redirects: a redirect drops the Authorization header and the next request fails authentication.';

export const DESCRIPTION =
  "Hearth is a personal API platform: one owner's identity, preferences, personas, skills, long-term memory, " +
  'knowledge base, vault of third-party tokens, connected services, marketplace and remote PCs, reached by AI ' +
  'agents over HTTP with JSON bodies and scoped bearer tokens.';

export const AUTH_HINT =
  'Send the token on every request as Authorization: Bearer <API_TOKEN>. Tools that cannot set headers may add ' +
  '?token=<API_TOKEN> to the address instead. Without a token, ask the owner for one through the handshake flow ' +
  'described in the quick-start document (POST /api/v1/handshakes, then poll its status).';

/**
 * What each error code means and when it comes, for the guides. Typed over the closed list, so a
 * new code cannot be added to ERROR_STATUS without saying here what it means.
 */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'the request is malformed or a field is invalid; `details` lists each field and what is wrong with it',
  UNAUTHORIZED: 'no token, or the token is unknown, revoked or expired (or a wrong email or password at login)',
  PLAN_LIMIT_REACHED: "the owner's plan allows no more of this; `details` says which limit (the daily request quota adds Retry-After)",
  INSUFFICIENT_SCOPE: 'the token lacks the scope the route needs; the message names it, so ask the owner for a token that has it',
  POLICY_DENIED: "the owner's policy for this token denies this kind of action (the message names the class); ask the owner to change the token's policy",
  FORBIDDEN: "this caller may not do this: an owner-only, master-only or administrator route, a path outside a remote PC's root, or an action the rules refuse (rating your own listing); the message says which",
  REGISTRATION_CLOSED: 'this server takes no new accounts: ask the administrator for one',
  ACCOUNT_DISABLED: "the server's administrator disabled the account: its sign-in and every one of its tokens are refused until the administrator enables it again",
  PROVIDER_NOT_CONNECTED: 'the owner has not connected the outside account this needs (Google, a vault token for a service), or it must be reconnected; the message says how (401 on the Google Drive file list)',
  NOT_FOUND: 'no such record, or it belongs to another owner',
  ROUTE_NOT_FOUND: 'no such route; a doubled /api/v1/api/v1 means /api/v1 was appended to the base address',
  METHOD_NOT_ALLOWED: 'the route exists but not with this method; the Allow header lists the methods it takes',
  CONFLICT: 'the record already exists or is in a state that forbids this (a name in use, a handshake already decided)',
  PAYLOAD_TOO_LARGE: 'the body, file or content is larger than this server accepts; the message names the limit',
  UNSUPPORTED_MEDIA_TYPE: 'the route does not take this Content-Type; send application/json unless the route says otherwise',
  RATE_LIMITED: 'too many requests; wait for the seconds in Retry-After',
  INTERNAL_ERROR: 'a failure on the server; the answer carries a requestId to report',
  INTEGRITY_ERROR: 'a stored secret failed its integrity check (changed in the database, or copied from another record) and was not decrypted; the owner stores it again, the operator looks into who could write to the database',
  UPSTREAM_ERROR: 'an outside service (a connected API, the language model, Stripe, Google) failed or could not be reached',
  DEVICE_OFFLINE: 'the remote PC\'s daemon is not connected',
  PROVIDER_NOT_CONFIGURED: 'the operator has not set up this provider (Stripe, Google) on this server',
  DEVICE_TIMEOUT: 'the remote PC did not answer in time, or a command ran past its timeout',
};

/** One line per code of the closed list: `- CODE status: meaning`. */
export function errorCodeLines(): string[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => `- ${code} ${ERROR_STATUS[code]}: ${ERROR_MEANINGS[code]}.`);
}

export const MCP_PREFER =
  'Prefer MCP when your client speaks it (Claude Desktop, claude.ai, ChatGPT connectors, Cursor, VS Code): it lists only ' +
  'the tools your token may call and answers compact JSON. Use the HTTP API when you make HTTP calls yourself or need a ' +
  'route no tool offers.';

export const NO_TOKEN_DESCRIPTION =
  'No token, or the token was rejected (401)? Ask the owner for access. Asking and polling the answer need no token. ' +
  'Tell the human user what you are requesting and why before you send it.';

export function noTokenSteps(): QuickStartStep[] {
  return [
    {
      step: 1,
      action: 'Request access',
      detail:
        'Send a handshake with a unique agentId of your choosing, the scopes you need (only read, professional and ' +
        'availability can be requested this way) and a short message saying who you are and why you ask. A read token ' +
        'sees only the gateway-context sections its scopes allow (the public profile; memory, the persona and services ' +
        'need the memory, personas and services:read scopes): if you need more, say which scopes and why in the ' +
        'message, since the owner may grant more than you asked for. Keep the handshakeId and the claimSecret from ' +
        'the answer; the claimSecret is shown once.',
      endpoint: 'POST /api/v1/handshakes',
      body: { agentId: 'my-agent-1', requestedScopes: ['read'], message: 'Assistant of <user>; wants to read the profile and, if allowed, memory' },
    },
    {
      step: 2,
      action: 'Wait for the owner',
      detail:
        'Poll the status every 5 seconds or slower until it is approved or denied (faster polling is answered 429 ' +
        'RATE_LIMITED with Retry-After). A handshake the owner does not decide in time reads denied. The status never ' +
        'contains a token.',
      endpoint: 'GET /api/v1/handshakes/{handshakeId}/status',
    },
    {
      step: 3,
      action: 'Collect the token',
      detail:
        'Once the status reads approved, send the claimSecret to collect your token and the scopes the owner granted. ' +
        'It is handed over once: store it and use it as the bearer token from then on. The owner may also pass the ' +
        'same token on out of band. On denial, do not retry without asking the human user.',
      endpoint: 'POST /api/v1/handshakes/{handshakeId}/claim',
      body: { claimSecret: '<claimSecret from step 1>' },
    },
  ];
}

/**
 * The recommended order of an agent session (the specification's rule 4). `noTokenRef` names
 * where the handshake is explained in the document the steps appear in.
 */
export function sessionSteps(authenticated: boolean, noTokenRef = 'noTokenFlow'): QuickStartStep[] {
  return [
    {
      step: 1,
      action: 'Authenticate',
      detail:
        'Send Authorization: Bearer <API_TOKEN> on every request (or ?token=<API_TOKEN> if your tool cannot set ' +
        `headers). No token yet? Follow ${noTokenRef}.`,
      critical: true,
      ...(authenticated ? { done: true } : {}),
    },
    {
      step: 2,
      action: 'Load the gateway context first',
      detail:
        'Call this before anything else: it returns the active persona with its soul_content, the user identity, ' +
        'memory entries with ids and timestamps, connected services and the endpoints this token may call. Adopt ' +
        'the persona and respect the memory. Add task=<what you are about to do> for the memory and knowledge that ' +
        'serve it first, and maxTokens=<500..32000> to fit the answer to your budget.',
      endpoint: 'GET /api/v1/gateway/context',
      requiredScope: 'read',
      critical: true,
    },
    {
      step: 3,
      action: 'Check what this token may do',
      detail:
        'Lists the scopes of the token and every endpoint it may call. GET /api/v1/capabilities groups the same by ' +
        'capability and names the scopes that are missing.',
      endpoint: 'GET /api/v1/tokens/me/capabilities',
    },
    {
      step: 4,
      action: 'Remember something (optional)',
      detail: 'Store a long-term memory note in markdown; it appears in the gateway context of later sessions.',
      endpoint: 'POST /api/v1/memory',
      body: { content: 'The user prefers short answers.' },
      requiredScope: 'memory',
    },
    {
      step: 5,
      action: 'Read the knowledge base (optional)',
      detail: "List the owner's documents, then read one with GET /api/v1/brain/knowledge-base/{id}.",
      endpoint: 'GET /api/v1/brain/knowledge-base',
      requiredScope: 'knowledge',
    },
    {
      step: 6,
      action: 'Chat with the active persona (optional)',
      detail: 'Omit conversationId to start a conversation; send the returned one to continue it.',
      endpoint: 'POST /api/v1/brain/chat',
      body: { message: 'What do you know about my projects?' },
      requiredScope: 'chat',
    },
    {
      step: 7,
      action: 'Call a connected service (optional)',
      detail:
        "Reads a connected service with the owner's stored credentials. Writing calls go through " +
        'POST /api/v1/services/{serviceName}/execute or /proxy and need services:write. Ask the human user first.',
      endpoint: 'GET /api/v1/services/{service}/{path}',
      requiredScope: 'services:read',
    },
  ];
}

/** How a route's access rule reads in the guide. */
export function accessLabel(rule: Access): string {
  switch (rule.kind) {
    case 'public':
      return 'public';
    case 'token':
      return 'any token';
    case 'scope':
      return `scope ${rule.anyOf.join(' or ')}`;
    case 'owner':
      return 'owner: master token or login session';
    case 'master':
      return 'master token only';
    case 'admin':
      return 'administrator only';
  }
}

/**
 * Capability names (OpenAPI tags, lower-case ASCII) in code-unit order, which for them is the
 * alphabetical order localeCompare gave. localeCompare made V8 load ICU's collation data for
 * every locale, about 2 MB of resident memory, when the guide was built at start.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface GuideRoute {
  method: string;
  path: string;
  summary: string;
  tag: string;
  access: Access;
}

function renderSteps(steps: QuickStartStep[]): string[] {
  return steps.map((s) => {
    const parts = [`${s.step}. ${s.action}`];
    if (s.endpoint) parts.push(`: \`${s.endpoint}\``);
    if (s.requiredScope) parts.push(` (scope \`${s.requiredScope}\`)`);
    parts.push(`. ${s.detail}`);
    if (s.body) parts.push(` Body example: \`${JSON.stringify(s.body)}\`.`);
    return parts.join('');
  });
}

/** The llms.txt guide: everything a language-model client needs before its first call. */
export function buildLlmsText(input: { baseUrl: string; version: string; routes: GuideRoute[] }): string {
  const { baseUrl, version, routes } = input;
  const byTag = new Map<string, GuideRoute[]>();
  for (const route of routes) {
    const list = byTag.get(route.tag) ?? [];
    list.push(route);
    byTag.set(route.tag, list);
  }
  const endpointLines: string[] = [];
  for (const [tag, list] of [...byTag].sort(([a], [b]) => compareNames(a, b))) {
    endpointLines.push('', `### ${tag}`);
    for (const r of list) endpointLines.push(`- \`${r.method} ${r.path}\`: ${r.summary} (${accessLabel(r.access)})`);
  }

  return [
    '# Hearth',
    '',
    `> ${DESCRIPTION}`,
    '',
    `API version ${version}. Base address: ${baseUrl}`,
    '',
    '## Important',
    '',
    IMPORTANT,
    '',
    '## The base address',
    '',
    `- Use ${baseUrl} directly and add the paths below to it. Every path already begins with /api/v1:`,
    `  never append /api/v1 to the base address. ${baseUrl}/api/v1/api/v1/... answers 404 ROUTE_NOT_FOUND.`,
    '- Never follow HTTP redirects: a redirect drops the Authorization header and the request then fails',
    '  authentication. Hearth never answers an API route with a redirect.',
    `- Discovery document: ${baseUrl}/api/v1/  Quick start: ${baseUrl}/api/v1/quick-start`,
    `  OpenAPI 3.1: ${baseUrl}/openapi.json`,
    '',
    '## Authentication',
    '',
    '- Send `Authorization: Bearer <API_TOKEN>` on every request.',
    '- Fetch tools that cannot set headers may add `?token=<API_TOKEN>` to the address instead.',
    '- Tokens carry scopes; the master token and login sessions hold every scope and the owner rights',
    '  (revealing a vault token needs the master token itself).',
    '  A missing or rejected token answers 401 UNAUTHORIZED; a token without the needed scope answers',
    '  403 INSUFFICIENT_SCOPE, whose message names the scope to ask the owner for.',
    '',
    '## MCP: the same tools for a model client',
    '',
    `- Hearth is also an MCP server (Streamable HTTP) at ${baseUrl}/mcp, with the same bearer token.`,
    `- ${MCP_PREFER}`,
    '- A client that signs in with OAuth needs only that address; the owner\'s console page',
    `  ${baseUrl}/connect shows the configuration for each client.`,
    '',
    '## No token yet: the handshake',
    '',
    NO_TOKEN_DESCRIPTION,
    '',
    ...renderSteps(noTokenSteps()),
    '',
    '## Recommended order of calls',
    '',
    ...renderSteps(sessionSteps(false, 'the steps of "No token yet: the handshake" above')),
    '',
    '## Errors',
    '',
    'Every error is JSON `{ "error": "<CODE>", "message": "<what went wrong and how to fix it>" }`, sometimes',
    'with `details` (and `requestId` on 5xx). The codes, with their status:',
    '',
    ...errorCodeLines(),
    '',
    '## Endpoints',
    '',
    'Each line: method and path, what it does, and who may call it. GET /api/v1/tokens/me/capabilities lists',
    'the ones your token may call.',
    ...endpointLines,
    '',
  ].join('\n');
}
