/**
 * The configuration each AI client needs to reach this server's MCP endpoint, as the exact text
 * to paste. Pure functions of the address, the token and (for the node command) the folder, so
 * the page and the tokens page show the same text.
 */

/** Stands in for a token until the owner creates one; a client given it is refused with a 401. */
export const TOKEN_PLACEHOLDER = 'hth_pat_…';
/** Stands in for the folder of the Hearth checkout, which the console cannot know. */
export const FOLDER_PLACEHOLDER = '/path/to/hearth';

export interface SnippetInput {
  /** The server's root address, without a trailing slash (https://hearth.example.org). */
  baseUrl: string;
  /** The token to send, or undefined for the placeholder. */
  token?: string;
  /** The folder of the Hearth checkout on the computer that runs the desktop client. */
  folder?: string;
}

export interface Snippet {
  id: 'claude-desktop-command' | 'claude-desktop-node' | 'cursor' | 'vscode';
  client: string;
  /** Where the text goes, in the owner's words. */
  where: string;
  text: string;
}

export function mcpUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/mcp`;
}

/** The server's root from the MCP resource the discovery document names (…/mcp). */
export function baseFromResource(resource: string): string {
  return resource.replace(/\/mcp\/?$/, '').replace(/\/+$/, '');
}

export function snippets({ baseUrl, token, folder }: SnippetInput): Snippet[] {
  const base = baseUrl.replace(/\/+$/, '');
  const secret = token ?? TOKEN_PLACEHOLDER;
  const url = mcpUrl(base);
  const hearthJs = `${(folder?.trim() || FOLDER_PLACEHOLDER).replace(/[\\/]+$/, '')}/bin/hearth.js`;
  const env = { HEARTH_TOKEN: secret };
  const headers = { Authorization: `Bearer ${secret}` };
  return [
    {
      id: 'claude-desktop-command',
      client: 'Claude Desktop, with the hearth command installed',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config), after `npm install -g .` (or `npm link`) in the Hearth folder',
      text: json({ mcpServers: { hearth: { command: 'hearth', args: ['mcp', '--url', base], env } } }),
    },
    {
      id: 'claude-desktop-node',
      client: 'Claude Desktop, through node and the Hearth folder',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config); nothing to install beyond the Hearth checkout',
      text: json({ mcpServers: { hearth: { command: 'node', args: [hearthJs, 'mcp', '--url', base], env } } }),
    },
    { id: 'cursor', client: 'Cursor', where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)', text: json({ mcpServers: { hearth: { url, headers } } }) },
    { id: 'vscode', client: 'VS Code', where: '.vscode/mcp.json in your workspace (or "MCP: Open User Configuration")', text: json({ servers: { hearth: { type: 'http', url, headers } } }) },
  ];
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
