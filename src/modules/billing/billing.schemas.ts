import { Type, type Static } from '@sinclair/typebox';
import { Data, List, Pattern } from '../../http/schemas.js';

const Limit = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: `${description}; null means unlimited` });

export const PlanLimitsSchema = Type.Object(
  {
    memoryEntries: Limit('Memory entries stored at once'),
    knowledgeBytes: Limit('Bytes of knowledge-base document text stored at once'),
    vaultTokens: Limit('Vault tokens stored at once'),
    devices: Limit('Remote PCs (AFP devices) registered at once'),
    apiRequestsPerDay: Limit('Authenticated API requests per UTC day'),
  },
  { title: 'PlanLimits' },
);

export const PlanSchema = Type.Object(
  {
    id: Type.String({ description: 'Pass as `planId` to checkout' }),
    name: Type.String(),
    price: Type.Integer({ minimum: 0, description: 'Per interval, in minor units of the currency (cents): 900 is 9.00' }),
    currency: Type.String({ description: 'ISO 4217, lowercase (usd)' }),
    interval: Type.Union([Type.Literal('month'), Type.Literal('year')]),
    limits: PlanLimitsSchema,
    purchasable: Type.Boolean({
      description: 'Whether checkout sells this plan on this server: a paid plan, with payments configured (STRIPE_SECRET_KEY). Otherwise the administrator sets plans (PUT /api/v1/users/{id}/plan)',
    }),
  },
  { title: 'Plan' },
);
/** A plan as GET /billing/plans shows it: the Stripe price id stays on the server. */
export type PublicPlan = Static<typeof PlanSchema>;

export const PlanList = List(PlanSchema);

const Meter = (what: string) =>
  Type.Object(
    {
      used: Type.Integer({ minimum: 0, description: `${what} now` }),
      limit: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description: "The plan's limit; null when nothing limits it (plan limits off on this server, the administrator, or an unlimited plan)",
      }),
    },
    { additionalProperties: false },
  );

export const UsageSchema = Type.Object(
  {
    plan: Type.Object({ id: Type.String(), name: Type.String() }, { description: "The owner's plan (GET /api/v1/billing/plans lists them all)" }),
    limitsApply: Type.Boolean({
      description: 'Whether plan limits apply to this owner: false when the server runs without plan limits, and for the administrator',
    }),
    usage: Type.Object({
      memoryEntries: Meter('Memory entries stored'),
      knowledgeBytes: Meter('Bytes of knowledge-base document text stored'),
      vaultTokens: Meter('Vault tokens stored'),
      devices: Meter('Remote PCs registered'),
      apiRequestsPerDay: Type.Object(
        {
          used: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
            description:
              'Authenticated requests counted today (UTC) by every node of the server (with several nodes, those of the last fraction of a second may be missing; billing routes, this one among them, are not counted); null when requests are not counted at all (limitsApply is false)',
          }),
          limit: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "The plan's daily limit; null when nothing limits it" }),
          resetsAt: Type.String({ format: 'date-time', description: 'When the count starts again: the next UTC midnight' }),
        },
        { additionalProperties: false },
      ),
    }),
  },
  { title: 'Usage' },
);
export type Usage = Static<typeof UsageSchema>;
export const UsageResponse = Data(UsageSchema);

const RedirectUrl = (what: string) =>
  Type.String({
    maxLength: 2000,
    // Not format "uri": Stripe's {CHECKOUT_SESSION_ID} placeholder has braces; the service parses it.
    ...Pattern('^https?://[^\\s]+$', 'the address must start with http:// or https:// and hold no spaces'),
    description: `Where Stripe sends the browser ${what}. Default: a page of this server saying so. \`{CHECKOUT_SESSION_ID}\` is replaced by Stripe`,
  });

export const CheckoutBody = Type.Object(
  {
    planId: Type.String({ minLength: 1, maxLength: 100, description: 'A paid plan of GET /api/v1/billing/plans' }),
    successUrl: Type.Optional(RedirectUrl('after payment')),
    cancelUrl: Type.Optional(RedirectUrl('when the customer leaves checkout')),
  },
  { additionalProperties: false },
);

export const CheckoutSessionSchema = Type.Object(
  {
    url: Type.String({ description: "Stripe's hosted checkout page: open it in a browser" }),
    sessionId: Type.String({ description: 'The Stripe Checkout Session id (cs_…)' }),
  },
  { title: 'CheckoutSession' },
);
export type CheckoutSession = Static<typeof CheckoutSessionSchema>;
export const CheckoutResponse = Data(CheckoutSessionSchema);

export const WebhookReceiptSchema = Type.Object(
  {
    received: Type.Boolean(),
    eventId: Type.String(),
    duplicate: Type.Boolean({ description: 'True when this event id was handled before; nothing was done again' }),
    outcome: Type.Union([Type.Literal('applied'), Type.Literal('ignored')], {
      description: '`applied`: a plan changed; `ignored`: the event needs nothing from Hearth',
    }),
  },
  { title: 'WebhookReceipt' },
);
export type WebhookReceipt = Static<typeof WebhookReceiptSchema>;
export const WebhookResponse = Data(WebhookReceiptSchema);

export const ReturnQuery = Type.Object({
  result: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('cancel')])),
  session_id: Type.Optional(Type.String({ maxLength: 300 })),
});
