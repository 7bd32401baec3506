import { Type, type Static } from '@sinclair/typebox';
import { ACTION_CLASS_NAMES, ACTION_CLASSES, ActionClassName } from '../permissions/permissions.actions.js';
import { Data, IsoDateTime, NullableDateTime, Page, PageQuery } from '../../http/schemas.js';

export const PolicyRule = Type.Union([Type.Literal('allow'), Type.Literal('ask'), Type.Literal('deny')], {
  description: '`allow`: runs at once; `ask`: held for the owner (202); `deny`: refused (403 POLICY_DENIED)',
});
export type PolicyRuleValue = Static<typeof PolicyRule>;

/** Every action class with its rule; in a PUT, a class left out is `allow`. */
const Rules = (optional: boolean) =>
  Type.Object(
    Object.fromEntries(
      ACTION_CLASS_NAMES.map((name) => [name, optional ? Type.Optional({ ...PolicyRule, description: ACTION_CLASSES[name] }) : { ...PolicyRule, description: ACTION_CLASSES[name] }]),
    ),
    { additionalProperties: false, description: 'The rule for each action class (devices.exec, mail.send, …): allow, ask or deny' },
  );

export const PolicySchema = Type.Object(
  {
    tokenId: Type.String(),
    rules: Rules(false),
    updatedAt: NullableDateTime,
    reachable: Type.Array(ActionClassName, {
      description: "The action classes this token's scopes let it meet; a rule for any other cannot apply to it (the console shows these)",
    }),
  },
  { title: 'TokenPolicy' },
);
export type Policy = Static<typeof PolicySchema>;
export const PolicyResponse = Data(PolicySchema);
export const PolicyBody = Type.Object(
  { rules: Rules(true) },
  { additionalProperties: false, description: 'The whole policy: each class left out is `allow`' },
);
export type PolicyRules = Static<typeof PolicyBody>['rules'];

export const ApprovalStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('approved'), Type.Literal('denied'), Type.Literal('expired'), Type.Literal('executed'), Type.Literal('failed')],
  {
    description:
      '`pending` until decided or expired; `approved` while it runs; `executed` when the request answered 2xx, `failed` when it answered an error (the token revoked, a scope taken away, the route refusing) or the server stopped while running it (it is then not run again)',
  },
);

export const ApprovalSchema = Type.Object(
  {
    id: Type.String(),
    status: ApprovalStatus,
    actionClass: ActionClassName,
    tokenId: Type.String({ description: 'The token that made the request, and as which it runs once approved' }),
    tokenName: Type.String(),
    method: Type.String(),
    path: Type.String({ description: 'The request path with its query exactly as received and as it runs once approved (a `token` query parameter removed)' }),
    operationId: Type.Union([Type.String(), Type.Null()]),
    description: Type.String({ description: 'What the request does, in words' }),
    createdAt: IsoDateTime,
    expiresAt: IsoDateTime,
    decidedAt: NullableDateTime,
    decidedBy: Type.Union([Type.String(), Type.Null()], { description: 'The owner token that decided' }),
    executedAt: NullableDateTime,
    resultStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status the request answered once run' }),
    result: Type.Union(
      [
        Type.Object({
          status: Type.Integer(),
          body: Type.Unknown({ description: 'What the request answered: its JSON, or its text' }),
        }),
        Type.Null(),
      ],
      { description: 'Shown only to the token that made the request, for 24 hours after it ran' },
    ),
  },
  { title: 'Approval' },
);
export type Approval = Static<typeof ApprovalSchema>;
export const ApprovalResponse = Data(ApprovalSchema);

export const HeldFieldSchema = Type.Object(
  {
    name: Type.String({ description: 'The field in the JSON body: `to`, `params.query.page`, `headers["x-trace"]`, `list[0]`' }),
    type: Type.Union(['string', 'number', 'boolean', 'null', 'object', 'array'].map((t) => Type.Literal(t)), {
      description: 'The JSON type; `object` and `array` appear only empty (their members are fields of their own)',
    }),
    value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
      description: 'The value: whole, or its first characters when `truncated`; null for a secret, null, and empty objects and arrays',
    }),
    truncated: Type.Boolean({ description: 'The value is a preview: the first characters of a longer string (`length` says how long)' }),
    length: Type.Union([Type.Integer(), Type.Null()], { description: 'Characters of a string (members of an empty object or array: 0)' }),
    bytes: Type.Union([Type.Integer(), Type.Null()], { description: "File content: the file's size in bytes once decoded (base64 or UTF-8)" }),
    secret: Type.Boolean({ description: 'A secret (a vault token, a password): never shown, only its length' }),
  },
  { title: 'HeldRequestField' },
);
export type HeldField = Static<typeof HeldFieldSchema>;

export const HeldRequestSchema = Type.Object(
  {
    method: Type.String(),
    path: Type.String({ description: 'The path and query exactly as the request will run (a `token` query parameter removed)' }),
    bodyStatus: Type.Union([Type.Literal('held'), Type.Literal('none'), Type.Literal('dropped')], {
      description: '`held`: every field is listed; `none`: the request has no body; `dropped`: decided or expired, its body (if it had one) is no longer kept',
    }),
    fields: Type.Array(HeldFieldSchema, { description: 'Every field of the JSON body, flattened, in the order sent' }),
    omittedFields: Type.Integer({ description: 'Fields left out past the first 1,000 (0 nearly always)' }),
  },
  { title: 'HeldRequest', description: 'The exact request that runs if approved' },
);
export type HeldRequestView = Static<typeof HeldRequestSchema>;

export const ApprovalDetailSchema = Type.Object(
  {
    ...ApprovalSchema.properties,
    request: Type.Union([HeldRequestSchema, Type.Null()], {
      description: "The exact held request, for the owner who decides (null for the token that made it, which sent it): method, path, every body field",
    }),
  },
  { title: 'ApprovalDetail' },
);
export type ApprovalDetail = Static<typeof ApprovalDetailSchema>;
export const ApprovalDetailResponse = Data(ApprovalDetailSchema);
export const ApprovalPage = Page(ApprovalSchema);
export const ListApprovalsQuery = Type.Object({ ...PageQuery, status: Type.Optional(ApprovalStatus) });

