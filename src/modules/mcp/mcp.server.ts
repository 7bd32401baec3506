import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../http/access.js';
import { API_VERSION } from '../../version.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import { getPrompt, listPrompts, listResources, McpLookupError, readResource, RESOURCE_TEMPLATES, type ApiGet } from './mcp.resources.js';
import { argumentsProblem, mayCall, toRequest, ToolRefusal, unwrap, type ApiAnswer, type Tool, type ToolAnnotations } from './mcp.tools.js';

export type { ApiAnswer } from './mcp.tools.js';

/** One API request run in-process on behalf of the MCP caller, with the caller's own token. */
export interface ApiCall {
  /** The operation the call must reach: the request is refused if it is routed anywhere else. */
  operationId?: string;
  method: string;
  url: string;
  body: unknown;
  token: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Who is calling, for the request now being answered. The HTTP transport hands it to every
 * handler (`extra.authInfo.extra`), freshly authenticated for each HTTP request: a token revoked
 * mid-session never reaches a handler.
 */
export interface McpCaller {
  principal: Principal;
  token: string;
  actor: AuditActor;
}

export interface McpServerDeps {
  tools: () => Promise<Tool[]>;
  runApi: (call: ApiCall) => Promise<ApiAnswer>;
  audit: Pick<AuditService, 'record'>;
}

/** The parts of the SDK the server uses, loaded on the first MCP request (see mcp.routes.ts). */
export type McpSdk = typeof import('@modelcontextprotocol/sdk/server/index.js') & typeof import('@modelcontextprotocol/sdk/types.js');

const INSTRUCTIONS =
  "Hearth holds one person's identity, personas, memory, knowledge base, skills and connected accounts. Call get_context " +
  'first and adopt the active persona it returns. To find what the person wrote down or knows about something, call ' +
  'search with a question in plain words (memory, knowledge and skills at once). Tell the person what you are about to change before calling a tool ' +
  "that is not read-only, and wait for their approval. A call that answers an approvalId is waiting for the owner's approval: " +
  'follow it with check_approval rather than calling again.';

function callerOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): McpCaller {
  const caller = extra.authInfo?.extra?.caller as McpCaller | undefined;
  // The route sets it on every request it hands to the transport; without it nothing is allowed.
  if (!caller) throw new Error('MCP request without an authenticated caller');
  return caller;
}

/**
 * The annotations without the values the MCP specification already gives as defaults
 * (readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true), and
 * without the destructive and idempotent hints of a read-only tool, which mean nothing there.
 */
function listedAnnotations(tool: Tool): Partial<ToolAnnotations> {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
  return {
    ...(readOnlyHint ? { readOnlyHint } : { ...(destructiveHint ? {} : { destructiveHint }), ...(idempotentHint ? { idempotentHint } : {}) }),
    ...(openWorldHint ? {} : { openWorldHint }),
  };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** An API error body `{ error, message }` as the tool error text: the same words the API uses. */
function errorText(answer: ApiAnswer): string {
  try {
    const parsed = JSON.parse(answer.body) as { error?: string; message?: string };
    if (parsed.error && parsed.message) return `${parsed.error}: ${parsed.message}`;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return `HTTP ${answer.status}: ${answer.body.slice(0, 2000)}`;
}

/**
 * A call the token's policy held for the owner's approval (202): not run yet, and no failure.
 * A normal result that says so, gives the approvalId, and names the tool that follows it.
 */
function heldForApproval(answer: ApiAnswer): CallToolResult | null {
  if (answer.status !== 202) return null;
  let pending: { approvalId?: string; expiresAt?: string } | undefined;
  try {
    pending = (JSON.parse(answer.body) as { data?: { approvalId?: string; expiresAt?: string } }).data;
  } catch {
    return null;
  }
  if (!pending?.approvalId) return null;
  const held = {
    status: 'pending',
    approvalId: pending.approvalId,
    expiresAt: pending.expiresAt,
    next:
      "Not run yet: the owner's policy for this token asks for their approval first. Tell the person, then call check_approval " +
      'with this approvalId to learn the decision and, once executed, the result. Do not call the tool again for the same action.',
  };
  return { content: [{ type: 'text', text: JSON.stringify(held) }], structuredContent: held };
}

/** A route's answer as a tool result: compact JSON without the API's envelope, the same object in structuredContent. */
function toolResult(tool: Tool, answer: ApiAnswer, principal: Principal): CallToolResult {
  const body = answer.body && answer.contentType.includes('json') ? (JSON.parse(answer.body) as unknown) : answer.body || undefined;
  let value: Record<string, unknown>;
  try {
    value = tool.answer ? tool.answer(unwrap(body), principal) : (unwrap(body) ?? { done: true });
  } catch (error) {
    if (error instanceof ToolRefusal) return toolError(error.message);
    throw error;
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** A fresh SDK server for one session; every session has its own (the SDK binds one transport each). */
export function createMcpServer(sdk: McpSdk, deps: McpServerDeps): Server {
  const server = new sdk.Server(
    { name: 'hearth', title: 'Hearth', version: API_VERSION },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: true }, prompts: { listChanged: true } }, instructions: INSTRUCTIONS },
  );

  /** GETs of the API as the caller of the request being answered. */
  const reader = (caller: McpCaller): ApiGet => (url) =>
    deps.runApi({ method: 'GET', url, body: undefined, token: caller.token, ip: caller.actor.ip, userAgent: caller.actor.userAgent });
  /** The API's refusal as a protocol error; an unknown resource has the code the MCP specification gives it. */
  const lookup = async <T>(work: () => Promise<T>, notFoundCode: number): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof McpLookupError)) throw error;
      throw new sdk.McpError(error.code === 'NOT_FOUND' ? notFoundCode : sdk.ErrorCode.InvalidParams, error.message);
    }
  };

  server.setRequestHandler(sdk.ListResourcesRequestSchema, async (request, extra) =>
    lookup(() => listResources(reader(callerOf(extra)), request.params?.cursor), sdk.ErrorCode.InvalidParams),
  );
  server.setRequestHandler(sdk.ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(sdk.ReadResourceRequestSchema, async (request, extra) => ({
    // -32002: the code the MCP specification gives an unknown resource.
    contents: [await lookup(() => readResource(reader(callerOf(extra)), request.params.uri), -32002)],
  }));
  server.setRequestHandler(sdk.ListPromptsRequestSchema, async (request, extra) =>
    lookup(() => listPrompts(reader(callerOf(extra)), request.params?.cursor), sdk.ErrorCode.InvalidParams),
  );
  server.setRequestHandler(sdk.GetPromptRequestSchema, async (request, extra) =>
    lookup(() => getPrompt(reader(callerOf(extra)), request.params.name), sdk.ErrorCode.InvalidParams),
  );

  server.setRequestHandler(sdk.ListToolsRequestSchema, async (_request, extra) => {
    const { principal } = callerOf(extra);
    const tools = (await deps.tools()).filter((tool) => mayCall(tool, principal));
    return {
      tools: tools.map((tool) => ({ tool, annotations: listedAnnotations(tool) })).map(({ tool, annotations }) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.listedInputSchema,
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      })),
    };
  });

  server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const caller = callerOf(extra);
    const name = request.params.name;
    const tool = (await deps.tools()).find((candidate) => candidate.name === name);
    if (!tool) throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `Unknown tool ${name}: tools/list names the tools this token may call`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const known = new Set(Object.keys(tool.inputSchema.properties as object));
    const unknown = Object.keys(args).filter((key) => !known.has(key));
    let result: CallToolResult;
    let status: number | null = null;
    const problem =
      unknown.length > 0
        ? `${name} takes no argument ${unknown.join(', ')}; it takes ${[...known].join(', ') || 'no arguments'}`
        : argumentsProblem(tool, args);
    if (problem) {
      result = toolError(`VALIDATION_ERROR: ${problem}`);
    } else {
      const call = toRequest(tool, args);
      const answer = await deps.runApi({ ...call, operationId: tool.operationId, token: caller.token, ip: caller.actor.ip, userAgent: caller.actor.userAgent });
      status = answer.status;
      const held = heldForApproval(answer);
      if (held) result = held;
      else if (answer.status >= 400) result = toolError(errorText(answer));
      else result = toolResult(tool, answer, caller.principal);
    }
    await deps.audit.record(caller.actor, {
      action: 'mcp.tool_call',
      // A call held for approval was accepted (the approval's own audit records what follows).
      outcome: status === 202 ? 'success' : result.isError ? (status === 401 || status === 403 ? 'denied' : 'failure') : 'success',
      targetType: 'mcp_tool',
      targetId: name,
      details: { tool: name, operationId: tool.operationId, status },
    });
    return result;
  });

  return server;
}
