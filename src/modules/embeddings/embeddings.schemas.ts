import { Type, type Static } from '@sinclair/typebox';

/**
 * Which embedder makes the search vectors, and how it is doing: what `GET /api/v1/search/status`
 * will carry as `embedder`. `dimensions` is null until known (the built-in model's once its worker
 * has loaded, an endpoint's from EMBEDDINGS_DIMENSIONS or its first answer).
 */
export const EmbedderSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('builtin'), Type.Literal('openai'), Type.Literal('off')], {
      description: 'builtin: the encoder shipped with Hearth; openai: an OpenAI-compatible endpoint (EMBEDDINGS_BASE_URL); off: search by words only',
    }),
    model: Type.String({ description: 'The model every stored vector of this embedder records' }),
    dimensions: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "The vectors' length, once known" }),
    state: Type.Union([Type.Literal('idle'), Type.Literal('loading'), Type.Literal('ready'), Type.Literal('failed'), Type.Literal('off')], {
      description: 'idle: not started (the built-in worker starts on first need and stops when idle); loading; ready; failed: search uses words only until it recovers; off',
    }),
  },
  { title: 'Embedder' },
);
export type Embedder = Static<typeof EmbedderSchema>;
