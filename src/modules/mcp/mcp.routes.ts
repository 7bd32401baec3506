import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { access, extractToken, principalOf } from '../../http/access.js';
import { inProcessHeaders } from '../../http/channel.js';
import { AppError } from '../../http/errors.js';
import { actorOf, type AuditService } from '../audit/audit.service.js';
import { createMcpServer, type ApiAnswer, type ApiCall, type McpCaller, type McpSdk } from './mcp.server.js';
import { TOOL_OPERATION_HEADER, type McpHub, type NotifiableSession } from './mcp.hub.js';
import { buildTools, type Tool } from './mcp.tools.js';

const tags = ['mcp'];

/** What a client that asks for nothing in particular is offered: the context and memory. The owner decides on the consent page. */
export const MCP_SUGGESTED_SCOPES = ['read', 'memory'];

type SdkWithTransport = McpSdk & { StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport };

interface Session extends NotifiableSession {
  transport: StreamableHTTPServerTransport;
}

/** The SDK is loaded on the first MCP request: a server nobody connects an agent to never pays for it. */
async function loadSdk(): Promise<SdkWithTransport> {
  const [server, types, http] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  return { ...server, ...types, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport };
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

const JsonRpcMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, title: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol' },
);

const McpAnswer = {
  description:
    'A JSON-RPC response (application/json) or an event stream of messages (text/event-stream), as the Model Context Protocol\'s Streamable HTTP transport sends them. An initialize answer carries the session id in the Mcp-Session-Id header.',
  content: { 'application/json': { schema: JsonRpcMessage }, 'text/event-stream': { schema: Type.String() } },
};

export interface McpRoutesDeps {
  audit: Pick<AuditService, 'record'>;
  publicBaseUrl: string;
  hub: McpHub;
}

export function mcpRoutes(deps: McpRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    let sdk: Promise<SdkWithTransport> | undefined;
    let tools: Promise<Tool[]> | undefined;
    // Built on first use, once every route of the app is registered.
    const listTools = () => (tools ??= Promise.resolve().then(() => buildTools(app.routeCatalog)));
    const sessions = deps.hub.sessions;
    // Their streams are requests of this app: closed with it (the hub's sweep stops with the container).
    app.addHook('onClose', async () => sessions.closeAll());
    // Browsers send Origin; agents' own HTTP clients do not. A page of another site must not
    // drive the owner's MCP session through their browser (DNS rebinding): only Hearth's own
    // origin may.
    const ownOrigin = new URL(deps.publicBaseUrl).origin;
    // RFC 9728 §5.1: a refused client learns where to get a token, and which scopes to ask for.
    const challenge = `Bearer resource_metadata="${deps.publicBaseUrl}/.well-known/oauth-protected-resource/mcp", scope="${MCP_SUGGESTED_SCOPES.join(' ')}"`;
    app.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 401) reply.header('www-authenticate', challenge);
      return payload;
    });

    /** A tool call runs the route it mirrors, in-process, as the caller. */
    async function runApi(call: ApiCall): Promise<ApiAnswer> {
      const answer = await app.inject({
        method: call.method as 'GET',
        url: call.url,
        headers: {
          authorization: `Bearer ${call.token}`,
          accept: 'application/json',
          // What the route records as the channel: MCP, which an outside request cannot claim.
          ...inProcessHeaders('mcp'),
          ...(call.operationId ? { [TOOL_OPERATION_HEADER]: call.operationId } : {}),
          ...(call.userAgent ? { 'user-agent': call.userAgent } : {}),
          ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(call.body !== undefined ? { payload: JSON.stringify(call.body) } : {}),
        ...(call.ip ? { remoteAddress: call.ip } : {}),
      });
      return { status: answer.statusCode, contentType: String(answer.headers['content-type'] ?? ''), body: answer.body };
    }

    async function openSession(loaded: SdkWithTransport, tokenId: string, ownerId: string): Promise<Session> {
      const server = createMcpServer(loaded, { tools: listTools, runApi, audit: deps.audit });
      const session: Session = {
        ownerId,
        resourcesChanged: () => server.sendResourceListChanged(),
        promptsChanged: () => server.sendPromptListChanged(),
        transport: new loaded.StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.add(id, tokenId, session),
          onsessionclosed: (id) => sessions.remove(id),
        }),
        close: () => server.close(),
      };
      session.transport.onclose = () => {
        if (session.transport.sessionId) sessions.remove(session.transport.sessionId);
      };
      await server.connect(session.transport);
      return session;
    }

    async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== ownOrigin) {
        throw new AppError('FORBIDDEN', `Requests from the web page origin ${origin} may not use /mcp; only ${ownOrigin} may`);
      }
      const principal = principalOf(request);
      // Tool calls run API routes with the caller's bearer token; the console's session cookie is
      // not one, and /mcp is for agents, not for the console's pages.
      const token = extractToken(request);
      if (!token) throw new AppError('UNAUTHORIZED', '/mcp takes a bearer token: send Authorization: Bearer <token>');
      const caller: McpCaller = { principal, token, actor: actorOf(request) };
      const loaded = await (sdk ??= loadSdk());
      const sessionId = request.headers['mcp-session-id'];
      let session: Session | undefined;
      if (typeof sessionId === 'string') {
        session = sessions.get(sessionId, principal.tokenId) as Session | undefined;
        if (!session) {
          throw new AppError('NOT_FOUND', 'This MCP session does not exist (it ended, was closed for being idle, or belongs to another token): initialize a new one');
        }
      } else if (request.method === 'POST' && isInitialize(request.body)) {
        session = await openSession(loaded, principal.tokenId, principal.ownerId);
      } else {
        throw new AppError('VALIDATION_ERROR', 'Send the Mcp-Session-Id header the initialize answer gave, or start with an initialize request');
      }
      // The transport hands this to every handler of the request as extra.authInfo.
      Object.assign(request.raw, {
        auth: { token: caller.token, clientId: principal.tokenId, scopes: [...principal.scopes], extra: { caller } },
      });
      reply.hijack();
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    }

    const config = { access: access.anyToken() };
    app.post(
      '/mcp',
      {
        config,
        schema: {
          operationId: 'mcpPost',
          summary: 'Model Context Protocol (Streamable HTTP): send a JSON-RPC message; initialize opens a session',
          tags,
          body: Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage, { maxItems: 100 })]),
          response: { 200: McpAnswer, 202: { description: 'Accepted: a notification or response, which has no answer' } },
        },
      },
      handle,
    );
    app.get(
      '/mcp',
      {
        config,
        schema: {
          operationId: 'mcpStream',
          summary: "Model Context Protocol: the session's stream of server messages (text/event-stream)",
          tags,
          response: { 200: { description: 'An event stream of JSON-RPC messages from the server', content: { 'text/event-stream': { schema: Type.String() } } } },
        },
      },
      handle,
    );
    app.delete(
      '/mcp',
      {
        config,
        schema: {
          operationId: 'mcpEndSession',
          summary: 'Model Context Protocol: end the session named by Mcp-Session-Id',
          tags,
          response: { 200: { description: 'The session ended' } },
        },
      },
      handle,
    );
  };
}
