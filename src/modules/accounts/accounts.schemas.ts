import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery } from '../../http/schemas.js';

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    role: Type.Union([Type.Literal('admin'), Type.Literal('user')], { description: 'The first account is the administrator' }),
    planId: Type.String(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    disabled: Type.Boolean({
      description: 'Whether the administrator disabled the account: it cannot sign in, and none of its tokens works, until enabled again',
    }),
    disabledAt: Type.Union([IsoDateTime, Type.Null()], { description: 'When the administrator disabled the account; null while it is enabled' }),
  },
  { title: 'User' },
);
export type User = Static<typeof UserSchema>;

const Email = Type.String({ format: 'email', maxLength: 254, description: 'The email address the account signs in with' });
const Password = Type.String({ minLength: 8, maxLength: 1024, description: 'At least 8 characters' });

export const RegisterBody = Type.Object(
  { email: Email, password: Password, name: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, description: 'The email address the account was registered with' }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: "The account's password" }),
  },
  { additionalProperties: false },
);

export const RegisterResponse = Data(
  Type.Object(
    {
      user: UserSchema,
      token: Type.String({ description: 'The master token. Shown this once: store it now' }),
    },
    { title: 'Registration' },
  ),
);

export const LoginResponse = Data(
  Type.Object(
    {
      user: UserSchema,
      token: Type.String({ description: 'A session token with every scope and every owner right except vault reveal' }),
      expiresAt: IsoDateTime,
    },
    { title: 'Session' },
  ),
);

export const BrowserSessionResponse = Data(
  Type.Object(
    {
      user: UserSchema,
      expiresAt: IsoDateTime,
      sessionBinding: Type.String({
        description:
          "The page's proof that it opened this session: keep it in the origin's web storage and send it as X-Hearth-Session-Binding " +
          'with every request. The cookie is accepted only with it, because pages on other ports of the same host can set the cookie. ' +
          'It grants nothing without the cookie',
      }),
    },
    { title: 'BrowserSession', description: 'The session itself travels only in the HttpOnly cookie, never in the body' },
  ),
);

export const RegistrationStatusSchema = Type.Object(
  {
    open: Type.Boolean({ description: 'Whether POST /api/v1/auth/register would be accepted now (REGISTRATION=open, or first-user before the first account)' }),
    hasAccounts: Type.Boolean({ description: 'Whether any account exists on this server (the first one becomes the administrator)' }),
  },
  { title: 'RegistrationStatus' },
);
export type RegistrationStatus = Static<typeof RegistrationStatusSchema>;
export const RegistrationStatusResponse = Data(RegistrationStatusSchema);

export const LogoutResponse = Data(Type.Object({ success: Type.Boolean(), tokenId: Type.String() }, { title: 'LoggedOut' }));

export const UserResponse = Data(UserSchema);
export const UserPage = Page(UserSchema);
export const ListUsersQuery = Type.Object(PageQuery);
export const PlanBody = Type.Object(
  { planId: Type.String({ minLength: 1, maxLength: 100, description: 'The plan to move the account to: an id of GET /api/v1/billing/plans' }) },
  { additionalProperties: false },
);

export const UserStatusBody = Type.Object(
  {
    disabled: Type.Boolean({
      description:
        'true disables the account: its sign-in is refused with 403 ACCOUNT_DISABLED and every one of its tokens and sessions stops working at once. ' +
        'false enables it again: the tokens and sessions it had, unless revoked or expired meanwhile, work again',
    }),
  },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024, description: "The account's password now. Checked under the same attempt limits as login" }),
    newPassword: Type.String({ minLength: 8, maxLength: 1024, description: 'The new password: at least 8 characters, as at registration' }),
  },
  { additionalProperties: false },
);

export const PasswordChangedResponse = Data(
  Type.Object(
    {
      success: Type.Boolean(),
      sessionsEnded: Type.Integer({ minimum: 0, description: "How many of the account's other login sessions were ended; the calling session stays" }),
    },
    { title: 'PasswordChanged' },
  ),
);

export const ChangeEmailBody = Type.Object(
  {
    password: Type.String({ minLength: 1, maxLength: 1024, description: "The account's password. Checked under the same attempt limits as login" }),
    newEmail: Email,
  },
  { additionalProperties: false },
);

export const PasswordResetBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The secret of the password reset link (its `token` parameter), which `hearth reset-password` printed on the server',
    }),
    newPassword: Type.String({ minLength: 8, maxLength: 1024, description: 'The new password: at least 8 characters, as at registration' }),
  },
  { additionalProperties: false },
);

export const PasswordResetResponse = Data(
  Type.Object(
    {
      success: Type.Boolean(),
      email: Type.String({ description: 'The email the account signs in with, now with the new password' }),
      sessionsEnded: Type.Integer({ minimum: 0, description: "How many of the account's login sessions were ended (every one)" }),
    },
    { title: 'PasswordReset' },
  ),
);
