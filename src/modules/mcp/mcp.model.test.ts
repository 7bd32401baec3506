import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyToken } from '../../../test/approvals.helpers.js';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { estimateTokens } from '../../lib/token-estimate.js';
import { MCP_CONTEXT_TOKENS } from './mcp.tools.js';

/**
 * What MCP hands a model, held to budgets: a client may put the whole tool list into every
 * prompt, and get_context's answer is read before anything else.
 */
const TOOL_LIST_BYTES = 15_000;

let t: TestApp;
let owner: Owner;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Mcp Model Owner');
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // Enough of everything that a context answer without a budget would run far past it.
  for (let i = 0; i < 80; i++) {
    const content = `Travel note ${i}: the train to the coast leaves at seven, pack the rain jacket, the spare charger and the book for the ride.`;
    const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
    expect(res.status, res.text).toBe(201);
  }
  for (let i = 0; i < 5; i++) {
    const content = `# Handbook ${i}\n\n${'The boiler is serviced every autumn; the valve under the stairs closes the water. '.repeat(40)}`;
    const res = await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: `Handbook ${i}`, content } });
    expect(res.status, res.text).toBeLessThan(300);
  }
});
afterAll(async () => {
  await Promise.all(clients.map((client) => ignoreFailure(client.close(), 'a client the app closes anyway')));
  await t.close();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'hearth-model-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: ToolResult) => (result.content as Array<{ type: string; text: string }>)[0]!.text;

describe('MCP sized for a model', () => {
  it(`keeps tools/list for the master token within ${TOOL_LIST_BYTES} bytes, and a narrow token's far smaller`, async () => {
    const full = await (await connect(owner.token)).listTools();
    const fullBytes = Buffer.byteLength(JSON.stringify(full));
    expect(full.tools.length).toBeGreaterThan(25);
    expect(fullBytes, `tools/list for the master token is ${fullBytes} bytes`).toBeLessThanOrEqual(TOOL_LIST_BYTES);
    // What a model needs to choose arguments, not the API reference's rules and their messages (still enforced).
    const listed = JSON.stringify(full);
    expect(listed).not.toMatch(/"(x-pattern-message|pattern|maxLength|outputSchema)"/);
    const searchMemory = full.tools.find((tool) => tool.name === 'search_memory')!;
    expect(searchMemory.inputSchema.properties!.match).toMatchObject({ type: 'string', enum: ['any', 'all'], default: 'any' });
    const narrow = await (await connect(await t.tokenWithScopes(owner, ['read', 'memory']))).listTools();
    const narrowBytes = Buffer.byteLength(JSON.stringify(narrow));
    expect(narrowBytes, `tools/list for a read+memory token is ${narrowBytes} bytes`).toBeLessThanOrEqual(TOOL_LIST_BYTES / 3);
  });

  it.each([
    ['the master token', () => owner.token],
    ['a read+memory+knowledge token', () => t.tokenWithScopes(owner, ['read', 'memory', 'knowledge'])],
  ])('keeps get_context for %s within its default budget, without the REST route list', async (_name, tokenOf) => {
    const client = await connect(await tokenOf());
    const result = await client.callTool({ name: 'get_context', arguments: { task: 'pack for the train to the coast' } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(estimateTokens(text), `get_context answered ${estimateTokens(text)} estimated tokens`).toBeLessThanOrEqual(MCP_CONTEXT_TOKENS);
    expect(text).not.toMatch(/\/api\/v1\//);
    expect(text.startsWith('{"data"')).toBe(false);
    // Compact JSON: no indentation spent on a model.
    expect(text).not.toContain('\n  ');
  });
});

describe('a call held for approval', () => {
  it('is a normal result with its approvalId, and check_approval follows it to the executed result', async () => {
    const { token } = await policyToken(t, owner, ['memory'], { 'memory.delete': 'ask' });
    const client = await connect(token);
    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'The spare key is with the neighbour at number 12' } });
    const entryId = (added.structuredContent as { id: string }).id;

    const held = await client.callTool({ name: 'delete_memory', arguments: { id: entryId } });
    expect(held.isError).toBeFalsy();
    const pending = held.structuredContent as { status: string; approvalId: string; next: string };
    expect(pending).toMatchObject({ status: 'pending', approvalId: expect.any(String) });
    expect(pending.next).toContain('check_approval');
    expect(JSON.parse(textOf(held))).toEqual(held.structuredContent);
    const stored = async () => ((await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200 } })).body.data as Array<{ id: string }>).some((entry) => entry.id === entryId);
    // Not run yet.
    expect(await stored()).toBe(true);

    const waiting = await client.callTool({ name: 'check_approval', arguments: { id: pending.approvalId } });
    expect(waiting.isError).toBeFalsy();
    expect(waiting.structuredContent).toMatchObject({ approvalId: pending.approvalId, status: 'pending', action: expect.any(String) });
    expect(waiting.structuredContent).not.toHaveProperty('result');

    const approved = await t.request('POST', `/api/v1/approvals/${pending.approvalId}/approve`, { token: owner.token });
    expect(approved.status, approved.text).toBe(200);
    const done = await client.callTool({ name: 'check_approval', arguments: { id: pending.approvalId } });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ approvalId: pending.approvalId, status: 'executed', next: expect.stringContaining('result') });
    expect(await stored()).toBe(false);
  });

  it("shows the executed call's answer without the API envelope", async () => {
    const { token } = await policyToken(t, owner, ['memory'], { 'memory.write': 'ask' });
    const client = await connect(token);
    const held = await client.callTool({ name: 'add_memory', arguments: { content: 'Bins go out on Tuesday night' } });
    const { approvalId } = held.structuredContent as { approvalId: string };
    expect((await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token })).status).toBe(200);
    const done = await client.callTool({ name: 'check_approval', arguments: { id: approvalId } });
    expect(done.structuredContent).toMatchObject({ status: 'executed', result: { id: expect.any(String), content: 'Bins go out on Tuesday night' } });
  });

  it("lets a token check its own approvals only, even the owner's master token over MCP", async () => {
    const { token } = await policyToken(t, owner, ['memory'], { 'memory.write': 'ask' });
    const held = await (await connect(token)).callTool({ name: 'add_memory', arguments: { content: 'A held note nobody else may follow' } });
    const { approvalId } = held.structuredContent as { approvalId: string };
    const bystander = await connect(await t.tokenWithScopes(owner, ['memory']));
    const master = await connect(owner.token);
    const stranger = await connect((await t.createOwner('Mcp Model Stranger')).token);
    for (const client of [bystander, master, stranger]) {
      const refused = await client.callTool({ name: 'check_approval', arguments: { id: approvalId } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^NOT_FOUND: /);
    }
  });
});

describe('tool errors say what to change', () => {
  it.each([
    ['add_memory', {}, 'content: is required'],
    ['add_memory', { content: '' }, 'content: must not be empty'],
    ['search', { q: 'x', limit: 500 }, 'limit: must be 1 to 50'],
    ['search', { q: 'x', limit: 'many' }, 'limit: must be a whole number'],
    ['search_memory', { match: 'some' }, 'match: must be one of any, all'],
    ['search', { q: 'x', types: 'notes' }, 'types: types is a comma-separated list of memory, knowledge, skills'],
    ['get_context', { maxTokens: 50 }, 'maxTokens: must be 500 to 32000'],
    ['delete_memory', { id: '..' }, 'id: only letters, digits, dashes (-) and underscores (_) are accepted'],
    ['add_memory', { content: 'x', colour: 'blue' }, 'add_memory takes no argument colour; it takes content'],
  ])('%s %j: "%s"', async (name, args, words) => {
    const client = await connect(owner.token);
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(words);
    expect(textOf(result)).not.toMatch(/must NOT|must have required property|must match pattern|must be equal to constant/);
  });
});
