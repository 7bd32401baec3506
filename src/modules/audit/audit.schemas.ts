import { Type, type Static } from '@sinclair/typebox';
import { IsoDateTime, Page, PageQuery } from '../../http/schemas.js';

export const AuditEntrySchema = Type.Object(
  {
    id: Type.String(),
    action: Type.String({ description: 'What happened, e.g. auth.login, token.create, handshake.approve, vault.reveal' }),
    outcome: Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('denied')]),
    tokenId: Type.Union([Type.String(), Type.Null()], { description: 'The acting token (never its secret)' }),
    ip: Type.Union([Type.String(), Type.Null()]),
    userAgent: Type.Union([Type.String(), Type.Null()]),
    targetType: Type.Union([Type.String(), Type.Null()]),
    targetId: Type.Union([Type.String(), Type.Null()]),
    details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    createdAt: IsoDateTime,
  },
  { title: 'AuditEntry' },
);
export type AuditEntry = Static<typeof AuditEntrySchema>;

export const AuditListQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(
    Type.String({ maxLength: 100, description: 'Exact action (token.create) or a family (token.*)' }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries before this time' })),
  tokenId: Type.Optional(Type.String({ maxLength: 100, description: 'Only what this token did (its id, as in tokenId)' })),
});
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditPageSchema = Page(AuditEntrySchema);
