/**
 * An endpoint that receives webhooks on loopback: it records each request (headers lower-cased,
 * body as sent) and answers what the test decides, so a test awaits deliveries instead of
 * sleeping. `answer` picks the status of each request in turn; `hang` keeps the request open
 * until the client gives up, as a stuck endpoint does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** Resolves when the client went away before the answer (aborted). */
  aborted: Promise<void>;
}

export type Answer = number | 'hang';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves with the `n`th request (1-based), now or when it arrives. */
  request(n: number): Promise<ReceivedWebhook>;
  /** Chooses the answer to each request; 204 unless set. */
  answer(choose: (request: ReceivedWebhook, index: number) => Answer): void;
  /** Answers every request held open by `hang` with `status`. */
  release(status: number): void;
  /** The requests that carried this `webhook-id`. */
  withId(id: string): ReceivedWebhook[];
  /** The most requests `hang` held open at once (a client that went away still counts until released). */
  readonly mostHeld: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiting = new Map<number, Array<(request: ReceivedWebhook) => void>>();
  let choose: (request: ReceivedWebhook, index: number) => Answer = () => 204;
  const open = new Set<ServerResponse>();
  let mostHeld = 0;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let abortedResolve!: () => void;
      const aborted = new Promise<void>((resolve) => (abortedResolve = resolve));
      res.on('close', () => {
        if (!res.writableFinished) abortedResolve();
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
      const request: ReceivedWebhook = { headers, body: Buffer.concat(chunks).toString('utf8'), aborted };
      received.push(request);
      const index = received.length;
      const answer = choose(request, index);
      for (const resolve of waiting.get(index) ?? []) resolve(request);
      waiting.delete(index);
      if (answer === 'hang') {
        open.add(res);
        mostHeld = Math.max(mostHeld, open.size);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(req.url === path ? 'ok' : 'wrong path');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    request(n) {
      const already = received[n - 1];
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => {
        const list = waiting.get(n) ?? [];
        list.push(resolve);
        waiting.set(n, list);
      });
    },
    answer(next) {
      choose = next;
    },
    release(status) {
      for (const res of open) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      open.clear();
    },
    get mostHeld() {
      return mostHeld;
    },
    withId(id) {
      return received.filter((r) => r.headers['webhook-id'] === id);
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
