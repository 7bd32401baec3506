/**
 * The prose agents read: the `important` guidance, the base-address warning, the quick-start
 * steps and the llms.txt guide. Kept in one place so that every document says the same thing.
 */
import type { Access } from '../../http/access.js';
import type { QuickStartStep } from './discovery.schemas.js';

export const IMPORTANT =
  'Before calling any endpoint, revealing a token or executing a service, describe the intended action to the ' +
  'human user and wait for their explicit approval. Use the base address exactly as given: every path already ' +
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

export const NO_TOKEN_DESCRIPTION =
  'No token, or the token was rejected (401)? Ask the owner for access. The handshake endpoints need no token. ' +
  'Tell the human user what you are requesting and why before you send it.';

export function noTokenSteps(): QuickStartStep[] {
  return [
    {
      step: 1,
      action: 'Request access',
      detail:
        'Send a handshake with a unique agentId of your choosing, the scopes you need (only read, professional and ' +
        'availability can be requested this way) and a short message saying who you are and why you ask. Keep the ' +
        'handshakeId from the answer.',
      endpoint: 'POST /api/v1/handshakes',
      body: { agentId: 'my-agent-1', requestedScopes: ['read'], message: 'Assistant of <user>, wants to read the profile' },
    },
    {
      step: 2,
      action: 'Wait for the owner',
      detail: 'Poll the status every few seconds (not faster) until it is approved or denied. It never contains a token.',
      endpoint: 'GET /api/v1/handshakes/{handshakeId}/status',
    },
    {
      step: 3,
      action: 'Receive the token',
      detail:
        'On approval the owner hands you a new token out of band (the owner sees it when approving). Use it as the ' +
        'bearer token from then on. On denial, do not retry without asking the human user.',
    },
  ];
}

/** The recommended order of an agent session (the specification's rule 4). */
export function sessionSteps(authenticated: boolean): QuickStartStep[] {
  return [
    {
      step: 1,
      action: 'Authenticate',
      detail:
        'Send Authorization: Bearer <API_TOKEN> on every request (or ?token=<API_TOKEN> if your tool cannot set ' +
        'headers). No token yet? Follow noTokenFlow.',
      critical: true,
      ...(authenticated ? { done: true } : {}),
    },
    {
      step: 2,
      action: 'Load the gateway context first',
      detail:
        'Call this before anything else: it returns the active persona with its soul_content, the user identity, ' +
        'memory entries with ids and timestamps, connected services and the endpoints this token may call. Adopt ' +
        'the persona and respect the memory.',
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
  for (const [tag, list] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) {
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
    '- Tokens carry scopes; the master token and login sessions hold every scope and the owner rights.',
    '  A missing or rejected token answers 401 UNAUTHORIZED; a token without the needed scope answers',
    '  403 INSUFFICIENT_SCOPE, whose message names the scope to ask the owner for.',
    '',
    '## No token yet: the handshake',
    '',
    NO_TOKEN_DESCRIPTION,
    '',
    ...renderSteps(noTokenSteps()),
    '',
    '## Recommended order of calls',
    '',
    ...renderSteps(sessionSteps(false)),
    '',
    '## Errors',
    '',
    'Every error is JSON `{ "error": "<CODE>", "message": "<what went wrong and how to fix it>" }`, sometimes',
    'with `details`. Codes: VALIDATION_ERROR 400, UNAUTHORIZED 401, PLAN_LIMIT_REACHED 402,',
    'INSUFFICIENT_SCOPE / FORBIDDEN 403, NOT_FOUND / ROUTE_NOT_FOUND 404, METHOD_NOT_ALLOWED 405 (with Allow),',
    'CONFLICT 409, PAYLOAD_TOO_LARGE 413, UNSUPPORTED_MEDIA_TYPE 415, RATE_LIMITED 429 (with Retry-After), UPSTREAM_ERROR 502, DEVICE_OFFLINE / PROVIDER_NOT_CONFIGURED 503,',
    'DEVICE_TIMEOUT 504, INTERNAL_ERROR 500.',
    '',
    '## Endpoints',
    '',
    'Each line: method and path, what it does, and who may call it. GET /api/v1/tokens/me/capabilities lists',
    'the ones your token may call.',
    ...endpointLines,
    '',
  ].join('\n');
}
