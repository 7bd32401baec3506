import { Type, type Static } from '@sinclair/typebox';
import { ACTION_CLASS_NAMES, ACTION_CLASSES, ActionClassName } from '../../http/access.js';
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
    path: Type.String({ description: 'The request path with its query (a `token` query parameter removed)' }),
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
export const ApprovalPage = Page(ApprovalSchema);
export const ListApprovalsQuery = Type.Object({ ...PageQuery, status: Type.Optional(ApprovalStatus) });

