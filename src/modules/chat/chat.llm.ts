import { upstreamMessage } from '../../http/upstream-message.js';
import { AppError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';
import type { ChatMessage } from './chat.prompt.js';
import type { ChatUsage } from './chat.schemas.js';

/**
 * A client of an OpenAI-compatible chat-completions endpoint (OpenAI itself, or a self-hosted
 * server such as Ollama, vLLM, llama.cpp or LM Studio): `POST {baseUrl}/chat/completions`.
 * Every failure of the upstream (unreachable, timed out, a non-2xx answer, a body that is not
 * the documented shape, a stream that stops early) is a 502 UPSTREAM_ERROR that says what
 * happened; the configured API key never appears in a message.
 */

export interface LlmSettings {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

/** The token counts the endpoint reports, passed on to the client as they are. */
export type LlmUsage = ChatUsage;

export interface LlmCompletion {
  content: string;
  /** The model that answered, as the endpoint reports it (else the configured one). */
  model: string;
  usage?: LlmUsage | undefined;
}

export interface LlmStream {
  /** The reply's text, piece by piece; throws UPSTREAM_ERROR if the stream fails. */
  deltas: AsyncIterable<string>;
  /** Known once `deltas` is exhausted. */
  final(): { model: string; usage?: LlmUsage | undefined };
}

function toUsage(raw: unknown): LlmUsage | undefined {
  const u = raw as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } | null | undefined;
  if (!u || typeof u !== 'object') return undefined;
  const prompt = Number(u.prompt_tokens);
  const completion = Number(u.completion_tokens);
  if (!Number.isFinite(prompt) || !Number.isFinite(completion)) return undefined;
  const total = Number(u.total_tokens);
  return { promptTokens: prompt, completionTokens: completion, totalTokens: Number.isFinite(total) ? total : prompt + completion };
}

interface CompletionBody {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>;
  usage?: unknown;
}

interface ChunkBody {
  model?: unknown;
  error?: unknown;
  choices?: Array<{ delta?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }>;
  usage?: unknown;
}

export function createLlmClient(deps: { outbound: Pick<OutboundClient, 'open'>; settings: LlmSettings }) {
  const { outbound, settings } = deps;
  const url = `${settings.baseUrl}/chat/completions`;
  const host = new URL(url).host;
  const fail = (what: string, cause?: unknown) =>
    new AppError('UPSTREAM_ERROR', `The language model at ${host} ${what}`, cause === undefined ? {} : { cause });

  /** A failure while the body arrives (the outbound client's time limit, size cap, or a lost connection). */
  function bodyFailure(error: unknown): AppError {
    const reason = error instanceof Error ? error.message : '';
    if (/did not answer in time/.test(reason)) return fail(`did not finish the reply within ${settings.timeoutMs} ms (LLM_TIMEOUT_MS)`, error);
    if (/answered more than/.test(reason)) return fail('sent a reply larger than this server accepts (OUTBOUND_MAX_BYTES)', error);
    return fail('broke off the reply (the connection was lost)', error);
  }

  function headers(stream: boolean): Record<string, string> {
    const out: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (settings.apiKey) out.authorization = `Bearer ${settings.apiKey}`;
    return out;
  }

  /** Opens the request; answers the stream of a 2xx answer, or throws with the upstream's reason. */
  async function send(messages: ChatMessage[], stream: boolean, signal?: AbortSignal) {
    const body: Record<string, unknown> = { model: settings.model, messages, stream };
    // Usage arrives in a last chunk with empty choices (OpenAI's stream_options.include_usage).
    if (stream) body.stream_options = { include_usage: true };
    let response;
    try {
      response = await outbound.open({
        method: 'POST',
        url,
        headers: headers(stream),
        body: JSON.stringify(body),
        timeoutMs: settings.timeoutMs,
        followRedirects: false,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      const reason = error instanceof AppError ? error.message : '';
      if (/did not answer in time/.test(reason)) throw fail(`did not answer within ${settings.timeoutMs} ms (LLM_TIMEOUT_MS)`, error);
      const code = /\(([A-Z_]+)\)$/.exec(reason)?.[1];
      throw fail(`could not be reached${code ? ` (${code})` : ''}`, error);
    }
    if (response.status < 200 || response.status > 299) {
      let raw = '';
      try {
        const parts: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body) {
          parts.push(chunk);
          size += chunk.length;
          if (size > 64 * 1024) break;
        }
        raw = Buffer.concat(parts).toString('utf8');
      } catch {
        // the reason is lost; the status still tells
      }
      const reason = upstreamMessage(raw);
      const hint =
        response.status === 401 || response.status === 403
          ? ' Check LLM_API_KEY.'
          : response.status === 404
            ? ' Check LLM_BASE_URL (it should end where /chat/completions begins, e.g. https://api.openai.com/v1) and LLM_MODEL.'
            : '';
      const said = reason ? `: ${reason}${/[.!?\u2026]$/.test(reason) ? '' : '.'}` : '.';
      throw new AppError('UPSTREAM_ERROR', `The language model at ${host} answered ${response.status}${said}${hint}`, {
        details: { upstreamStatus: response.status },
      });
    }
    return response;
  }

  async function readAll(body: AsyncIterable<Buffer>): Promise<string> {
    const parts: Buffer[] = [];
    try {
      for await (const chunk of body) parts.push(chunk);
    } catch (error) {
      throw bodyFailure(error);
    }
    return Buffer.concat(parts).toString('utf8');
  }

  function parseCompletion(raw: string): LlmCompletion {
    let parsed: CompletionBody;
    try {
      parsed = JSON.parse(raw) as CompletionBody;
    } catch (error) {
      throw fail('answered something that is not JSON', error);
    }
    const message = Array.isArray(parsed?.choices) ? parsed.choices[0]?.message : undefined;
    const content = typeof message?.content === 'string' ? message.content : typeof message?.refusal === 'string' ? message.refusal : undefined;
    if (content === undefined) throw fail('answered without a reply (no choices[0].message.content)');
    return { content, model: typeof parsed.model === 'string' && parsed.model ? parsed.model : settings.model, usage: toUsage(parsed.usage) };
  }

  return {
    async complete(messages: ChatMessage[], signal?: AbortSignal): Promise<LlmCompletion> {
      const response = await send(messages, false, signal);
      return parseCompletion(await readAll(response.body));
    },

    /**
     * Asks for a streamed reply (server-sent events of `chat.completion.chunk` objects, ended by
     * `data: [DONE]`). An endpoint that ignores `stream` and answers one JSON completion is
     * served too, as a single piece.
     */
    async stream(messages: ChatMessage[], signal?: AbortSignal): Promise<LlmStream> {
      const response = await send(messages, true, signal);
      let model = settings.model;
      let usage: LlmUsage | undefined;
      const contentType = response.headers['content-type'] ?? '';

      if (!contentType.includes('text/event-stream') && contentType.includes('json')) {
        const completion = parseCompletion(await readAll(response.body));
        model = completion.model;
        usage = completion.usage;
        return {
          deltas: (async function* () {
            if (completion.content) yield completion.content;
          })(),
          final: () => ({ model, usage }),
        };
      }

      async function* deltas(): AsyncIterable<string> {
        const decoder = new TextDecoder('utf-8');
        let buffer = '';
        let data: string[] = [];
        let finished = false;
        let done = false;

        function dispatch(): string | undefined {
          if (data.length === 0) return undefined;
          const payload = data.join('\n');
          data = [];
          if (payload.trim() === '[DONE]') {
            done = true;
            return undefined;
          }
          let chunk: ChunkBody;
          try {
            chunk = JSON.parse(payload) as ChunkBody;
          } catch (error) {
            throw fail('sent a stream event that is not JSON', error);
          }
          if (chunk?.error) throw fail(`reported an error in the stream: ${upstreamMessage(JSON.stringify(chunk))}`);
          if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
          usage = toUsage(chunk.usage) ?? usage;
          const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
          if (choice?.finish_reason) finished = true;
          const text = typeof choice?.delta?.content === 'string' ? choice.delta.content : typeof choice?.delta?.refusal === 'string' ? choice.delta.refusal : '';
          return text || undefined;
        }

        /** Feeds lines of the event stream (WHATWG server-sent events); answers the texts of complete events. */
        function* lines(text: string): Generator<string> {
          buffer += text;
          for (;;) {
            const match = /\r\n|\r|\n/.exec(buffer);
            if (!match) return;
            // A lone \r at the end of the buffer may be the first half of \r\n: wait for more.
            if (match[0] === '\r' && match.index === buffer.length - 1) return;
            const line = buffer.slice(0, match.index);
            buffer = buffer.slice(match.index + match[0].length);
            if (line === '') {
              const piece = dispatch();
              if (piece) yield piece;
              if (done) return;
            } else if (line.startsWith('data:')) {
              data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
            }
            // comments (":") and the fields event, id and retry carry nothing chat needs
          }
        }

        try {
          for await (const chunk of response.body) {
            yield* lines(decoder.decode(chunk, { stream: true }));
            if (done) return;
          }
          yield* lines(`${decoder.decode()}\n\n`);
        } catch (error) {
          if (error instanceof AppError && error.message.startsWith('The language model')) throw error;
          throw bodyFailure(error);
        }
        if (!done && !finished) throw fail('ended the stream before the reply was complete (no [DONE])');
      }

      return { deltas: deltas(), final: () => ({ model, usage }) };
    },
  };
}

export type LlmClient = ReturnType<typeof createLlmClient>;
