import { Type, type Static } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';

export const DeleteAccountBody = Type.Object(
  {
    password: Type.String({ minLength: 1, maxLength: 1024, description: "The account's password. Checked under the same attempt limits as login" }),
    confirmEmail: Type.String({
      minLength: 1,
      maxLength: 254,
      description: 'The email the account signs in with, typed again to confirm that this account, and everything in it, is to be deleted for good',
    }),
  },
  { additionalProperties: false },
);

export const AccountDeletedSchema = Type.Object(
  {
    deleted: Type.Literal(true),
    userId: Type.String({ description: 'The id the account had. Nothing on this server refers to it any more' }),
    rows: Type.Integer({ minimum: 0, description: "How many of the account's records were erased, in every table" }),
    files: Type.Integer({ minimum: 0, description: "How many of the account's files (export archives) were removed from this server's disk" }),
    providers: Type.Array(
      Type.Object({
        provider: Type.String({ description: 'A connected account (OAuth), disconnected first' }),
        revoked: Type.Boolean({ description: "Whether the provider confirmed the grant is revoked; if not, remove Hearth's access in that account's security settings" }),
      }),
    ),
  },
  { title: 'AccountDeleted' },
);
export type AccountDeleted = Static<typeof AccountDeletedSchema>;
export const AccountDeletedResponse = Data(AccountDeletedSchema);
