// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * "Connect an AI client" in a real browser: the owner makes a token with chosen scopes on the
 * page, and the configuration the page then shows is what real MCP clients connect with: the
 * SDK's HTTP client with the VS Code and Cursor snippets, its stdio client running the bridge
 * (bin/hearth.js mcp) with the Claude Desktop snippet. The tokens page offers the same snippets
 * after "Create token".
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PHONE = 390;

// The page's globals the callbacks run in the browser use (this suite compiles without the DOM library).
declare const document: { documentElement: { scrollWidth: number } };

/** The text of a configuration block the page shows, by its label. */
async function snippet(page: Page, label: string): Promise<string> {
  return (await page.getByLabel(label, { exact: true }).textContent()) ?? '';
}

async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).sort();
}

describe.runIf(BROWSER_TESTS)('connecting an AI client from the console, in Chromium', () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  let page: Page;
  const clients: Client[] = [];
  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner();
    ({ page } = await c.newPage());
    await signIn(page, owner.email, owner.password);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await c?.close();
  });
  afterEach(() => expect(c.problems).toEqual([]));

  let token = '';

  it('shows the MCP address and, once a token is made with the scopes chosen, each client configuration holding it', async () => {
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connect an AI client' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connect an AI client' }).waitFor();
    expect(await snippet(page, 'MCP address')).toBe(`${c.base}/mcp`);
    // claude.ai and ChatGPT need only the URL: they sign in with OAuth.
    expect(await snippet(page, 'Connector URL')).toBe(`${c.base}/mcp`);
    // Before a token exists, the snippets hold a placeholder, not a secret.
    expect(await snippet(page, 'VS Code configuration')).toContain('hth_pat_…');

    await page.getByLabel('Token name').fill('Cursor on my laptop');
    // read and memory are ticked to begin with; add knowledge, drop memory.
    await page.getByRole('checkbox', { name: /^knowledge\b/ }).check();
    await page.getByRole('checkbox', { name: /^memory\b/ }).uncheck();
    await page.getByRole('button', { name: 'Create token' }).click();
    token = await page.getByRole('textbox', { name: 'New token' }).inputValue();
    expect(token).toMatch(/^hth_/);
    await c.screenshot(page, 'connect-01-token-and-snippets');

    const listed = await c.t.request('GET', '/api/v1/tokens?kind=api', { token: owner.token });
    const made = listed.body.data.find((entry: { name: string }) => entry.name === 'Cursor on my laptop');
    expect([...made.scopes].sort()).toEqual(['knowledge', 'read']);
  });

  it('the VS Code and Cursor snippets connect the SDK HTTP client, which sees the tools of those scopes', async () => {
    const vscode = JSON.parse(await snippet(page, 'VS Code configuration'));
    const server = vscode.servers.hearth;
    expect(server.type).toBe('http');
    expect(server.url).toBe(`${c.base}/mcp`);
    expect(server.headers.Authorization).toBe(`Bearer ${token}`);
    const client = new Client({ name: 'vscode-snippet', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }));
    const names = await toolNames(client);
    expect(names).toContain('search_knowledge');
    // memory was not granted: its writing tools are not offered.
    expect(names).not.toContain('add_memory');

    const cursor = JSON.parse(await snippet(page, 'Cursor configuration')).mcpServers.hearth;
    const other = new Client({ name: 'cursor-snippet', version: '1.0.0' });
    clients.push(other);
    await other.connect(new StreamableHTTPClientTransport(new URL(cursor.url), { requestInit: { headers: cursor.headers } }));
    expect(await toolNames(other)).toEqual(names);
  });

  it('the Claude Desktop snippet starts the stdio bridge, through which the SDK stdio client sees the same tools', async () => {
    await page.getByLabel('Hearth folder on the computer running Claude Desktop').fill(ROOT);
    const desktop = JSON.parse(await snippet(page, 'Claude Desktop, through node and the Hearth folder configuration')).mcpServers.hearth;
    expect(desktop.command).toBe('node');
    expect(desktop.args).toEqual([path.join(ROOT, 'bin/hearth.js'), 'mcp', '--url', c.base]);
    expect(desktop.env).toEqual({ HEARTH_TOKEN: token });
    const installed = JSON.parse(await snippet(page, 'Claude Desktop, with the hearth command installed configuration')).mcpServers.hearth;
    expect(installed).toEqual({ command: 'hearth', args: ['mcp', '--url', c.base], env: { HEARTH_TOKEN: token } });

    const client = new Client({ name: 'claude-desktop-snippet', version: '1.0.0' });
    clients.push(client);
    // The command as Claude Desktop would run it; `node` is this test's own Node.js.
    await client.connect(new StdioClientTransport({ command: process.execPath, args: desktop.args, env: desktop.env, stderr: 'pipe' }));
    const names = await toolNames(client);
    expect(names).toContain('search_knowledge');
    expect(names).not.toContain('add_memory');
  }, 30_000);

  it('fits a phone: the long configurations scroll inside their boxes, not the page', async () => {
    const phone = await c.newPage({ width: PHONE });
    await signIn(phone.page, owner.email, owner.password);
    await phone.page.goto('/connect');
    await phone.page.getByRole('heading', { level: 1, name: 'Connect an AI client' }).waitFor();
    await phone.page.getByLabel('VS Code configuration', { exact: true }).waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE);
    await c.screenshot(phone.page, 'connect-03-phone');
  });

  it('after "Create token", the tokens page offers the same snippets with the new token', async () => {
    await page.goto('/agents');
    await page.getByRole('heading', { level: 1, name: 'Agents and tokens' }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByLabel('Name').fill('VS Code at work');
    await page.getByRole('checkbox', { name: /^memory\b/ }).check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = await page.getByRole('textbox', { name: 'New token' }).inputValue();
    await page.getByText('Use this token in an AI client').click();
    const vscode = JSON.parse(await snippet(page, 'VS Code configuration')).servers.hearth;
    expect(vscode.headers.Authorization).toBe(`Bearer ${secret}`);
    await c.screenshot(page, 'connect-02-tokens-page-snippets');
    const client = new Client({ name: 'tokens-page-snippet', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(vscode.url), { requestInit: { headers: vscode.headers } }));
    expect(await toolNames(client)).toContain('add_memory');
  });
});
