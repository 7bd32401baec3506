/**
 * A small program written against a client generated from the served /openapi.json
 * (openapi-typescript types + openapi-fetch), as an integrator would write it. It calls every
 * route family once or more, the wildcard pass-through included, and hands back every exchange
 * so that test/openapi.client.test.ts can check each answer against the document.
 *
 * `hearth-api.generated.ts` does not exist in the repository: the test generates it from the
 * live document and type-checks this file against it (so this file is left out of the
 * project's own type-check). At run time the import below is only types and is erased.
 */
import createClient, { type Client, type Middleware, type PathSerializer } from 'openapi-fetch';
import type { ClientRunOptions, ClientRunResult, Exchange, RunClientProgram } from './client.types.js';
import type { components, paths } from './hearth-api.generated.js';

export type { ClientRunOptions, Exchange } from './client.types.js';

/** The pass-through's answer keeps its generated type here. */
export interface TypedClientRunResult extends ClientRunResult {
  passThrough: components['schemas']['ServiceCallResult'];
}

type Api = Client<paths>;

/** Records every answer, with the path template it was called through. */
function recorder(exchanges: Exchange[]): Middleware {
  return {
    async onResponse({ request, response, schemaPath }) {
      const contentType = response.headers.get('content-type') ?? '';
      const text = await response.clone().text();
      const body = contentType.includes('json') && text.length > 0 ? (JSON.parse(text) as unknown) : text;
      exchanges.push({ method: request.method, path: schemaPath, status: response.status, contentType, body });
    },
  };
}

/**
 * The document marks the pass-through's `path` with `x-allow-reserved`: its slashes are sent
 * as they are. Every other path parameter is encoded whole.
 */
function pathKeepingSlashesIn(reserved: string[]): PathSerializer {
  return (pathname, params) =>
    pathname.replace(/\{([^}]+)\}/g, (match, name: string) => {
      const value = params[name];
      if (value === undefined || value === null) return match;
      const text = String(value);
      return reserved.includes(name) ? text.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(text);
    });
}

/** The answer's data, or a thrown error naming the call that failed. */
function ok<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

/** A held request's answer (202): a token's policy kept the call for the owner's approval. */
type HeldForApproval = { data: { approvalId: string; status: 'pending'; expiresAt: string } };

/** The answer of a call that ran; a call held for the owner's approval (202) throws, naming it. */
function ran<T>(what: string, answer: T): Exclude<T, HeldForApproval> {
  const data = (answer as { data?: unknown }).data;
  if (typeof data === 'object' && data !== null && 'approvalId' in data) throw new Error(`${what}: held for the owner's approval`);
  return answer as Exclude<T, HeldForApproval>;
}

function client(options: ClientRunOptions, exchanges: Exchange[], token?: string): Api {
  const api = createClient<paths>({ baseUrl: options.baseUrl, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
  api.use(recorder(exchanges));
  return api;
}

export const runClientProgram: RunClientProgram = async (options: ClientRunOptions): Promise<TypedClientRunResult> => {
  const exchanges: Exchange[] = [];
  const anonymous = client(options, exchanges);

  // Discovery: public.
  ok('discovery', await anonymous.GET('/api/v1/'));
  ok('quick start', await anonymous.GET('/api/v1/quick-start'));
  ok('health', await anonymous.GET('/api/v1/health'));
  ok('llms.txt', await anonymous.GET('/llms.txt', { parseAs: 'text' }));
  ok('openapi', await anonymous.GET('/openapi.json'));
  ok('plans', await anonymous.GET('/api/v1/billing/plans'));

  // Accounts.
  const email = `client-${Date.now()}@example.test`;
  const password = 'client-program-pw-1';
  const registered = ok('register', await anonymous.POST('/api/v1/auth/register', { body: { email, password, name: 'Client Program' } }));
  const master = registered.data.token;
  const ownerId = registered.data.user.id;
  const session = ok('login', await anonymous.POST('/api/v1/auth/login', { body: { email, password } })).data.token;
  const api = client(options, exchanges, master);
  ok('auth/me', await api.GET('/api/v1/auth/me'));
  ok('users/me', await api.GET('/api/v1/users/me'));
  ok('scopes', await api.GET('/api/v1/scopes'));
  ok('capabilities', await api.GET('/api/v1/capabilities'));
  ok('token capabilities', await api.GET('/api/v1/tokens/me/capabilities'));

  // An error answer is part of the contract too.
  const missing = await api.GET('/api/v1/tokens/{id}', { params: { path: { id: 'tok_doesnotexist' } } });
  if (missing.error?.error !== 'NOT_FOUND') throw new Error(`expected NOT_FOUND, got ${missing.response.status}`);
  const refused = await anonymous.GET('/api/v1/memory');
  if (refused.error?.error !== 'UNAUTHORIZED') throw new Error(`expected UNAUTHORIZED, got ${refused.response.status}`);

  // Tokens.
  const created = ok('create token', await api.POST('/api/v1/tokens', { body: { name: 'client program', scopes: ['memory', 'read'] } }));
  const tokenId = created.data.id;
  ok('list tokens', await api.GET('/api/v1/tokens', { params: { query: { limit: 10 } } }));
  ok('get token', await api.GET('/api/v1/tokens/{id}', { params: { path: { id: tokenId } } }));
  ok('rename token', await api.PUT('/api/v1/tokens/{id}', { params: { path: { id: tokenId } }, body: { name: 'client program (renamed)' } }));
  // The body of a regeneration may be left out: the generated type lets the call omit it.
  ok('regenerate token', await api.POST('/api/v1/tokens/{id}/regenerate', { params: { path: { id: tokenId } } }));
  ok('revoke token', await api.DELETE('/api/v1/tokens/{id}', { params: { path: { id: tokenId } } }));

  // Handshakes: an agent asks without a token, the owner approves.
  const asked = ok(
    'handshake',
    await anonymous.POST('/api/v1/handshakes', { body: { agentId: 'client-program', requestedScopes: ['read'], message: 'May I read your profile?', ownerId } }),
  );
  const handshakeId = asked.data.handshakeId;
  ok('handshake status', await anonymous.GET('/api/v1/handshakes/{id}/status', { params: { path: { id: handshakeId } } }));
  ok('list handshakes', await api.GET('/api/v1/handshakes'));
  ok('approve handshake', await api.POST('/api/v1/handshakes/{id}/approve', { params: { path: { id: handshakeId } } }));

  // Identity and preferences.
  ok('put identity', await api.PUT('/api/v1/identity', { body: { name: 'Client Program', bio: 'Writes typed clients', professional: { title: 'Tester' } } }));
  ok('identity', await api.GET('/api/v1/identity'));
  ok('professional', await api.GET('/api/v1/identity/professional'));
  ok('availability', await api.GET('/api/v1/identity/availability'));
  ok('put preferences', await api.PUT('/api/v1/preferences', { body: { theme: 'dark' } }));
  ok('preferences', await api.GET('/api/v1/preferences'));

  // Memory.
  const memory = ran('add memory', ok('add memory', await api.POST('/api/v1/memory', { body: { content: 'Prefers typed clients' } }))).data;
  ok('list memory', await api.GET('/api/v1/memory', { params: { query: { q: 'typed' } } }));
  ok('change memory', await api.PATCH('/api/v1/memory/{id}', { params: { path: { id: memory.id } }, body: { content: 'Prefers generated typed clients' } }));
  ok('delete memory', await api.DELETE('/api/v1/memory/{id}', { params: { path: { id: memory.id } } }));

  // Knowledge base.
  const document = ran('add document', ok('add document', await api.POST('/api/v1/brain/knowledge-base', { body: { title: 'Typed clients', content: 'Generated from the OpenAPI document.' } }))).data;
  ok('list documents', await api.GET('/api/v1/brain/knowledge-base'));
  ok('get document', await api.GET('/api/v1/brain/knowledge-base/{id}', { params: { path: { id: document.id } } }));
  ok('change document', await api.PUT('/api/v1/brain/knowledge-base/{id}', { params: { path: { id: document.id } }, body: { content: 'Generated, then type-checked.' } }));
  ok('document attachments', await api.GET('/api/v1/brain/knowledge-base/{id}/attachments', { params: { path: { id: document.id } } }));

  // Skills.
  const skill = ran('add skill', ok('add skill', await api.POST('/api/v1/skills', { body: { name: 'typed-client', description: 'Calls Hearth through a generated client' } }))).data;
  ok('list skills', await api.GET('/api/v1/skills'));
  ok('get skill', await api.GET('/api/v1/skills/{id}', { params: { path: { id: skill.id } } }));
  ok('skill by slug', await api.GET('/api/v1/skills/_by_slug/{slug}', { params: { path: { slug: skill.slug } } }));
  ok('skill content', await api.GET('/api/v1/skills/{id}/content', { params: { path: { id: skill.id } } }));
  ok('activate skill', await api.POST('/api/v1/skills/{id}/activate', { params: { path: { id: skill.id } } }));

  // Personas.
  const persona = ran('add persona', ok('add persona', await api.POST('/api/v1/personas', { body: { name: 'Helper', soul_content: 'You help with typed clients.' } }))).data;
  ok('list personas', await api.GET('/api/v1/personas'));
  ok('get persona', await api.GET('/api/v1/personas/{id}', { params: { path: { id: persona.id } } }));
  ok('persona skill', await api.POST('/api/v1/personas/{id}/skills', { params: { path: { id: persona.id } }, body: { skillId: skill.id } }));
  ok('persona skills', await api.GET('/api/v1/personas/{id}/skills', { params: { path: { id: persona.id } } }));
  ok('activate persona', await api.POST('/api/v1/personas/{id}/activate', { params: { path: { id: persona.id } } }));

  // Chat with the active persona.
  // The route also streams (text/event-stream) when asked to; this call asks for JSON.
  const chatted = ok('chat', await api.POST('/api/v1/brain/chat', { body: { message: 'Hello' } }));
  if (typeof chatted === 'string') throw new Error('chat answered a stream to a JSON request');
  const reply = chatted.data;
  ok('conversations', await api.GET('/api/v1/brain/conversations'));
  ok('conversation', await api.GET('/api/v1/brain/conversations/{id}', { params: { path: { id: reply.conversationId } } }));

  // Vault, connectors and services, the pass-through included.
  const stored = ran(
    'store vault token',
    ok('store vault token', await api.POST('/api/v1/vault/tokens', { body: { name: 'echo key', service: 'echo', token: options.upstreamKey, websiteUrl: options.upstreamUrl } })),
  ).data;
  ok('list vault tokens', await api.GET('/api/v1/vault/tokens'));
  ok('reveal vault token', await api.GET('/api/v1/vault/tokens/{id}/reveal', { params: { path: { id: stored.id } } }));
  const connector = ran(
    'add connector',
    ok('add connector', await api.POST('/api/v1/connectors', { body: { name: 'echo', baseUrl: options.upstreamUrl, authType: 'bearer', vaultTokenId: stored.id } })),
  ).data;
  ok('list connectors', await api.GET('/api/v1/connectors'));
  ok('get connector', await api.GET('/api/v1/connectors/{id}', { params: { path: { id: connector.id } } }));
  ok('services', await api.GET('/api/v1/services', { params: { query: { source: 'connector' } } }));
  ok('categories', await api.GET('/api/v1/services/categories'));
  ok('service', await api.GET('/api/v1/services/{service}', { params: { path: { service: 'echo' } } }));
  ok('methods', await api.GET('/api/v1/services/{service}/methods', { params: { path: { service: 'echo' } } }));
  ok('proxy', await api.POST('/api/v1/services/{service}/proxy', { params: { path: { service: 'echo' } }, body: { method: 'GET', path: '/echo/proxied' } }));
  ok(
    'execute',
    await api.POST('/api/v1/services/{service}/execute', {
      params: { path: { service: 'echo' } },
      body: { method: 'request', params: { httpMethod: 'GET', path: '/echo/executed' } },
    }),
  );
  // An RPC-style service's GET may be a write, which a token's policy may hold (202).
  const passThrough = ran(
    'pass-through',
    ok(
      'pass-through',
      await api.GET('/api/v1/services/{service}/{path}', {
        params: { path: { service: 'echo', path: 'repos/octo cat/hello' }, query: { query: { per_page: '5', q: 'a&b' } } },
        pathSerializer: pathKeepingSlashesIn(['path']),
        querySerializer: { object: { style: 'form', explode: true } },
      }),
    ),
  ).data;
  ok('oauth status', await api.GET('/api/v1/oauth/status'));

  // Marketplace.
  const listing = ran('publish', ok('publish', await api.POST('/api/v1/marketplace/listings', { body: { type: 'skill', refId: skill.id, title: 'Typed client skill' } }))).data;
  ok('listings', await api.GET('/api/v1/marketplace/listings'));
  ok('listing', await api.GET('/api/v1/marketplace/listings/{id}', { params: { path: { id: listing.id } } }));
  ok('my listings', await api.GET('/api/v1/marketplace/my-listings'));

  // Remote PCs, audit, gateway.
  ok('devices', await api.GET('/api/v1/afp/devices'));
  ok('audit', await api.GET('/api/v1/audit/log', { params: { query: { limit: 20 } } }));
  ok('gateway', await api.GET('/api/v1/gateway/context'));

  // Clean-ups answer too.
  ok('delete listing', await api.DELETE('/api/v1/marketplace/listings/{id}', { params: { path: { id: listing.id } } }));
  ok('delete connector', await api.DELETE('/api/v1/connectors/{id}', { params: { path: { id: connector.id } } }));
  ok('delete vault token', await api.DELETE('/api/v1/vault/tokens/{id}', { params: { path: { id: stored.id } } }));
  ok('delete persona', await api.DELETE('/api/v1/personas/{id}', { params: { path: { id: persona.id } } }));
  ok('delete skill', await api.DELETE('/api/v1/skills/{id}', { params: { path: { id: skill.id } } }));
  ok('delete document', await api.DELETE('/api/v1/brain/knowledge-base/{id}', { params: { path: { id: document.id } } }));
  ok('logout', await client(options, exchanges, session).POST('/api/v1/auth/logout'));

  // The generated types are not `any`: a route the document does not have is refused.
  // Never called: it only has to fail the type-check.
  // @ts-expect-error -- no such route in the document
  const unknownRoute = () => api.GET('/api/v1/no-such-route');
  void unknownRoute;

  return { exchanges, passThrough };
};
