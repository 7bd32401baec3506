import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';
import { estimateTokens } from '../../lib/token-estimate.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { MCP_CONTEXT_TOKENS } from './mcp.tools.js';

let t: TestApp;
let owner: Owner;
let client: Client;
let dentist: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Mcp Context Owner');
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const remember = async (content: string) => (await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } })).body.data.id as string;
  dentist = await remember('My dentist is Dr. Patel, at the clinic on Mill Street; cleaning every six months.');
  // Enough newer, unrelated notes that the whole memory section is far over any small budget.
  for (let i = 0; i < 60; i++) {
    await remember(`Garden log ${i}: watered the tomatoes, tied up the beans, the compost heap needs turning before the frost arrives next week.`);
  }
  client = new Client({ name: 'hearth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
});

afterAll(async () => {
  await ignoreFailure(client.close(), 'closing a client the app closes anyway');
  await t.close();
});

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: ToolResult) => (result.content as Array<{ type: string; text: string }>)[0]!.text;

describe('MCP get_context', () => {
  it('offers task and maxTokens, with the default budget shown', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate.name === 'get_context')!;
    const properties = tool.inputSchema.properties as Record<string, { default?: unknown; maxLength?: number; minimum?: number; maximum?: number }>;
    expect(properties.task).toMatchObject({ type: 'string' });
    expect(properties.maxTokens).toMatchObject({ default: MCP_CONTEXT_TOKENS, minimum: 500, maximum: 32_000 });
    expect(tool.inputSchema.required ?? []).not.toContain('task');
    // The route's omit is the tool's own business: not offered, and refused if sent.
    expect(properties).not.toHaveProperty('omit');
    const refused = await client.callTool({ name: 'get_context', arguments: { omit: ['memory'] } });
    expect(refused.isError).toBe(true);
  });

  it('leaves out the REST route list, which a model connected over MCP cannot use', async () => {
    const result = await client.callTool({ name: 'get_context', arguments: {} });
    const data = result.structuredContent as any;
    expect(data.endpoints).toEqual([]);
    expect(data.budget.trimmed).toContain('endpoints');
    expect(data.token.kind).toBe('master');
  });

  it('answers what serves the task first, within the default budget when none is named', async () => {
    const result = await client.callTool({ name: 'get_context', arguments: { task: 'book a check-up with my dentist' } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as any;
    expect(data.memory.entries[0].id).toBe(dentist);
    expect(data.memory.relevant).toBe(1);
    expect(data.budget).toMatchObject({ maxTokens: MCP_CONTEXT_TOKENS, truncated: true });
    // The budget is kept on the API's answer; the tool's result is that without its envelope, a little less.
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(data.budget.usedTokens);
    expect(data.budget.usedTokens).toBeLessThanOrEqual(MCP_CONTEXT_TOKENS);
  });

  it('keeps to a small budget it is given, the relevant entry first and most unrelated ones out', async () => {
    const result = await client.callTool({ name: 'get_context', arguments: { task: 'who is my dentist', maxTokens: 700 } });
    const data = result.structuredContent as any;
    const ids = data.memory.entries.map((entry: { id: string }) => entry.id);
    expect(ids[0]).toBe(dentist);
    expect(ids.length).toBeLessThan(5);
    expect(data.memory).toMatchObject({ total: 61, truncated: true, relevant: 1 });
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(700);
    expect(data.budget.trimmed).toEqual(expect.arrayContaining(['memory', 'endpoints']));
  });

  it('refuses a budget out of bounds in words that name the argument and its limits', async () => {
    const result = await client.callTool({ name: 'get_context', arguments: { maxTokens: 50 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/maxTokens.*500/);
  });
});
