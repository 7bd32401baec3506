import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * How a request reached the API, as the server tells it (never as the client says):
 * - `api`: an HTTP request with a bearer token (also an approved request run again);
 * - `mcp`: a tool call of the MCP endpoint, which runs the route in-process;
 * - `console`: the owner's console, signed in with the session cookie;
 * - `import`: entries brought from another tool (POST /api/v1/memory/import), whatever the
 *   request came over: the token that imported them is their author;
 * - `unknown`: stored before the server recorded it.
 */
export const CHANNELS = ['api', 'mcp', 'console', 'import', 'unknown'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The channels a request can come over (`import` and `unknown` are never a request's). */
export type RequestChannel = Exclude<Channel, 'unknown' | 'import'>;

/** The channels of a request made in-process by another route of this server. */
export type InProcessChannel = Extract<Channel, 'mcp'>;

/**
 * The header an in-process request carries to say which channel it came over. Its value holds a
 * secret drawn when the process starts, which never leaves it: an outside client sending the
 * header cannot know it, and its request stays on its own channel.
 */
export const IN_PROCESS_HEADER = 'x-hearth-in-process';
const PROCESS_SECRET = randomBytes(32).toString('base64url');

/** The header an in-process request of `channel` sends (see IN_PROCESS_HEADER). */
export function inProcessHeaders(channel: InProcessChannel): Record<string, string> {
  return { [IN_PROCESS_HEADER]: `${channel} ${PROCESS_SECRET}` };
}

function inProcessChannel(value: string): InProcessChannel | undefined {
  const space = value.indexOf(' ');
  const channel = value.slice(0, space);
  if (space === -1 || channel !== 'mcp') return undefined;
  const given = Buffer.from(value.slice(space + 1));
  const expected = Buffer.from(PROCESS_SECRET);
  return given.length === expected.length && timingSafeEqual(given, expected) ? channel : undefined;
}

/**
 * The channel of an authenticated request: what the access hook learnt authenticating it (the
 * console's session cookie, an approval's replay), else MCP's in-process mark, else `api`. Read
 * where something is recorded (a memory entry's author), not on every request: it costs
 * nothing until asked.
 */
export function requestChannel(request: FastifyRequest): RequestChannel {
  if (request.authenticatedChannel !== null) return request.authenticatedChannel;
  const mark = request.headers[IN_PROCESS_HEADER];
  if (typeof mark === 'string' && inProcessChannel(mark)) return 'mcp';
  return 'api';
}
