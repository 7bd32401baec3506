import { ignoreFailure } from '../../lib/ignore-failure.js';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import type { Part } from '../../lib/lifecycle.js';
import type { ChangeBus, ChangeEvent, ChangeType } from '../events/events.changes.js';
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

/** Which of a session's lists a change makes stale: skills are resources and prompts. */
const STALE: Record<ChangeType, { resources: boolean; prompts: boolean }> = {
  'skills.changed': { resources: true, prompts: true },
  'personas.changed': { resources: true, prompts: false },
  'knowledge.changed': { resources: true, prompts: false },
};

/** How often sessions idle past MCP_SESSION_IDLE_MS are closed. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The open MCP sessions of this process, and the news they get: each session listens to its
 * owner's changes (skills, personas, knowledge base; announced by their services after a
 * successful write, through the API, a tool or the marketplace, on any node) and is told that
 * its resource or prompt list changed, so the client lists again. It hears no other owner's.
 */
export function createMcpHub(options: { changes: Pick<ChangeBus, 'subscribe'> }) {
  const stopListening = new WeakMap<NotifiableSession, () => void>();
  const sessions = createSessionStore<NotifiableSession>({
    maxPerToken: MCP_SESSIONS_PER_TOKEN,
    idleMs: MCP_SESSION_IDLE_MS,
    onAdded: (session) => stopListening.set(session, options.changes.subscribe(session.ownerId, (change) => tell(session, change))),
    onForgotten: (session) => {
      stopListening.get(session)?.();
      stopListening.delete(session);
    },
  });

  function tell(session: NotifiableSession, change: ChangeEvent): void {
    const stale = STALE[change.type];
    // A session whose stream is gone simply misses the news; it lists again when it returns.
    if (stale.resources) void ignoreFailure(session.resourcesChanged(), 'the session lists again when it returns');
    if (stale.prompts) void ignoreFailure(session.promptsChanged(), 'the session lists again when it returns');
  }

  let sweeper: NodeJS.Timeout | undefined;
  /** The hub's background work: closing idle sessions. */
  const part: Part = {
    name: 'mcp.sessions-sweep',
    start() {
      sweeper = setInterval(() => void sessions.sweep(), SWEEP_INTERVAL_MS);
      sweeper.unref();
    },
    async stop() {
      clearInterval(sweeper);
      await sessions.closeAll();
    },
  };

  return {
    sessions,
    part,
    /** Refuses a tool's request that was routed anywhere but the route it mirrors (run on every request, before access). */
    guardToolRoutes(request: FastifyRequest): void {
      const expected = request.headers[TOOL_OPERATION_HEADER];
      if (expected !== undefined && (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId !== expected) {
        throw new AppError('VALIDATION_ERROR', `This tool runs ${String(expected)} only; its arguments led to another address`);
      }
    },
  };
}

export type McpHub = ReturnType<typeof createMcpHub>;
