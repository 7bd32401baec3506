// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
/**
 * The event-stream reading of the LLM client, on byte streams cut in awkward places. The
 * route tests cover the client against the fake server; these cover framings a real server
 * may produce that the fake does not (CRLF, comments, pieces split mid-character).
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.js';
import type { OutboundRequest, OutboundStream } from '../../http/outbound.js';
import { createLlmClient } from './chat.llm.js';

function clientAnswering(status: number, contentType: string, chunks: Array<string | Buffer>, sent: OutboundRequest[] = []) {
  return createLlmClient({
    outbound: {
      async open(req: OutboundRequest): Promise<OutboundStream> {
        sent.push(req);
        return {
          status,
          headers: { 'content-type': contentType },
          url: req.url,
          body: (async function* () {
            for (const chunk of chunks) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'utf8');
          })(),
        };
      },
    },
    settings: { baseUrl: 'https://llm.example/v1', apiKey: 'sk-secret-key-123456', model: 'm1', timeoutMs: 1000 },
  });
}

const event = (content: string, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'm1-2024', choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}`;

async function collect(stream: { deltas: AsyncIterable<string> }): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of stream.deltas) out.push(piece);
  return out;
}

describe('LLM client: streams', () => {
  it('reads CRLF framing, comments, and a UTF-8 character split across chunks', async () => {
    const whole = Buffer.from(`: keep-alive\r\n\r\n${event('Grüß')}\r\n\r\n${event(' dich')}\r\n\r\ndata: [DONE]\r\n\r\n`, 'utf8');
    const cut = whole.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    const sent: OutboundRequest[] = [];
    const client = clientAnswering(200, 'text/event-stream', [whole.subarray(0, cut), whole.subarray(cut)], sent);
    const stream = await client.stream([{ role: 'user', content: 'hi' }]);
    expect((await collect(stream)).join('')).toBe('Grüß dich');
    expect(stream.final().model).toBe('m1-2024');
    expect(sent[0]!.url).toBe('https://llm.example/v1/chat/completions');
    expect(sent[0]!.headers!.authorization).toBe('Bearer sk-secret-key-123456');
    expect(JSON.parse(sent[0]!.body as string)).toEqual({
      model: 'm1',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reads events split in the middle of a line, and the usage chunk', async () => {
    const text = `${event('Hel')}\n\n${event('lo')}\n\ndata: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\ndata: [DONE]\n\n`;
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    const stream = await clientAnswering(200, 'text/event-stream; charset=utf-8', chunks).stream([{ role: 'user', content: 'hi' }]);
    expect(await collect(stream)).toEqual(['Hel', 'lo']);
    expect(stream.final().usage).toEqual({ promptTokens: 5, completionTokens: 2, totalTokens: 7 });
  });

  it('accepts a stream that ends after finish_reason without [DONE]', async () => {
    const finish = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}`;
    const stream = await clientAnswering(200, 'text/event-stream', [`${event('Done')}\n\n${finish}\n\n`]).stream([{ role: 'user', content: 'hi' }]);
    expect(await collect(stream)).toEqual(['Done']);
  });

  it('fails a stream that stops before it is complete', async () => {
    const stream = await clientAnswering(200, 'text/event-stream', [`${event('Half')}\n\n`]).stream([{ role: 'user', content: 'hi' }]);
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('UPSTREAM_ERROR');
    expect((error as AppError).message).toMatch(/before the reply was complete/);
  });

  it('serves an endpoint that ignores stream and answers one JSON completion', async () => {
    const completion = { model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'All at once' }, finish_reason: 'stop' }] };
    const stream = await clientAnswering(200, 'application/json', [JSON.stringify(completion)]).stream([{ role: 'user', content: 'hi' }]);
    expect(await collect(stream)).toEqual(['All at once']);
  });
});

describe('LLM client: errors', () => {
  it("reports the upstream's status and message, with key-like text masked", async () => {
    const body = JSON.stringify({ error: { message: 'Incorrect API key provided: sk-secr**********3456.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    const error = await clientAnswering(401, 'application/json', [body])
      .complete([{ role: 'user', content: 'hi' }])
      .then(
        () => {
          throw new Error('expected a failure');
        },
        (e: unknown) => e as AppError,
      );
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe('The language model at llm.example answered 401: Incorrect API key provided: [redacted]. Check LLM_API_KEY.');
    expect(error.details).toEqual({ upstreamStatus: 401 });
  });

  it('does not quote an HTML error page', async () => {
    const error = await clientAnswering(502, 'text/html', ['<html><body>Bad gateway</body></html>'])
      .complete([{ role: 'user', content: 'hi' }])
      .then(
        () => {
          throw new Error('expected a failure');
        },
        (e: unknown) => e as AppError,
      );
    expect(error.message).toBe('The language model at llm.example answered 502: an HTML page.');
  });
});
