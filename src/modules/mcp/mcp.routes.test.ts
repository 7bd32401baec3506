import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import { MCP_SESSIONS_PER_TOKEN } from './mcp.hub.js';
import { TOOL_SPECS } from './mcp.tools.js';

let t: TestApp;
let owner: Owner;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Mcp Owner');
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => t.close());

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => ignoreFailure(c.close(), 'a client a test closed already is closed either way')));
});

async function connect(token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'hearth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** An initialize request sent by hand, for what the SDK client does not let a test choose. */
function initialize(token: string, protocolVersion = '2025-11-25', headers: Record<string, string> = {}) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

async function bodyOf(res: Response): Promise<any> {
  const text = await res.text();
  if (res.headers.get('content-type')?.includes('text/event-stream')) {
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data!.slice(6));
  }
  return JSON.parse(text);
}

describe('MCP over Streamable HTTP with a bearer token', () => {
  it('initializes on the current protocol revision and names itself', async () => {
    const { client, transport } = await connect(owner.token);
    expect(client.getServerVersion()).toMatchObject({ name: 'hearth' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('get_context');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
  });

  it.each(['2025-06-18', '2025-03-26'])('accepts a client on revision %s', async (version) => {
    const res = await initialize(owner.token, version);
    expect(res.status).toBe(200);
    const body = await bodyOf(res);
    expect(body.result.protocolVersion).toBe(version);
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('lists only the tools the token may call, each with true annotations and a compact input schema', async () => {
    const full = await (await connect(owner.token)).client.listTools();
    expect(full.tools.map((tool) => tool.name).sort()).toEqual(TOOL_SPECS.map((spec) => spec.name).sort());
    for (const tool of full.tools) {
      expect(tool.inputSchema.type).toBe('object');
      // Results are self-describing JSON; an output schema per tool tripled the list.
      expect(tool.outputSchema).toBeUndefined();
      expect(tool.description!.length).toBeLessThanOrEqual(200);
    }
    // Hints equal to the specification's defaults (not read-only, destructive, not idempotent, open world) are left out.
    const byName = new Map(full.tools.map((tool) => [tool.name, tool]));
    expect(byName.get('search_memory')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('delete_memory')!.annotations).toEqual({ idempotentHint: true, openWorldHint: false });
    expect(byName.get('add_memory')!.annotations).toEqual({ destructiveHint: false, openWorldHint: false });
    expect(byName.get('device_exec')!.annotations).toBeUndefined();
    expect(byName.get('add_memory')!.inputSchema).toMatchObject({ required: ['content'] });

    const memoryOnly = await t.tokenWithScopes(owner, ['memory']);
    const limited = await (await connect(memoryOnly)).client.listTools();
    expect(limited.tools.map((tool) => tool.name).sort()).toEqual(['add_memory', 'check_approval', 'delete_memory', 'search', 'search_memory', 'update_memory']);
  });

  it('adds a memory and finds it again, answered as compact JSON without the API envelope', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const { client } = await connect(token);
    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'The owner prefers oat milk in coffee' } });
    expect(added.isError).toBeFalsy();
    const entry = added.structuredContent as any;
    expect(entry).toMatchObject({ id: expect.any(String), content: 'The owner prefers oat milk in coffee' });
    const found = await client.callTool({ name: 'search_memory', arguments: { q: 'oat milk', limit: 5 } });
    // A list is { items, nextCursor }: a tool result is an object.
    expect((found.structuredContent as any).items.map((e: { id: string }) => e.id)).toContain(entry.id);
    expect(found.structuredContent).toHaveProperty('nextCursor');
    // The text content carries the same JSON, compact, for clients that read only text.
    const text = (found.content as Array<{ text: string }>)[0]!.text;
    expect(JSON.parse(text)).toEqual(found.structuredContent);
    expect(text).toBe(JSON.stringify(found.structuredContent));
    // The API sees the same entry.
    const api = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'oat milk' } });
    expect(api.body.data.map((e: { id: string }) => e.id)).toContain(entry.id);
  });

  it("applies the token's policy to the routes its tools run: a GET write to an RPC-style service, a memory edit", async () => {
    const token = await t.tokenWithScopes(owner, ['memory', 'services:read', 'services:write']);
    const id = (await t.container.tokens.authenticate(token))!.tokenId;
    const policy = await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: owner.token, body: { rules: { 'services.write': 'deny', 'memory.write': 'deny' } } });
    expect(policy.status, policy.text).toBe(200);
    const { client } = await connect(token);
    const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0]!.text;

    const post = await client.callTool({ name: 'proxy_request', arguments: { service: 'slack', method: 'GET', path: '/chat.postMessage', query: { channel: 'C1', text: 'hi' } } });
    expect(post.isError).toBe(true);
    expect(text(post)).toMatch(/^POLICY_DENIED: .*services\.write/);
    const deleted = await client.callTool({ name: 'call_service', arguments: { service: 'slack', method: 'request', params: { httpMethod: 'GET', path: '/chat.delete?channel=C1&ts=1' } } });
    expect(text(deleted)).toMatch(/^POLICY_DENIED: /);
    // A declared read is not a write: it passes the policy (and stops at the missing Slack token).
    const read = await client.callTool({ name: 'proxy_request', arguments: { service: 'slack', method: 'GET', path: '/conversations.list' } });
    expect(text(read)).toMatch(/^PROVIDER_NOT_CONNECTED: /);

    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'planted' } });
    expect(text(added)).toMatch(/^POLICY_DENIED: .*memory\.write/);
  });

  it('answers refusals as tool errors with the words of the API', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const { client } = await connect(token);
    const missing = await client.callTool({ name: 'delete_memory', arguments: { id: 'mem_doesnotexist' } });
    const api = await t.request('DELETE', '/api/v1/memory/mem_doesnotexist', { token });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0]!.text).toBe(`${api.body.error}: ${api.body.message}`);
    const blank = await client.callTool({ name: 'add_memory', arguments: { content: '   ' } });
    expect(blank.isError).toBe(true);
    expect((blank.content as Array<{ text: string }>)[0]!.text).toMatch(/^VALIDATION_ERROR: /);
    const extra = await client.callTool({ name: 'add_memory', arguments: { content: 'x', colour: 'blue' } });
    expect(extra.isError).toBe(true);
    expect((extra.content as Array<{ text: string }>)[0]!.text).toContain('colour');
    // A tool outside the token's scopes is refused by the route it mirrors, as the API would.
    const identity = await client.callTool({ name: 'get_identity', arguments: {} });
    expect(identity.isError).toBe(true);
    expect((identity.content as Array<{ text: string }>)[0]!.text).toMatch(/^INSUFFICIENT_SCOPE: /);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('never lets arguments steer a tool to another route (a missing or dot id is not the list)', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const { client } = await connect(token);
    const kept = await client.callTool({ name: 'add_memory', arguments: { content: 'Must survive a malformed delete' } });
    for (const args of [{}, { id: '.' }, { id: '..' }, { id: '' }]) {
      const refused = await client.callTool({ name: 'delete_memory', arguments: args });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/^VALIDATION_ERROR: /);
    }
    const listed = await t.request('GET', '/api/v1/memory', { token, query: { limit: 200 } });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain((kept.structuredContent as any).id);
    // Whatever the path, a tool's request that is routed elsewhere is refused by the app itself.
    const misrouted = await t.request('DELETE', '/api/v1/memory', { token, headers: { 'x-hearth-tool-operation': 'deleteMemory' } });
    expect(misrouted.status).toBe(400);
    expect((await t.request('GET', '/api/v1/memory', { token })).body.data.length).toBeGreaterThan(0);
  });

  it('refuses a token revoked in the middle of a session on its next call', async () => {
    const created = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'revoked mid-session', scopes: ['memory'] } });
    const { client } = await connect(created.body.data.token);
    expect((await client.callTool({ name: 'search_memory', arguments: {} })).isError).toBeFalsy();
    expect((await t.request('DELETE', `/api/v1/tokens/${created.body.data.id}`, { token: owner.token })).status).toBe(200);
    await expect(client.callTool({ name: 'search_memory', arguments: {} })).rejects.toThrow(/UNAUTHORIZED/);
  });

  it("binds a session to its token: another token cannot use its id", async () => {
    const { transport } = await connect(owner.token);
    const other = await t.tokenWithScopes(owner, ['memory']);
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toBe('NOT_FOUND');
  });

  it('refuses a request without a token, and a web page of another origin', async () => {
    const anonymous = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(anonymous.status).toBe(401);
    const foreign = await initialize(owner.token, '2025-11-25', { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as any).message).toContain('evil.example');
    const own = await initialize(owner.token, '2025-11-25', { origin: new URL(t.config.publicBaseUrl).origin });
    expect(own.status).toBe(200);
    const noSession = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
    });
    expect(noSession.status).toBe(400);
  });

  it('keeps at most the allowed number of sessions per token, closing the least recently used', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const first = await initialize(token);
    const firstId = first.headers.get('mcp-session-id')!;
    await first.text();
    for (let i = 0; i < MCP_SESSIONS_PER_TOKEN; i++) await (await initialize(token)).text();
    const reuse = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': firstId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(reuse.status).toBe(404);
  });

  it('ends a session on DELETE', async () => {
    const { client, transport } = await connect(owner.token);
    const id = transport.sessionId!;
    await transport.terminateSession();
    const after = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  it('records every tool call in the audit log with the token, the tool and the outcome', async () => {
    const created = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'audited mcp', scopes: ['memory'] } });
    const { client } = await connect(created.body.data.token);
    await client.callTool({ name: 'search_memory', arguments: {} });
    await client.callTool({ name: 'get_identity', arguments: {} });
    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'mcp.tool_call', limit: 100 } });
    const mine = log.body.data.filter((e: { tokenId: string }) => e.tokenId === created.body.data.id);
    expect(mine.map((e: { targetId: string; outcome: string }) => `${e.targetId}:${e.outcome}`).sort()).toEqual([
      'get_identity:denied',
      'search_memory:success',
    ]);
  });
});

describe('the stdio bridge (hearth mcp --url)', () => {
  const bin = fileURLToPath(new URL('../../../bin/hearth.js', import.meta.url));

  function spawnBridge(token: string, url = base): { client: Client; transport: StdioClientTransport } {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--url', url],
      env: { PATH: process.env.PATH ?? '', HEARTH_TOKEN: token },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'desktop-client', version: '1.0.0' });
    clients.push(client);
    return { client, transport };
  }

  it('serves the same tools over stdio, and their calls reach the server', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const { client, transport } = spawnBridge(token);
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'hearth' });
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['add_memory', 'check_approval', 'delete_memory', 'search', 'search_memory', 'update_memory']);
    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'Told over stdio: the owner cycles to work' } });
    expect(added.isError).toBeFalsy();
    const api = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'cycles to work' } });
    expect(api.body.data.map((e: { id: string }) => e.id)).toContain((added.structuredContent as any).id);
    await client.close();
  });

  it('answers a request the server refuses with an error instead of leaving the client waiting', async () => {
    const created = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'bridge revoked', scopes: ['memory'] } });
    const { client, transport } = spawnBridge(created.body.data.token);
    await client.connect(transport);
    await t.request('DELETE', `/api/v1/tokens/${created.body.data.id}`, { token: owner.token });
    await expect(client.listTools()).rejects.toThrow(/UNAUTHORIZED/);
    await client.close();
  });

  it('names the address it tried and the likely fix when nothing answers there', async () => {
    const { createServer } = await import('node:net');
    // A port that was free a moment ago and has nobody listening now.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { client, transport } = spawnBridge(owner.token, `http://127.0.0.1:${port}`);
    await expect(client.connect(transport)).rejects.toThrow(`nothing answered at http://127.0.0.1:${port}/mcp (ECONNREFUSED); is Hearth running? is the port right?`);
    await client.close();
  });

  it("says the MCP endpoint is at the server's root when given the REST API's address", async () => {
    const { spawnSync } = await import('node:child_process');
    for (const url of [`${base}/api/v1`, `${base}/api/v1/`]) {
      const run = spawnSync(process.execPath, [bin, 'mcp', '--url', url], { env: { PATH: process.env.PATH ?? '', HEARTH_TOKEN: owner.token }, encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim()).toBe(`hearth: --url ${url} is the address of Hearth's REST API; the MCP endpoint is /mcp at the server's root: use --url ${base}`);
    }
    // Spelled out with /mcp under the API, the server's 404 is explained the same way.
    const { client, transport } = spawnBridge(owner.token, `${base}/api/v1/mcp`);
    await expect(client.connect(transport)).rejects.toThrow(`${base}/api/v1/mcp answered 404: no MCP endpoint there; the MCP endpoint is /mcp at the server's root (--url ${base})`);
    await client.close();
  });

  it('says in one line what is missing when started without a token', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, [bin, 'mcp', '--url', base], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toMatch(/^hearth: HEARTH_TOKEN is not set/);
  });
});

describe('resources and prompts', () => {
  let skillSlug: string;
  let documentId: string;

  beforeAll(async () => {
    const persona = await t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Ada', soul_content: 'You are Ada, calm and exact.' } });
    expect((await t.request('POST', `/api/v1/personas/${persona.body.data.id}/activate`, { token: owner.token })).status).toBe(200);
    const skill = await t.request('POST', '/api/v1/skills', {
      token: owner.token,
      body: { name: 'weekly-review', description: 'Reviews the week', scriptContent: 'Look back at the week, then plan the next.' },
    });
    expect(skill.status, skill.text).toBe(201);
    skillSlug = skill.body.data.slug;
    expect((await t.request('POST', `/api/v1/skills/${skill.body.data.id}/activate`, { token: owner.token })).status).toBe(200);
    const document = await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Packing list', content: 'Passport, charger, socks.' } });
    documentId = document.body.data.id;
    // Enough skills to need a second page.
    for (let i = 0; i < 55; i++) {
      const res = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: `filler-${i}`, scriptContent: `Step ${i}` } });
      expect(res.status).toBe(201);
    }
  });

  it('lists the persona, every skill and every document, page by page, and reads each', async () => {
    const { client } = await connect(owner.token);
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map((resource) => resource.uri));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBeGreaterThan(1);
    expect(uris[0]).toBe('hearth://persona');
    expect(uris).toContain(`hearth://skills/${skillSlug}`);
    expect(uris).toContain(`hearth://knowledge/${documentId}`);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris.filter((uri) => uri.startsWith('hearth://skills/'))).toHaveLength(56);

    const persona = await client.readResource({ uri: 'hearth://persona' });
    expect(persona.contents[0]).toMatchObject({ uri: 'hearth://persona', mimeType: 'text/markdown', text: expect.stringContaining('You are Ada, calm and exact.') });
    const skill = await client.readResource({ uri: `hearth://skills/${skillSlug}` });
    expect((skill.contents[0] as { text: string }).text).toContain('Look back at the week, then plan the next.');
    const document = await client.readResource({ uri: `hearth://knowledge/${documentId}` });
    expect((document.contents[0] as { text: string }).text).toBe('Passport, charger, socks.');
    await expect(client.readResource({ uri: 'hearth://skills/no-such-skill' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'https://elsewhere.example/' })).rejects.toMatchObject({ code: -32002 });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['hearth://skills/{slug}', 'hearth://knowledge/{id}']);
  });

  it('shows a token only the resources its scopes may read', async () => {
    const { client } = await connect(await t.tokenWithScopes(owner, ['knowledge']));
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris).toEqual([`hearth://knowledge/${documentId}`]);
    await expect(client.readResource({ uri: 'hearth://persona' })).rejects.toThrow();
  });

  it('offers each active skill as a prompt', async () => {
    const { client } = await connect(owner.token);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor ? { cursor } : {});
      names.push(...page.prompts.map((prompt) => prompt.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names).toContain(skillSlug);
    // Skills not activated are not prompts.
    expect(names).not.toContain('filler-1');
    const prompt = await client.getPrompt({ name: skillSlug });
    expect(prompt.messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: expect.stringContaining('Look back at the week') } });

    const skill = await t.request('GET', `/api/v1/skills/_by_slug/${skillSlug}`, { token: owner.token });
    await t.request('POST', `/api/v1/skills/${skill.body.data.id}/deactivate`, { token: owner.token });
    await expect(client.getPrompt({ name: skillSlug })).rejects.toThrow(/not active/);
    await t.request('POST', `/api/v1/skills/${skill.body.data.id}/activate`, { token: owner.token });
  });

  it("tells the owner's open sessions when their resources and prompts change", async () => {
    const { client } = await connect(owner.token);
    const resources = new Promise<void>((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    const prompts = new Promise<void>((resolve) => client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()));
    // The server's stream opens once the client has initialized; a tools call makes sure it is up.
    await client.listTools();
    const created = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'fresh-skill', scriptContent: 'New.' } });
    expect(created.status).toBe(201);
    await Promise.all([resources, prompts]);
  });

  /** Counts the list_changed notifications a client hears, and waits for the next of each kind. */
  function hear(client: Client) {
    const heard = { resources: 0, prompts: 0 };
    const waiting: Array<{ kind: 'resources' | 'prompts'; count: number; resolve: () => void }> = [];
    const note = (kind: 'resources' | 'prompts') => {
      heard[kind] += 1;
      for (const wait of waiting.filter((w) => w.kind === kind && heard[kind] >= w.count)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    };
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => note('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => note('prompts'));
    return {
      heard,
      /** Resolves once `kind` was heard once more than now. */
      next(kind: 'resources' | 'prompts'): Promise<void> {
        const count = heard[kind] + 1;
        return new Promise((resolve) => waiting.push({ kind, count, resolve }));
      },
    };
  }

  it('tells of every write that changes what a session lists: personas, knowledge, attachments, skill changes', async () => {
    const { client } = await connect(owner.token);
    const news = hear(client);
    await client.listTools();
    /** Makes a write and waits for the news of it, so that each news is counted against its own write. */
    const expectResources = async (write: () => Promise<{ status: number; text: string; body: any }>, status = 200) => {
      const next = news.next('resources');
      const res = await write();
      expect(res.status, res.text).toBe(status);
      await next;
      return res;
    };
    const persona = await expectResources(() => t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Grace', soul_content: 'Precise.' } }), 201);
    await expectResources(() => t.request('PUT', `/api/v1/personas/${persona.body.data.id}`, { token: owner.token, body: { description: 'Exact' } }));
    const document = await expectResources(() => t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Tide table', content: 'High water at six.' } }));
    await expectResources(() => t.request('POST', `/api/v1/personas/${persona.body.data.id}/documents`, { token: owner.token, body: { documentId: document.body.data.id } }), 201);
    await expectResources(() => t.request('PUT', `/api/v1/brain/knowledge-base/${document.body.data.id}`, { token: owner.token, body: { content: 'High water at seven.' } }));
    await expectResources(() => t.request('DELETE', `/api/v1/brain/knowledge-base/${document.body.data.id}`, { token: owner.token }));
    await expectResources(() => t.request('DELETE', `/api/v1/personas/${persona.body.data.id}`, { token: owner.token }));
    // A skill is a prompt too: its changes tell both lists.
    let prompts = news.next('prompts');
    const skill = await expectResources(() => t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'tide-check', scriptContent: 'Check the tides.' } }), 201);
    await prompts;
    prompts = news.next('prompts');
    await expectResources(() => t.request('POST', `/api/v1/skills/${skill.body.data.id}/activate`, { token: owner.token }));
    await prompts;
    // A refused write changes nothing, and tells nothing: the next news is of the write after it.
    const before = { ...news.heard };
    expect((await t.request('DELETE', '/api/v1/skills/999999999', { token: owner.token })).status).toBe(404);
    prompts = news.next('prompts');
    await expectResources(() => t.request('DELETE', `/api/v1/skills/${skill.body.data.id}`, { token: owner.token }));
    await prompts;
    expect(news.heard).toEqual({ resources: before.resources + 1, prompts: before.prompts + 1 });
  });

  it("tells of a marketplace install, which makes a skill, and tells no other owner's session", async () => {
    const publisher = await t.createOwner('Publisher');
    const skill = await t.request('POST', '/api/v1/skills', { token: publisher.token, body: { name: 'harbour-guide', scriptContent: 'Guide the way in.' } });
    expect(skill.status).toBe(201);
    const listing = await t.request('POST', '/api/v1/marketplace/listings', { token: publisher.token, body: { type: 'skill', refId: skill.body.data.id, title: 'Harbour guide' } });
    expect(listing.status, listing.text).toBe(201);
    const { client: publisherClient } = await connect(publisher.token);
    const publisherNews = hear(publisherClient);
    await publisherClient.listTools();
    const { client } = await connect(owner.token);
    const news = hear(client);
    await client.listTools();

    const [resources, prompts] = [news.next('resources'), news.next('prompts')];
    const installed = await t.request('POST', `/api/v1/marketplace/listings/${listing.body.data.id}/install`, { token: owner.token });
    expect(installed.status, installed.text).toBe(201);
    await Promise.all([resources, prompts]);
    // The publisher's own write comes next on its stream: had it heard the install, it would count two.
    const own = [publisherNews.next('resources'), publisherNews.next('prompts')];
    expect((await t.request('DELETE', `/api/v1/skills/${skill.body.data.id}`, { token: publisher.token })).status).toBe(200);
    await Promise.all(own);
    expect(publisherNews.heard).toEqual({ resources: 1, prompts: 1 });
  });

  it.skipIf(ENGINE !== 'postgres')("tells a session on another node of the owner's writes here", async () => {
    const node = await t.openNode();
    try {
      const otherBase = await node.app.listen({ port: 0, host: '127.0.0.1' });
      const client = new Client({ name: 'hearth-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${otherBase}/mcp`), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
      clients.push(client);
      const news = hear(client);
      await client.listTools();
      const [resources, prompts] = [news.next('resources'), news.next('prompts')];
      // Written through the first node; the session lives on the other.
      expect((await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'across-nodes', scriptContent: 'Hello.' } })).status).toBe(201);
      await Promise.all([resources, prompts]);
      await client.close();
    } finally {
      await node.app.close();
    }
  });
});
