/**
 * What the client program (hearth.client.ts) takes and answers, without the generated types:
 * the test reads these, and the program itself is type-checked only against the generated
 * types (see test/openapi.client.test.ts).
 */
export interface Exchange {
  method: string;
  /** The path template the call was made through, as in the document. */
  path: string;
  status: number;
  contentType: string;
  body: unknown;
}

export interface ClientRunOptions {
  /** Where Hearth listens, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** An outside API reachable from Hearth, that echoes what it receives. */
  upstreamUrl: string;
  upstreamKey: string;
}

export interface ClientRunResult {
  exchanges: Exchange[];
  /** What the pass-through call answered: the service's status and body. */
  passThrough: { status: number; body: unknown };
}

export type RunClientProgram = (options: ClientRunOptions) => Promise<ClientRunResult>;
