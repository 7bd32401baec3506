import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../http/errors.js';
import type { ClusterBus } from '../../storage/cluster-bus.js';
import { createSessionStore, type SessionHandle } from './mcp.sessions.js';

/** Sessions one token may hold at once; opening one more closes its least recently used. */
export const MCP_SESSIONS_PER_TOKEN = 16;
/** A session unused for this long is closed; the client then simply initializes a new one. */
export const MCP_SESSION_IDLE_MS = 60 * 60_000;

/** What an open session needs to be told that the owner's resources or prompts changed. */
export interface NotifiableSession extends SessionHandle {
  ownerId: string;
  resourcesChanged(): Promise<void>;
  promptsChanged(): Promise<void>;
}

/**
 * The header a tool call's in-process request carries: the operation it mirrors. A request
 * routed anywhere else is refused, so that no argument can steer a tool to another route.
 */
export const TOOL_OPERATION_HEADER = 'x-hearth-tool-operation';

/** Which lists a successful write to an API path changes: skills are resources and prompts. */
const WATCHED: Array<{ path: RegExp; resources: boolean; prompts: boolean }> = [
  { path: /^\/api\/v1\/skills(\/|\?|$)/, resources: true, prompts: true },
  { path: /^\/api\/v1\/marketplace\/listings\/[^/]+\/install/, resources: true, prompts: true },
  { path: /^\/api\/v1\/personas(\/|\?|$)/, resources: true, prompts: false },
  { path: /^\/api\/v1\/brain\/knowledge-base(\/|\?|$)/, resources: true, prompts: false },
];

/** The cluster bus topic a write that changes an owner's lists travels under between nodes. */
const CHANGED_TOPIC = 'mcp.changed';

/**
 * The open MCP sessions of this process, and the news they get: after a successful write to the
 * owner's skills, personas or knowledge base (through the API or a tool, on any node), each of
 * the owner's sessions is told its resource or prompt list changed, so clients list again.
 * `cluster` carries the news of this node's writes to the others, and theirs here.
 */
export function createMcpHub(options: { cluster?: Pick<ClusterBus, 'publish' | 'subscribe'> | undefined } = {}) {
  const sessions = createSessionStore<NotifiableSession>({ maxPerToken: MCP_SESSIONS_PER_TOKEN, idleMs: MCP_SESSION_IDLE_MS });
  const { cluster } = options;
  // `<r><p><ownerId>`: r and p are 1 or 0 (resources, prompts changed).
  const stopHearing = cluster?.subscribe(CHANGED_TOPIC, (message) => {
    if (message.length < 3 || sessions.count() === 0) return;
    changed(message.slice(2), { resources: message[0] === '1', prompts: message[1] === '1' });
  });

  function changed(ownerId: string, what: { resources: boolean; prompts: boolean }): void {
    for (const session of sessions.all()) {
      if (session.ownerId !== ownerId) continue;
      // A session whose stream is gone simply misses the news; it lists again when it returns.
      if (what.resources) void session.resourcesChanged().catch(() => undefined);
      if (what.prompts) void session.promptsChanged().catch(() => undefined);
    }
  }

  /** After a successful write, tells the owner's sessions what it changed. */
  function watchWrites(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    // Without other nodes, nobody is told when this node holds no session.
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 300 && request.principal && (cluster || sessions.count() > 0)) {
      const rule = WATCHED.find((candidate) => candidate.path.test(request.url));
      if (rule) {
        const { ownerId } = request.principal;
        if (sessions.count() > 0) changed(ownerId, rule);
        cluster?.publish(CHANGED_TOPIC, `${rule.resources ? 1 : 0}${rule.prompts ? 1 : 0}${ownerId}`);
      }
    }
    done();
  }

  return {
    sessions,
    changed,
    /** Refuses a tool's request that was routed anywhere but the route it mirrors (run on every request, before access). */
    guardToolRoutes(request: FastifyRequest): void {
      const expected = request.headers[TOOL_OPERATION_HEADER];
      if (expected !== undefined && (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId !== expected) {
        throw new AppError('VALIDATION_ERROR', `This tool runs ${String(expected)} only; its arguments led to another address`);
      }
    },
    /** An onRoute hook: every route that may write gets watchWrites as an onResponse hook of its own. */
    watchWriteRoute(route: RouteOptions): void {
      const methods = [route.method].flat();
      if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
      const existing = route.onResponse === undefined ? [] : [route.onResponse].flat();
      route.onResponse = [...existing, watchWrites];
    },
    close(): void {
      stopHearing?.();
    },
  };
}

export type McpHub = ReturnType<typeof createMcpHub>;
