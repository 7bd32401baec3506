/**
 * A local stand-in for OpenAI's chat-completions API (`POST /v1/chat/completions`) and
 * embeddings API (`POST /v1/embeddings`), honest to the documented wire format:
 * - non-streaming: a `chat.completion` object with `choices[0].message` and `usage`;
 * - `stream: true`: `text/event-stream` of `data: {chat.completion.chunk}` events (a first
 *   chunk with the role, content deltas, a chunk with `finish_reason`, a usage chunk with empty
 *   `choices` when `stream_options.include_usage` is set), ended by `data: [DONE]`;
 * - embeddings: `{ object: "list", data: [{ object: "embedding", index, embedding }], model,
 *   usage: { prompt_tokens, total_tokens } }`, one vector per input (a string or a list of
 *   strings, at most 2048, none empty), computed from the words of each input so that texts
 *   sharing words point the same way (`embeddingDimensions` long);
 * - errors as OpenAI sends them: `{ "error": { "message", "type", "param", "code" } }` with 400,
 *   401, 404, 429 or 500.
 * Every request is recorded (headers and parsed body) so tests can check what Hearth sent.
 * `failure` makes the next requests fail in chosen ways.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FakeFailure =
  /** 500 with OpenAI's server_error body. */
  | 'server-error'
  /** 429 with OpenAI's rate-limit body. */
  | 'rate-limit'
  /** Accepts the request and never answers. */
  | 'hang'
  /** 200 with a body that is not JSON (or, streaming, an event whose data is not JSON). */
  | 'malformed'
  /** 200 JSON without `choices`. */
  | 'no-choices'
  /** Streaming: the connection closes after `cutAfter` content deltas, without [DONE]. */
  | 'cut'
  /** Streaming: an `error` object arrives inside the stream after `cutAfter` deltas. */
  | 'stream-error'
  /** Streaming: after `cutAfter` deltas nothing more is sent, and the connection stays open. */
  | 'stall'
  /** Embeddings: 200 JSON without `data`. */
  | 'no-data'
  /** Embeddings: the last vector is one number shorter than the others. */
  | 'wrong-dimensions';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (undefined if it was not JSON). */
  body: any;
  /** Resolves when the connection of this request closes (the client hung up, or the answer ended). */
  closed: Promise<void>;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>`; the API lives under `/v1`. */
  url: string;
  /** The bearer key the fake accepts; requests without it answer 401. */
  apiKey: string;
  requests: RecordedRequest[];
  /** What the assistant answers: fixed text, or computed from the request body. */
  reply: string | ((body: any) => string);
  failure: FakeFailure | undefined;
  /** Embeddings: how many requests `failure` applies to before it clears itself (undefined: until reset). */
  failureCount: number | undefined;
  /** The length of the embeddings the fake answers. */
  embeddingDimensions: number;
  /** For 'cut' and 'stream-error': how many content deltas go out first. */
  cutAfter: number;
  /** Resolves when the next request has been received (before it is answered). */
  nextRequest(): Promise<RecordedRequest>;
  reset(): void;
  close(): Promise<void>;
}

function openAiError(res: ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null) {
  const body = JSON.stringify({ error: { message, type, param, code } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function maskKey(key: string): string {
  return key.length <= 8 ? '*'.repeat(key.length) : `${key.slice(0, 3)}${'*'.repeat(Math.max(4, key.length - 7))}${key.slice(-4)}`;
}

/** A rough token count, as the fake's `usage` reports it. */
function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The reply in several pieces, as a model streams it (words with their following space). */
function pieces(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  if (words.length <= 1) return text ? [text] : [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 2) out.push(words.slice(i, i + 2).join(''));
  const lead = /^\s+/.exec(text)?.[0];
  if (lead) out[0] = lead + out[0];
  return out;
}

export async function startFakeOpenAI(options: { apiKey?: string } = {}): Promise<FakeOpenAI> {
  const sockets = new Set<Socket>();
  const waiters: Array<(r: RecordedRequest) => void> = [];

  const fake: FakeOpenAI = {
    url: '',
    apiKey: options.apiKey ?? `sk-test-${randomBytes(12).toString('hex')}`,
    requests: [],
    reply: 'Hello from the fake model.',
    failure: undefined,
    failureCount: undefined,
    embeddingDimensions: 8,
    cutAfter: 1,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    reset() {
      fake.requests.length = 0;
      fake.reply = 'Hello from the fake model.';
      fake.failure = undefined;
      fake.failureCount = undefined;
      fake.embeddingDimensions = 8;
      fake.cutAfter = 1;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  /** The failure for this request, counting it down when it is set for a number of requests. */
  function takeFailure(): FakeFailure | undefined {
    const failure = fake.failure;
    if (failure !== undefined && fake.failureCount !== undefined) {
      fake.failureCount -= 1;
      if (fake.failureCount <= 0) {
        fake.failure = undefined;
        fake.failureCount = undefined;
      }
    }
    return failure;
  }

  /** Whether the request carries the fake's key; answers OpenAI's 401 when it does not. */
  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const auth = req.headers.authorization;
    if (!auth) {
      openAiError(
        res,
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        'invalid_request_error',
        null,
      );
      return false;
    }
    const key = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? '';
    if (key !== fake.apiKey) {
      openAiError(res, 401, `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
      return false;
    }
    return true;
  }

  /** A vector from the words of `text`: each word adds to a few dimensions chosen by its hash. */
  function embedText(text: string, dimensions: number): number[] {
    const out = new Array<number>(dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      let hash = 2166136261;
      for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619) >>> 0;
      out[hash % dimensions]! += 1;
      out[(hash >>> 8) % dimensions]! += 0.5;
    }
    const norm = Math.sqrt(out.reduce((sum, v) => sum + v * v, 0)) || 1;
    // OpenAI's vectors are unit length, with about 8 significant digits.
    return out.map((v) => Number((v / norm).toFixed(8)));
  }

  function embeddings(req: IncomingMessage, res: ServerResponse, body: any): void {
    if (!authorized(req, res)) return;
    if (body === undefined) {
      return openAiError(res, 400, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)", 'invalid_request_error', null);
    }
    if (typeof body.model !== 'string' || body.model === '') {
      return openAiError(res, 400, 'you must provide a model parameter', 'invalid_request_error', null);
    }
    const inputs: unknown[] | undefined = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : undefined;
    if (!inputs) return openAiError(res, 400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input');
    if (inputs.length === 0 || inputs.length > 2048 || !inputs.every((input) => typeof input === 'string' && input !== '')) {
      return openAiError(res, 400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'invalid_request_error', null);
    }
    if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
      return openAiError(res, 400, `Invalid value: '${body.encoding_format}'. Supported values are: 'float' and 'base64'.`, 'invalid_request_error', 'invalid_value', 'encoding_format');
    }
    const failure = takeFailure();
    switch (failure) {
      case 'server-error':
        return openAiError(res, 500, 'The server had an error while processing your request. Sorry about that!', 'server_error', null);
      case 'rate-limit':
        return openAiError(res, 429, 'Rate limit reached for requests. Please try again in 20s.', 'requests', 'rate_limit_exceeded');
      case 'hang':
        return; // never answers; close() destroys the socket
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,');
      default:
    }
    const data = (inputs as string[]).map((input, index) => {
      const vector = embedText(input, fake.embeddingDimensions);
      if (failure === 'wrong-dimensions' && index === inputs.length - 1) vector.pop();
      return {
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector,
      };
    });
    const tokens = (inputs as string[]).reduce((n, input) => n + countTokens(input), 0);
    const answer = failure === 'no-data' ? { object: 'list', model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } } : { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
    const json = JSON.stringify(answer);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, closed };
    fake.requests.push(recorded);
    for (const resolve of waiters.splice(0)) resolve(recorded);

    if (req.method === 'POST' && path === '/v1/embeddings') return embeddings(req, res, body);
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return openAiError(res, 404, `Invalid URL (${req.method} ${path})`, 'invalid_request_error', null);
    }

    const auth = req.headers.authorization;
    if (!auth) {
      return openAiError(
        res,
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        'invalid_request_error',
        null,
      );
    }
    const key = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? '';
    if (key !== fake.apiKey) {
      return openAiError(
        res,
        401,
        `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    if (body === undefined) {
      return openAiError(
        res,
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
        'invalid_request_error',
        null,
      );
    }
    if (typeof body.model !== 'string' || body.model === '') {
      return openAiError(res, 400, "you must provide a model parameter", 'invalid_request_error', null);
    }
    if (!Array.isArray(body.messages)) {
      return openAiError(res, 400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
    }
    if (body.messages.length === 0) {
      return openAiError(res, 400, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'invalid_request_error', 'empty_array', 'messages');
    }
    for (const [i, message] of body.messages.entries()) {
      if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(message?.role)) {
        return openAiError(res, 400, `Invalid value: '${message?.role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, 'invalid_request_error', 'invalid_value', `messages[${i}].role`);
      }
      if (typeof message.content !== 'string') {
        return openAiError(res, 400, `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${message.content === null ? 'null' : typeof message.content} instead.`, 'invalid_request_error', 'invalid_type', `messages[${i}].content`);
      }
    }

    switch (fake.failure) {
      case 'server-error':
        return openAiError(res, 500, 'The server had an error while processing your request. Sorry about that!', 'server_error', null);
      case 'rate-limit':
        return openAiError(res, 429, 'Rate limit reached for requests. Please try again in 20s.', 'requests', 'rate_limit_exceeded');
      case 'hang':
        return; // never answers; close() destroys the socket
      default:
    }

    const text = typeof fake.reply === 'function' ? fake.reply(body) : fake.reply;
    const id = `chatcmpl-${randomBytes(12).toString('base64url')}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model as string;
    const promptTokens = body.messages.reduce((n: number, m: { content: string }) => n + countTokens(m.content) + 4, 0);
    const usage = { prompt_tokens: promptTokens, completion_tokens: countTokens(text), total_tokens: promptTokens + countTokens(text) };

    if (body.stream !== true) {
      if (fake.failure === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"id":"chatcmpl-abc","object":"chat.completion","choices":[{"index":0,"message":{"role":"assist');
      }
      const completion =
        fake.failure === 'no-choices'
          ? { id, object: 'chat.completion', created, model, usage }
          : {
              id,
              object: 'chat.completion',
              created,
              model,
              system_fingerprint: 'fp_fake',
              choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
              usage,
            };
      const json = JSON.stringify(completion);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      return void res.end(json);
    }

    await stream(res, body, text, { id, created, model, usage });
  }

  /** Answers as a stream of chunks, as the real API does with `stream: true`, failing as `fake.failure` asks. */
  async function stream(
    res: ServerResponse,
    body: any,
    text: string,
    { id, created, model, usage }: { id: string; created: number; model: string; usage: Record<string, number> },
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...extra })}\n\n`;
    const includeUsage = body.stream_options?.include_usage === true;
    const nullUsage = includeUsage ? { usage: null } : {};
    res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], nullUsage));
    const parts = pieces(text);
    for (const [i, part] of parts.entries()) {
      if ((fake.failure === 'cut' || fake.failure === 'stream-error' || fake.failure === 'malformed' || fake.failure === 'stall') && i === fake.cutAfter) break;
      res.write(chunk([{ index: 0, delta: { content: part }, logprobs: null, finish_reason: null }], nullUsage));
      // Each piece its own TCP write, as a real stream arrives.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (fake.failure === 'stall') return; // close() destroys the socket
    if (fake.failure === 'cut') {
      res.socket?.destroy();
      return;
    }
    if (fake.failure === 'malformed') {
      res.write('data: {"id":"chatcmpl-abc","choices":[{"delta":{"content":"oops\n\n');
      return void res.end();
    }
    if (fake.failure === 'stream-error') {
      res.write(`data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } })}\n\n`);
      return void res.end();
    }
    res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], nullUsage));
    if (includeUsage) res.write(chunk([], { usage }));
    res.write('data: [DONE]\n\n');
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
