import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';
import { MAX_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS } from './gateway.budget.js';
import type { ContextSection } from './gateway.section.js';

/** The most characters of `task` read: a sentence or a paragraph about what the agent is doing. */
export const TASK_MAX_CHARS = 1000;

/** The key of the budget report in `data`; no section may take it. */
export const BUDGET_KEY = 'budget';

export const GatewayContextQuerySchema = Type.Object(
  {
    task: Type.Optional(
      Type.String({
        maxLength: TASK_MAX_CHARS,
        description:
          'What the agent is about to do, in plain words. The memory and knowledge sections then hold what is most relevant to it first ' +
          '(ranked by the same search as GET /memory?q= and the knowledge base), each item with its id. Blank means no task',
      }),
    ),
    maxTokens: Type.Optional(
      Type.Integer({
        minimum: MIN_CONTEXT_TOKENS,
        maximum: MAX_CONTEXT_TOKENS,
        description:
          `A budget for the whole answer, in tokens estimated on its JSON (a quarter token per ASCII character, one per other character), ${MIN_CONTEXT_TOKENS} to ${MAX_CONTEXT_TOKENS}. ` +
          'User, token, persona, identity and preferences are kept whole; memory and knowledge share what is left, best items first; the endpoint list goes last. ' +
          '`budget` in the answer says what was used and which sections were cut. Without it nothing is cut',
      }),
    ),
    omit: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), {
        maxItems: 10,
        description:
          'Sections to send empty, for a client that has them otherwise: `endpoints` (an MCP client\'s tool list is its list of what it may do), `memory`, `knowledge`. ' +
          'Repeat the parameter for several. With maxTokens they are named in `budget.trimmed`',
      }),
    ),
  },
);
export type GatewayContextQuery = Static<typeof GatewayContextQuerySchema>;

const BudgetReportSchema = Type.Object(
  {
    maxTokens: Type.Integer({ description: 'The budget asked for' }),
    usedTokens: Type.Integer({ description: 'Tokens of this whole answer, estimated as maxTokens is' }),
    truncated: Type.Boolean({ description: 'True when a section was cut to fit' }),
    trimmed: Type.Array(Type.String(), { description: 'The sections that were cut to fit; their full content is a request away (GET /memory, /brain/knowledge-base, /tokens/me/capabilities)' }),
  },
  { description: 'Only with maxTokens: how the answer fits its budget' },
);

/**
 * The gateway context, made of its sections' own schemas in their order. Sections shown to
 * every token are required; the others appear only when the token's scopes allow them.
 * Unknown section names still pass through. `budget` follows the sections, present only when a
 * budget was asked for.
 */
export function gatewayContextSchema(sections: ReadonlyArray<Pick<ContextSection, 'name' | 'schema' | 'always'>>) {
  const properties: Record<string, TSchema> = {};
  for (const section of sections) properties[section.name] = section.always ? section.schema : Type.Optional(section.schema);
  properties[BUDGET_KEY] = Type.Optional(BudgetReportSchema);
  return Data(Type.Object(properties, { additionalProperties: true, title: 'GatewayContext' }));
}
