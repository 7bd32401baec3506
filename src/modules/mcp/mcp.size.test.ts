import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let owner: Owner;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Mcp Size Owner');
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => t.close());

describe('size', () => {
  it('measures', async () => {
    const client = new Client({ name: 'x', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
    const list = await client.listTools();
    require('node:fs').writeFileSync('/tmp/h10/tools.json', JSON.stringify(list.tools, null, 1)); console.log('SIZE', JSON.stringify(list.tools).length, JSON.stringify(list.tools.map((x) => x.outputSchema)).length, JSON.stringify(list.tools.map((x) => x.inputSchema)).length, JSON.stringify(list.tools.map((x) => x.description)).length);
    expect(1).toBe(1);
    await client.close();
  });
});
