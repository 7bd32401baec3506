import { Link } from '../../router';
import { ClientSnippets } from './clients';

/** Under a token just created: how to use it in an AI client, with the same configurations as the Connect page. */
export function UseInClient({ token }: { token: string }) {
  return (
    <details className="card use-in-client">
      <summary>Use this token in an AI client (Claude Desktop, Cursor, VS Code)</summary>
      <p className="muted">
        Each configuration below already holds the token. <Link href="/connect">Connect an AI client</Link> explains every client, and remote connectors that sign in
        without a token.
      </p>
      <ClientSnippets token={token} headingLevel={3} />
    </details>
  );
}
