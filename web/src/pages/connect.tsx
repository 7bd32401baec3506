import { useId, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionError, ScopeTags, useAction } from '../components/actions';
import { OnceSecret, PageHeader, ScopePicker } from '../components/ui';
import { Link } from '../router';
import { ClientSnippets, useServerBase } from './connect/clients';
import { CodeBlock } from './connect/code-block';
import { mcpUrl } from './connect/snippets';

type ScopeName = NonNullable<Schemas['Handshake']['grantedScopes']>[number];

/** What a new client token gets unless the owner changes it: reading, and the memory it keeps. */
const DEFAULT_SCOPES = ['read', 'memory'];

/**
 * How to connect an AI client over MCP: this server's address, and each client's configuration,
 * filled in with a token made here (shown once) or, for remote connectors, the OAuth path.
 */
export function ConnectPage() {
  const base = useServerBase();
  const [issued, setIssued] = useState<{ token: string; scopes: string[] }>();
  return (
    <>
      <PageHeader title="Connect an AI client" />
      <p>
        Hearth is an MCP server. An AI client connected to it sees only the tools its token's scopes allow; every call is in the <Link href="/audit">audit log</Link>.
      </p>
      <section aria-labelledby="mcp-address-heading" className="stack">
        <h2 id="mcp-address-heading">This server's MCP address</h2>
        <CodeBlock label="MCP address" text={mcpUrl(base)} />
      </section>

      <section aria-labelledby="client-token-heading" className="stack">
        <h2 id="client-token-heading">A token for the client</h2>
        {issued ? (
          <>
            <OnceSecret label="New token" value={issued.token} />
            <p>
              Scopes: <ScopeTags scopes={issued.scopes} />. The configurations below include it. <Link href="/agents">Agents and tokens</Link> lists it, with its policy
              and a button to revoke it.
            </p>
            <button type="button" onClick={() => setIssued(undefined)}>
              Create another token
            </button>
          </>
        ) : (
          <CreateClientToken onCreated={(token, scopes) => setIssued({ token, scopes })} />
        )}
      </section>

      <section aria-labelledby="clients-heading" className="stack">
        <h2 id="clients-heading">Configuration to paste</h2>
        {issued ? null : <p className="muted">Create a token above and these fill in with it; claude.ai and ChatGPT need none.</p>}
        <ClientSnippets token={issued?.token} headingLevel={3} />
      </section>
    </>
  );
}

function CreateClientToken({ onCreated }: { onCreated: (token: string, scopes: string[]) => void }) {
  const [name, setName] = useState('AI client');
  const [scopes, setScopes] = useState<string[]>(DEFAULT_SCOPES);
  const action = useAction();
  const nameId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      if (scopes.length === 0) throw new Error('Choose at least one scope: a token without any could do nothing.');
      const answer = unwrap(await api.POST('/api/v1/tokens', { body: { name: name.trim(), scopes: scopes as ScopeName[] } }));
      onCreated(answer.data.token, answer.data.scopes);
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-label="Create a token for an AI client">
      <p className="muted">For Claude Desktop, Cursor and VS Code. Choose what the client may do; you can narrow it further with the token's policy.</p>
      <div>
        <label htmlFor={nameId}>Token name</label>
        <input id={nameId} value={name} required maxLength={100} onChange={(event) => setName(event.currentTarget.value)} placeholder="e.g. Claude Desktop on my laptop" />
      </div>
      <ScopePicker value={scopes} onChange={setScopes} />
      <div className="row">
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
      <ActionError error={action.error} />
    </form>
  );
}
