/**
 * Walks every route the app serves, whatever module added it:
 * a. its access rule matches the conventions' scope map (a route the table does not know fails,
 *    so each new route's access is a deliberate decision written down here);
 * b. the OpenAPI document and the route catalogue describe exactly the same operations;
 * c. without a token every non-public route answers 401, and with a token that lacks the right
 *    it answers 403, before any handler runs.
 * (a2 and a3 check the action classes and the rate limits routes declare next to their access.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, type ActionClass, type CatalogRoute, type Scope } from '../src/http/access.js';
import { SCOPE_NAMES } from '../src/modules/permissions/permissions.scopes.js';
import { createTestApp, type Owner, type TestApp } from './harness.js';

/** Path parameters spelled alike, so the table does not depend on what a module names them. */
function shape(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}

const key = (method: string, path: string) => `${method} ${shape(path)}`;

/** Routes that need no token: the specification's public operations and the conventions' additions. */
const PUBLIC_ROUTES = new Set(
  [
    'GET /api/v1/',
    'GET /api/v1/quick-start',
    'GET /openapi.json',
    'GET /llms.txt',
    'GET /api/v1/health',
    'POST /api/v1/auth/register',
    // Whether a sign-in page should offer registration: two booleans, asked before signing in.
    'GET /api/v1/auth/registration',
    'POST /api/v1/auth/login',
    // The console's sign-in: the password is the proof, and only the console's own pages may send it.
    'POST /api/v1/auth/session',
    // A forgotten password: the one-time link `hearth reset-password` made on the server is the proof.
    'POST /api/v1/auth/password-reset',
    'POST /api/v1/handshakes',
    'GET /api/v1/handshakes/{id}/status',
    // The agent that asked collects its approved token with the claim secret, its only credential.
    'POST /api/v1/handshakes/{id}/claim',
    // The OAuth authorization server (RFC 8414, 9728, 7591, 6749, 7009): clients hold no token
    // yet; registration is limited per address, the consent page needs the owner's password,
    // the token and revocation endpoints authenticate the client.
    'GET /.well-known/oauth-protected-resource',
    'GET /.well-known/oauth-protected-resource/mcp',
    'GET /.well-known/oauth-authorization-server',
    'POST /register',
    'GET /authorize',
    'POST /authorize',
    // The page that waits for a console decision: its address carries the secret only that browser got.
    'GET /authorize/wait',
    'POST /token',
    'POST /revoke',
    'GET /api/v1/afp/download/{platform}',
    'GET /api/v1/billing/plans',
    // The console: its page and files; everything it shows comes from the API with the owner's session.
    'GET /',
    'GET /{page}',
    'GET /assets/{file}',
    // Called by the payment provider, which proves itself with a signature, not a token.
    'POST /api/v1/billing/webhook',
    // Where Stripe's hosted checkout sends the customer's browser back: a static page.
    'GET /api/v1/billing/return',
    // The provider's browser redirect lands here; the OAuth state identifies the owner.
    'GET /api/v1/oauth/callback/{service}',
    // The owner's browser signs in on the connect page; no token there (the password is the proof).
    'GET /api/v1/oauth/connect/{service}',
    'POST /api/v1/oauth/connect/{service}',
  ].map((entry) => {
    const [method, path] = entry.split(' ') as [string, string];
    return key(method, path);
  }),
);

const scope = (...anyOf: Scope[]): Access => ({ kind: 'scope', anyOf });
const token: Access = { kind: 'token' };
const owner: Access = { kind: 'owner' };
const master: Access = { kind: 'master' };
const admin: Access = { kind: 'admin' };

type Rule = { method: string | '*'; path: RegExp; allowed: Access[] };
const rule = (method: string, path: RegExp, ...allowed: Access[]): Rule => ({ method, path, allowed });

/**
 * The conventions' scope map, for routes that need a token. The first rule that matches the
 * method and the path (parameters written `{}`) decides; `allowed` lists the acceptable rules
 * where the conventions leave a choice.
 */
const RULES: Rule[] = [
  // Any valid token (conventions: Scopes, last paragraph); logout revokes the calling token itself.
  rule('GET', /^\/api\/v1\/(capabilities|scopes|tokens\/me\/capabilities)$/, token),
  rule('POST', /^\/api\/v1\/auth\/logout$/, token),
  rule('DELETE', /^\/api\/v1\/auth\/session$/, token),
  // MCP: any token opens a session; each tool is the route it mirrors, checked as that route.
  rule('*', /^\/mcp$/, token),

  rule('GET', /^\/api\/v1\/gateway\/context$/, scope('read')),

  // Identity, preferences and the account.
  rule('GET', /^\/api\/v1\/(users|auth)\/me$/, scope('identity')),
  rule('GET', /^\/api\/v1\/identity$/, scope('read', 'identity')),
  rule('GET', /^\/api\/v1\/identity\/professional$/, scope('professional', 'identity')),
  rule('GET', /^\/api\/v1\/identity\/availability$/, scope('availability', 'identity')),
  rule('*', /^\/api\/v1\/identity(\/.*)?$/, scope('identity')),
  rule('*', /^\/api\/v1\/preferences(\/.*)?$/, scope('identity')),
  // Deleting one's own account: the owner alone, with the password, never a token given away.
  rule('DELETE', /^\/api\/v1\/users\/me$/, owner),
  rule('*', /^\/api\/v1\/users(\/.*)?$/, admin),

  // Who wrote memory, and forgetting everything one agent wrote: the owner's review, never an agent's.
  rule('POST', /^\/api\/v1\/memory\/forget$/, owner),
  rule('GET', /^\/api\/v1\/memory\/authors$/, owner),
  // The order of the owner's pinned profile is the owner's to set, not an agent's to rearrange.
  rule('PUT', /^\/api\/v1\/memory\/profile\/order$/, owner),
  rule('*', /^\/api\/v1\/memory(\/.*)?$/, scope('memory')),
  rule('*', /^\/api\/v1\/brain\/knowledge-base(\/.*)?$/, scope('knowledge')),
  rule('POST', /^\/api\/v1\/brain\/chat$/, scope('chat')),
  // Added: the conversations chat stores, read and deleted with the scope that makes them.
  rule('*', /^\/api\/v1\/brain\/conversations(\/.*)?$/, scope('chat')),
  rule('*', /^\/api\/v1\/personas(\/.*)?$/, scope('personas')),
  rule('*', /^\/api\/v1\/skills(\/.*)?$/, scope('skills')),
  // Added: one search over the kinds above, each searched only under its own scope (the route
  // checks each kind); how far indexing is, the owner's alone.
  rule('GET', /^\/api\/v1\/search$/, scope('memory', 'knowledge', 'skills')),
  rule('GET', /^\/api\/v1\/search\/status$/, owner),

  // Owner rights that no scope grants.
  // The account's own credentials: a token given to an app or agent must not take the account over.
  rule('POST', /^\/api\/v1\/auth\/(password|email)$/, owner),
  rule('*', /^\/api\/v1\/tokens(\/.*)?$/, owner),
  // Requests held by token policies: the owner lists and decides them; the token that made one
  // reads it (the route answers 404 to any other token).
  rule('GET', /^\/api\/v1\/approvals\/\{\}$/, token),
  rule('*', /^\/api\/v1\/approvals(\/.*)?$/, owner),
  rule('*', /^\/api\/v1\/handshakes(\/.*)?$/, owner),
  rule('GET', /^\/api\/v1\/audit\/log$/, owner),
  // Apps' OAuth requests sent to the console: deciding them grants access, like a handshake.
  rule('*', /^\/api\/v1\/authorization\/requests(\/.*)?$/, owner),
  // The console's live view of handshakes and tokens: the owner's, like the routes it reports on.
  rule('GET', /^\/api\/v1\/events$/, owner),
  // The whole account out and in: the owner's alone (an export also asks a session for the password).
  rule('*', /^\/api\/v1\/(export|import)(\/.*)?$/, owner),
  // Where the account's events are sent, signed with a secret shown once: the owner's alone.
  rule('*', /^\/api\/v1\/webhooks(\/.*)?$/, owner),

  rule('GET', /^\/api\/v1\/vault\/tokens\/\{\}\/reveal$/, master),
  rule('*', /^\/api\/v1\/vault(\/.*)?$/, scope('vault')),

  // Removing a device frees its name for another daemon's key: the owner's alone.
  rule('DELETE', /^\/api\/v1\/afp\/devices\/\{\}$/, owner),
  rule('*', /^\/api\/v1\/afp(\/.*)?$/, scope('devices')),
  rule('*', /^\/api\/v1\/marketplace(\/.*)?$/, scope('marketplace')),

  // Services, connectors and OAuth: reading is services:read, acting is services:write.
  rule('POST', /^\/api\/v1\/services\/\{\}\/(execute|proxy)$/, scope('services:write')),
  rule('GET', /^\/api\/v1\/services(\/.*)?$/, scope('services:read')),
  rule('*', /^\/api\/v1\/services(\/.*)?$/, scope('services:write')),
  rule('GET', /^\/api\/v1\/connectors(\/.*)?$/, scope('services:read')),
  rule('*', /^\/api\/v1\/connectors(\/.*)?$/, scope('services:write')),
  rule('GET', /^\/api\/v1\/oauth\/authorize\/\{\}$/, scope('services:write')),
  rule('GET', /^\/api\/v1\/oauth\/status$/, scope('services:read')),
  rule('POST', /^\/api\/v1\/oauth\/disconnect\/\{\}$/, scope('services:write')),

  // Paying for the owner's own plan: the conventions say only "bearer required".
  rule('POST', /^\/api\/v1\/billing\/checkout$/, owner, token),
  // The owner's plan page: what the account holds, against the plan.
  rule('GET', /^\/api\/v1\/billing\/usage$/, owner),
];

function sameAccess(a: Access, b: Access): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'scope' && b.kind === 'scope') return [...a.anyOf].sort().join() === [...b.anyOf].sort().join();
  return true;
}

function describeAccess(rule: Access): string {
  return rule.kind === 'scope' ? `scope(${rule.anyOf.join('|')})` : rule.kind;
}

/** What the table expects of a route: null when neither the allow-list nor a rule covers it. */
function expectedAccess(route: CatalogRoute): Access[] | null {
  if (PUBLIC_ROUTES.has(key(route.method, route.path))) return [{ kind: 'public' }];
  const path = shape(route.path);
  const match = RULES.find((r) => (r.method === '*' || r.method === route.method) && r.path.test(path));
  return match ? match.allowed : null;
}

/** A concrete address for a route: every parameter gets a dummy value (the pass-through's `{path}` several segments). */
function concretePath(path: string): string {
  return path.replace(/^(\/api\/v1\/services\/\{service\})\/\{path\}$/, '$1/some/path').replace(/\{[^}]+\}/g, 'dummy-1');
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

let t: TestApp;
let catalog: CatalogRoute[];
let adminOwner: Owner;
let otherOwner: Owner;
let sessionToken: string;
let allScopesToken: string;
const tokenByScope = new Map<Scope, string>();

beforeAll(async () => {
  t = await createTestApp();
  adminOwner = await t.createOwner('Admin');
  otherOwner = await t.createOwner('Other');
  expect(adminOwner.role).toBe('admin');
  expect(otherOwner.role).toBe('user');
  sessionToken = await t.login(adminOwner);
  allScopesToken = await t.tokenWithScopes(adminOwner, [...SCOPE_NAMES]);
  for (const s of SCOPE_NAMES) tokenByScope.set(s, await t.tokenWithScopes(adminOwner, [s]));
  catalog = t.app.routeCatalog;
});

afterAll(async () => t.close());

describe('a. access map', () => {
  it('the catalogue holds the discovery routes (the walk is not vacuous)', () => {
    const keys = catalog.map((r) => `${r.method} ${r.path}`);
    expect(keys).toEqual(expect.arrayContaining(['GET /api/v1/', 'GET /api/v1/tokens/me/capabilities', 'GET /api/v1/gateway/context']));
    expect(catalog.length).toBeGreaterThan(20);
  });

  it("every route's access rule is the one the conventions give it", () => {
    const problems: string[] = [];
    for (const route of catalog) {
      const expected = expectedAccess(route);
      const where = `${route.method} ${route.path}`;
      if (!expected) {
        problems.push(`${where}: not in the expected-access table; add its rule to test/routes.walk.test.ts deliberately`);
      } else if (!expected.some((e) => sameAccess(e, route.access))) {
        problems.push(`${where}: declares ${describeAccess(route.access)}, expected ${expected.map(describeAccess).join(' or ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('no method and path is served twice', () => {
    const keys = catalog.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

/**
 * The routes a token's policy may hold, by operationId, with their action class; `by-request`
 * where the class depends on the request (services.write for a service call that is not a read).
 */
const ACTION_CLASS_ROUTES: Record<string, ActionClass | 'by-request'> = {
  afpExec: 'devices.exec',
  afpWriteFile: 'devices.write',
  afpMkdir: 'devices.write',
  afpDelete: 'devices.delete',
  sendMail: 'mail.send',
  trashMailMessage: 'mail.trash',
  uploadStorageFile: 'files.upload',
  deleteStorageFile: 'files.delete',
  executeServiceMethod: 'by-request',
  proxyServiceRequest: 'by-request',
  // A GET that an RPC-style service takes as a write (Slack's chat.postMessage) is services.write.
  callConnectedService: 'by-request',
  createConnector: 'services.write',
  updateConnector: 'services.write',
  deleteConnector: 'services.write',
  oauthDisconnect: 'services.write',
  createMemory: 'memory.write',
  updateMemory: 'memory.write',
  deleteMemory: 'memory.delete',
  clearMemory: 'memory.delete',
  importMemory: 'memory.write',
  createKBDocument: 'knowledge.write',
  upsertKBDocument: 'knowledge.write',
  uploadKBDocument: 'knowledge.write',
  updateKBDocument: 'knowledge.write',
  deleteKBDocument: 'knowledge.delete',
  updateIdentity: 'identity.write',
  updatePreferences: 'identity.write',
  createPersona: 'personas.write',
  updatePersona: 'personas.write',
  activatePersona: 'personas.write',
  deactivatePersona: 'personas.write',
  attachPersonaDocument: 'personas.write',
  detachPersonaDocument: 'personas.write',
  attachPersonaSkill: 'personas.write',
  detachPersonaSkill: 'personas.write',
  deletePersona: 'personas.delete',
  createSkill: 'skills.write',
  updateSkill: 'skills.write',
  putSkillMarkdown: 'skills.write',
  activateSkill: 'skills.write',
  deactivateSkill: 'skills.write',
  attachSkillDocument: 'skills.write',
  detachSkillDocument: 'skills.write',
  deleteSkill: 'skills.delete',
  deleteConversation: 'chat.delete',
  createMarketplaceListing: 'marketplace.write',
  updateMarketplaceListing: 'marketplace.write',
  deleteMarketplaceListing: 'marketplace.write',
  rateMarketplaceListing: 'marketplace.write',
  installMarketplaceListing: 'marketplace.write',
  createVaultToken: 'vault.write',
  deleteVaultToken: 'vault.write',
};

const WRITING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The writing routes (POST, PUT, PATCH, DELETE) that carry no action class, by operationId, each
 * with why none applies. Any other writing route without a class fails the walk: a route that
 * changes or destroys the owner's data, or acts outside, must be one a policy can hold.
 */
const NO_CLASS = 'no token is held by a policy here: ';
const PUBLIC = `${NO_CLASS}a public route, called without a token (or with a proof of its own), so no token's policy can apply`;
const OWNER_ONLY = `${NO_CLASS}only the owner's master token or login session may call it, and the owner's own tokens are never held`;
const ADMIN_ONLY = `${NO_CLASS}only the administrator's master token or login session may call it`;
const REASON_KINDS = new Map<string, string[]>([
  [PUBLIC, ['public']],
  [OWNER_ONLY, ['owner', 'master']],
  [ADMIN_ONLY, ['admin']],
]);
const WRITING_ROUTES_WITHOUT_CLASS: Record<string, string> = {
  register: PUBLIC,
  login: PUBLIC,
  openBrowserSession: PUBLIC,
  resetPassword: PUBLIC,
  createHandshake: PUBLIC,
  claimHandshakeToken: PUBLIC,
  oauthConnectSignIn: PUBLIC,
  stripeWebhook: PUBLIC,
  registerOAuthClient: PUBLIC,
  authorizeDecision: PUBLIC,
  oauthToken: PUBLIC,
  oauthRevoke: PUBLIC,
  createUser: ADMIN_ONLY,
  setUserPlan: ADMIN_ONLY,
  setUserStatus: ADMIN_ONLY,
  createToken: OWNER_ONLY,
  regenerateMasterToken: OWNER_ONLY,
  changePassword: OWNER_ONLY,
  changeEmail: OWNER_ONLY,
  deleteAccount: OWNER_ONLY,
  updateToken: OWNER_ONLY,
  revokeToken: OWNER_ONLY,
  regenerateToken: OWNER_ONLY,
  setTokenPolicy: OWNER_ONLY,
  orderMemoryProfile: OWNER_ONLY,
  approveApproval: OWNER_ONLY,
  denyApproval: OWNER_ONLY,
  approveHandshake: OWNER_ONLY,
  denyHandshake: OWNER_ONLY,
  revokeHandshake: OWNER_ONLY,
  createWebhook: OWNER_ONLY,
  updateWebhook: OWNER_ONLY,
  deleteWebhook: OWNER_ONLY,
  testWebhook: OWNER_ONLY,
  resumeWebhook: OWNER_ONLY,
  approveAuthorizationRequest: OWNER_ONLY,
  denyAuthorizationRequest: OWNER_ONLY,
  deleteAfpDevice: OWNER_ONLY,
  forgetMemoryAuthor: OWNER_ONLY,
  startExport: OWNER_ONLY,
  importArchive: OWNER_ONLY,
  createBillingCheckout: "the owner's own plan payment: it opens a checkout page the owner pays on, and changes nothing until the owner pays there",
  logout: 'ends the calling token itself (a token may always give up its own access)',
  closeBrowserSession: "ends the calling login session itself",
  mcpPost: 'the MCP endpoint: each tool runs the route it mirrors, which applies that route\'s action class and policy',
  mcpEndSession: 'ends the calling MCP session, no owner data',
  chat: "a conversation with the owner's configured model: it records the conversation and changes none of the owner's data (the chat scope is the grant)",
  discoverApi: 'reads a public website, with no credential, and stores nothing (storing a token with discoverApi is vault.write)',
};

describe('a2. action classes', () => {
  it('are declared on exactly the routes a policy may hold, each with its class', () => {
    const declared = Object.fromEntries(
      catalog
        .filter((route) => route.actionClass !== undefined)
        .map((route) => [route.operationId, typeof route.actionClass === 'function' ? 'by-request' : route.actionClass]),
    );
    expect(declared).toEqual(ACTION_CLASS_ROUTES);
  });

  it('only on routes that need a scope (owner-only routes are never held)', () => {
    const wrong = catalog.filter((route) => route.actionClass !== undefined && route.access.kind !== 'scope').map((r) => `${r.method} ${r.path}`);
    expect(wrong).toEqual([]);
  });

  it('on every writing route, unless it is listed with the reason it needs none', () => {
    const problems: string[] = [];
    for (const route of catalog) {
      if (!WRITING_METHODS.has(route.method)) continue;
      const exempt = route.operationId !== undefined && route.operationId in WRITING_ROUTES_WITHOUT_CLASS;
      const where = `${route.method} ${route.path} (${route.operationId})`;
      if (route.actionClass === undefined && !exempt) problems.push(`${where}: changes something but has no action class; give it config.actionClass, or list it here with why it needs none`);
      if (route.actionClass !== undefined && exempt) problems.push(`${where}: has an action class and is listed as needing none`);
      // A reason that rests on who may call the route holds only for a route with that access.
      const reason = exempt ? WRITING_ROUTES_WITHOUT_CLASS[route.operationId!]! : undefined;
      const kinds = reason === undefined ? undefined : REASON_KINDS.get(reason);
      if (kinds && !kinds.includes(route.access.kind)) problems.push(`${where}: listed as needing no class because of its access, which is ${route.access.kind}`);
    }
    const served = new Set(catalog.map((r) => r.operationId));
    for (const operationId of Object.keys(WRITING_ROUTES_WITHOUT_CLASS)) if (!served.has(operationId)) problems.push(`${operationId}: listed here but not served`);
    expect(problems).toEqual([]);
  });
});

/**
 * The rate limits each route declares (`config.rateLimit`), by operationId: the per-token default
 * (TOKEN_RATE_LIMIT, counted where the token is recognised) comes on top on every route that
 * takes a token. `password-attempts` is counted by the password check in the accounts service
 * (its slowdown is more than a count per window); every other one by the rate-limit hook.
 */
const RATE_LIMITED_ROUTES: Record<string, string[]> = {
  register: ['auth'],
  login: ['password-attempts'],
  openBrowserSession: ['password-attempts'],
  regenerateMasterToken: ['password-attempts'],
  changePassword: ['password-attempts'],
  changeEmail: ['password-attempts'],
  startExport: ['password-attempts'],
  resetPassword: ['password-resets'],
  deleteAccount: ['password-attempts'],
  createConnector: ['password-attempts'],
  updateConnector: ['password-attempts'],
  oauthConnectSignIn: ['password-attempts'],
  createHandshake: ['handshakes'],
  getHandshakeStatus: ['handshakes'],
  claimHandshakeToken: ['handshakes'],
  registerOAuthClient: ['oauth-registrations'],
  authorize: ['oauth-authorizations'],
  authorizeDecision: ['password-attempts', 'oauth-authorizations'],
  authorizeWait: ['oauth-waits'],
  downloadAfpDaemon: ['downloads'],
  testWebhook: ['webhook-tests'],
};

/**
 * Routes that must declare a limit besides every public route that writes: public reads that
 * store something or check a secret, and owner routes whose every call makes outside work.
 */
const MUST_LIMIT = new Set(['getHandshakeStatus', 'downloadAfpDaemon', 'authorize', 'authorizeWait', 'testWebhook']);

/** Public writing routes with no limit of their own, each with why none is needed. */
const NO_LIMIT: Record<string, string> = {
  stripeWebhook: 'the payment provider proves each call with a signature over the body, checked before anything is stored; a limit per address would refuse its own bursts',
  oauthToken: 'every secret it checks (client secret, code, refresh token) is 256 random bits, a code is used once and bound to its PKCE verifier: guessing is hopeless, and a client refreshing often must not be refused',
  oauthRevoke: 'it checks the same 256-bit secrets as the token endpoint and only ever ends a grant',
};

describe('a3. rate limits', () => {
  it('are declared on exactly the routes listed, each with its limits', () => {
    const declared = Object.fromEntries(
      catalog.filter((route) => route.rateLimits.length > 0).map((route) => [route.operationId, route.rateLimits.map((rule) => rule.name)]),
    );
    expect(declared).toEqual(RATE_LIMITED_ROUTES);
  });

  it('on every public route that writes, and on the routes that store or check secrets, unless listed with why none is needed', () => {
    const problems: string[] = [];
    for (const route of catalog) {
      const required = (route.access.kind === 'public' && WRITING_METHODS.has(route.method)) || MUST_LIMIT.has(route.operationId ?? '');
      const where = `${route.method} ${route.path} (${route.operationId})`;
      const exempt = route.operationId !== undefined && route.operationId in NO_LIMIT;
      if (required && route.rateLimits.length === 0 && !exempt) {
        problems.push(`${where}: creates something or checks a secret without a rate limit; declare config.rateLimit, or list it here with why it needs none`);
      }
      if (exempt && route.rateLimits.length > 0) problems.push(`${where}: has a rate limit and is listed as needing none`);
    }
    const served = new Set(catalog.map((r) => r.operationId));
    for (const operationId of [...Object.keys(NO_LIMIT), ...MUST_LIMIT]) if (!served.has(operationId)) problems.push(`${operationId}: listed here but not served`);
    expect(problems).toEqual([]);
  });

  it('are listed in /openapi.json as x-rate-limit, with the numbers this server applies', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const problems: string[] = [];
    for (const route of catalog) {
      const shown = (doc.paths?.[route.path]?.[route.method.toLowerCase()]?.['x-rate-limit'] ?? []) as { name: string; max: number }[];
      const names = shown.map((limit) => limit.name);
      // The harness runs with TOKEN_RATE_LIMIT off, so no route shows the per-token default.
      const expected = route.rateLimits.map((rule) => rule.name);
      if (JSON.stringify(names) !== JSON.stringify(expected)) problems.push(`${route.method} ${route.path}: shows ${names.join(', ') || 'no limit'}, declares ${expected.join(', ') || 'none'}`);
      for (const [i, rule] of route.rateLimits.entries()) {
        if (shown[i] && shown[i]!.max !== rule.max(t.config)) problems.push(`${route.method} ${route.path}: shows ${shown[i]!.max} for ${rule.name}, applies ${rule.max(t.config)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(doc.paths['/api/v1/handshakes'].post['x-rate-limit']).toEqual([
      { name: 'handshakes', key: 'ip', max: t.config.handshakeRateLimitPerMinute, windowSeconds: 60, counting: 'exact', appliedBy: 'route' },
    ]);
  });
});

describe('b. OpenAPI coverage', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('every catalogue route is in the document', () => {
    const missing = catalog.filter((r) => !doc.paths?.[r.path]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('every operation in the document is a route the app serves', () => {
    const served = new Set(catalog.map((r) => `${r.method} ${r.path}`));
    const extra: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of HTTP_METHODS) {
        if (item[method] && !served.has(`${method.toUpperCase()} ${path}`)) extra.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(extra).toEqual([]);
  });

  it('every operation has a unique operationId, a documented success answer and the right security', () => {
    const problems: string[] = [];
    const ids = new Map<string, string>();
    for (const route of catalog) {
      const where = `${route.method} ${route.path}`;
      const op = doc.paths?.[route.path]?.[route.method.toLowerCase()];
      if (!op) continue; // reported by the coverage test
      if (typeof op.operationId !== 'string' || op.operationId === '') problems.push(`${where}: no operationId`);
      else if (ids.has(op.operationId)) problems.push(`${where}: operationId ${op.operationId} also used by ${ids.get(op.operationId)}`);
      else ids.set(op.operationId, where);
      if (op.operationId !== route.operationId) problems.push(`${where}: catalogue and document disagree on the operationId`);

      // 101: a WebSocket upgrade (the AFP daemon's link), documented with the frames it carries.
      const success = op.responses?.['200'] ?? op.responses?.['201'] ?? op.responses?.['101'];
      const schemas = Object.values<any>(success?.content ?? {}).map((c) => c.schema);
      if (!success || schemas.length === 0 || schemas.some((s) => !s)) problems.push(`${where}: no 200/201 response schema`);

      const isPublic = PUBLIC_ROUTES.has(key(route.method, route.path));
      if (!Array.isArray(op.security)) problems.push(`${where}: no security list`);
      else if (isPublic && op.security.length !== 0) problems.push(`${where}: public but documents a security requirement`);
      else if (!isPublic && op.security.length === 0) problems.push(`${where}: needs a token but documents none`);
    }
    expect(problems).toEqual([]);
  });

  it('documents both ways to send a token', () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(['bearerAuth', 'queryToken']));
  });
});

describe('c. security walk', () => {
  const nonPublic = () => catalog.filter((r) => r.access.kind !== 'public');

  it('without a token, every non-public route answers 401 UNAUTHORIZED with WWW-Authenticate', async () => {
    const problems: string[] = [];
    for (const route of nonPublic()) {
      for (const bearer of [undefined, 'hth_pat_not-a-real-token']) {
        const res = await t.request(route.method as any, concretePath(route.path), { token: bearer });
        const ok =
          res.status === 401 &&
          res.body?.error === 'UNAUTHORIZED' &&
          typeof res.body?.message === 'string' &&
          String(res.headers['www-authenticate'] ?? '').startsWith('Bearer');
        if (!ok) problems.push(`${route.method} ${route.path} (${bearer ? 'bad token' : 'no token'}): ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('with a token that lacks the right, every non-public route answers 403', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const route of nonPublic()) {
      const rule = route.access;
      // Tokens chosen so that each one provably lacks what the rule asks for.
      const attempts: Array<{ who: string; token: string; code: string }> = [];
      switch (rule.kind) {
        case 'token':
          continue; // every valid token may call it
        case 'scope': {
          const other = SCOPE_NAMES.find((s) => !rule.anyOf.includes(s))!;
          attempts.push({ who: `a token with only ${other}`, token: tokenByScope.get(other)!, code: 'INSUFFICIENT_SCOPE' });
          break;
        }
        case 'owner':
          attempts.push({ who: 'an API token with every scope', token: allScopesToken, code: 'FORBIDDEN' });
          break;
        case 'master':
          attempts.push({ who: 'an API token with every scope', token: allScopesToken, code: 'FORBIDDEN' });
          attempts.push({ who: 'a login session', token: sessionToken, code: 'FORBIDDEN' });
          break;
        case 'admin':
          attempts.push({ who: 'an API token with every scope', token: allScopesToken, code: 'FORBIDDEN' });
          attempts.push({ who: "a non-administrator's master token", token: otherOwner.token, code: 'FORBIDDEN' });
          break;
      }
      for (const attempt of attempts) {
        checked += 1;
        const res = await t.request(route.method as any, concretePath(route.path), { token: attempt.token });
        if (res.status !== 403 || res.body?.error !== attempt.code || typeof res.body?.message !== 'string') {
          problems.push(`${route.method} ${route.path} with ${attempt.who}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });

  it('a token holding the scope a GET route names is let through the access check', async () => {
    // Reads only: handlers run here (with dummy ids), and a read changes nothing.
    const problems: string[] = [];
    for (const route of nonPublic()) {
      if (route.method !== 'GET' || route.access.kind !== 'scope') continue;
      const res = await t.request('GET', concretePath(route.path), { token: tokenByScope.get(route.access.anyOf[0]!)! });
      // Other errors (404 for the dummy id, PROVIDER_NOT_CONNECTED…) come from the handler: access passed.
      if (['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'FORBIDDEN'].includes(res.body?.error)) {
        problems.push(`${route.method} ${route.path}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
