import { useEffect, useId, useState } from 'react';
import { api } from '../../api/client';
import { ignoreFailure } from '../../ignore-failure';
import { CodeBlock } from './code-block';
import { baseFromResource, mcpUrl, snippets } from './snippets';

/**
 * This server's root address as clients reach it: the MCP resource its discovery document names
 * (built from PUBLIC_BASE_URL, which is what remote clients must use), or, until that answers,
 * the page's own origin.
 */
export function useServerBase(): string {
  const [base, setBase] = useState(window.location.origin);
  useEffect(() => {
    let current = true;
    const asked = api.GET('/.well-known/oauth-protected-resource/mcp').then((answer) => {
      const resource = answer.data?.resource;
      if (current && typeof resource === 'string' && /^https?:\/\//.test(resource)) setBase(baseFromResource(resource));
    });
    void ignoreFailure(asked, "the page's own origin is the address shown instead");
    return () => {
      current = false;
    };
  }, []);
  return base;
}

/** The configuration of every client, filled in with `token` when there is one. */
export function ClientSnippets({ token, headingLevel = 2 }: { token?: string; headingLevel?: 2 | 3 }) {
  const base = useServerBase();
  const [folder, setFolder] = useState('');
  const folderId = useId();
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const all = snippets({ baseUrl: base, token, folder });
  const byId = (id: (typeof all)[number]['id']) => all.find((snippet) => snippet.id === id)!;
  return (
    <div className="stack connect-clients">
      <section aria-label="claude.ai and ChatGPT" className="card stack">
        <Heading>claude.ai and ChatGPT (remote connectors)</Heading>
        <p>
          Add a custom connector with this URL and nothing else. The client signs in through Hearth (OAuth): your browser opens Hearth's consent page, where you choose
          what it may do. No token to paste; you can revoke its access later on Agents and tokens.
        </p>
        <CodeBlock label="Connector URL" text={mcpUrl(base)} />
        <p className="muted">Cursor and VS Code sign in this way too when given only the URL.</p>
      </section>

      <section aria-label="Claude Desktop" className="card stack">
        <Heading>Claude Desktop (stdio)</Heading>
        <p>
          Claude Desktop starts a local program, the bridge in Hearth's folder, which relays every message to this server with your token. Restart Claude Desktop after
          editing its configuration.
        </p>
        <Snippet snippet={byId('claude-desktop-command')} />
        <div>
          <label htmlFor={folderId}>Hearth folder on the computer running Claude Desktop</label>
          <input id={folderId} className="mono" value={folder} placeholder="/path/to/hearth" onChange={(event) => setFolder(event.currentTarget.value)} />
        </div>
        <Snippet snippet={byId('claude-desktop-node')} />
      </section>

      <section aria-label="Cursor" className="card stack">
        <Heading>Cursor</Heading>
        <Snippet snippet={byId('cursor')} />
      </section>

      <section aria-label="VS Code" className="card stack">
        <Heading>VS Code</Heading>
        <Snippet snippet={byId('vscode')} />
      </section>
    </div>
  );
}

function Snippet({ snippet }: { snippet: ReturnType<typeof snippets>[number] }) {
  return (
    <div className="stack">
      <p>
        <strong>{snippet.client}</strong> <span className="muted">in {snippet.where}</span>
      </p>
      <CodeBlock label={`${snippet.client} configuration`} text={snippet.text} />
    </div>
  );
}
