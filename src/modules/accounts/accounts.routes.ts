import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, fromOwnPages, principalOf, sessionBinding, sessionCookieName } from '../../http/access.js';
import { AppError, inRequestPart } from '../../http/errors.js';
import { PASSWORD_ATTEMPTS, type CountedRateLimit } from '../../http/rate-limit.js';
import { IdParams } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import {
  BrowserSessionResponse,
  ChangeEmailBody,
  ChangePasswordBody,
  ListUsersQuery,
  LoginBody,
  LoginResponse,
  LogoutResponse,
  PasswordChangedResponse,
  PasswordResetBody,
  PasswordResetResponse,
  PlanBody,
  RegisterBody,
  RegisterResponse,
  RegistrationStatusResponse,
  UserPage,
  UserResponse,
  UserStatusBody,
} from './accounts.schemas.js';
import type { PasswordResets } from './accounts.resets.js';
import type { AccountsService } from './accounts.service.js';

/** Sign-ups per client address per minute (AUTH_RATE_LIMIT): each creates an account, and the first an administrator. */
const registerLimit: CountedRateLimit = {
  name: 'auth',
  key: 'ip',
  keyPrefix: 'register:',
  max: (config) => config.authRateLimitPerMinute,
  windowMs: 60_000,
  what: 'registrations from this address',
};

/**
 * Reset links tried per client address per minute (AUTH_RATE_LIMIT): a link's secret cannot be
 * guessed, but every try costs a lookup, and a right one a password hash.
 */
const passwordResetLimit: CountedRateLimit = {
  name: 'password-resets',
  key: 'ip',
  max: (config) => config.authRateLimitPerMinute,
  windowMs: 60_000,
  what: 'password reset attempts from this address',
};

export function accountsRoutes(deps: {
  accounts: AccountsService;
  tokens: TokensService;
  passwordResets: Pick<PasswordResets, 'useLink'>;
  publicBaseUrl: string;
}): FastifyPluginAsyncTypebox {
  const { accounts, tokens } = deps;
  const ownOrigin = new URL(deps.publicBaseUrl).origin;
  // Secure wherever the console is served over https; on plain http (a local start) it could not be set.
  const secure = ownOrigin.startsWith('https:') ? '; Secure' : '';
  const cookieName = sessionCookieName(ownOrigin);
  const sessionCookie = (value: string, maxAgeSeconds: number) =>
    `${cookieName}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
  return async (app) => {
    app.post(
      '/api/v1/auth/session',
      {
        // Password checks are counted per address by the attempt limiter, as for login.
        config: { access: access.public(), rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'openBrowserSession',
          summary: "The console's sign-in: a login session kept in an HttpOnly, SameSite=Strict cookie, accepted only from the console's own pages",
          description:
            'The answer carries `sessionBinding`: the page keeps it in its web storage and sends it as `X-Hearth-Session-Binding` with every ' +
            'request. The cookie authenticates a request only with it: on plain http, pages on other ports of the same host can set the cookie, ' +
            "but not write to this origin's storage.",
          tags: ['accounts'],
          body: LoginBody,
          response: { 200: BrowserSessionResponse },
        },
      },
      async (request, reply) => {
        // Another site must not sign the visitor's browser in to an account of its choosing.
        if (!fromOwnPages(request, ownOrigin)) {
          throw new AppError('FORBIDDEN', `Browser sessions are opened from Hearth's own pages (${ownOrigin}); other clients log in with POST /api/v1/auth/login`);
        }
        const session = await accounts.login(request.body, actorOf(request));
        const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - Date.now()) / 1000));
        reply.header('set-cookie', sessionCookie(session.token, maxAge)).header('cache-control', 'no-store');
        return { data: { user: session.user, expiresAt: session.expiresAt, sessionBinding: sessionBinding(session.token) } };
      },
    );

    app.delete(
      '/api/v1/auth/session',
      {
        config: { access: access.anyToken() },
        schema: {
          operationId: 'closeBrowserSession',
          summary: "The console's sign-out: revokes the session of the cookie and clears it",
          tags: ['accounts'],
          response: { 200: LogoutResponse },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (principal.kind !== 'session') {
          throw new AppError('CONFLICT', 'Only a login session is closed here; revoke other tokens with DELETE /api/v1/tokens/{id}');
        }
        await tokens.revoke(principal.ownerId, principal.tokenId, actorOf(request));
        reply.header('set-cookie', sessionCookie('', 0));
        return { data: { success: true, tokenId: principal.tokenId } };
      },
    );

    app.post(
      '/api/v1/auth/register',
      {
        config: { access: access.public(), rateLimit: registerLimit },
        schema: {
          operationId: 'register',
          summary: 'Create an account; the first one is the administrator. Answers the master token once',
          tags: ['accounts'],
          body: RegisterBody,
          response: { 201: RegisterResponse },
        },
      },
      async (request, reply) => {
        const { user, masterToken } = await accounts.register(request.body, actorOf(request));
        return reply.status(201).send({ data: { user, token: masterToken } });
      },
    );

    app.get(
      '/api/v1/auth/registration',
      {
        // A sign-in page asks before anyone has signed in; the answer is two booleans, no secret.
        config: { access: access.public() },
        schema: {
          operationId: 'getRegistrationStatus',
          summary: 'Whether this server accepts new accounts now: lets a sign-in page decide whether to offer "Create account"',
          tags: ['accounts'],
          response: { 200: RegistrationStatusResponse },
        },
      },
      async (_request, reply) => {
        // The first registration changes the answer; nothing may keep the old one.
        reply.header('cache-control', 'no-store');
        return { data: await accounts.registrationStatus() };
      },
    );

    app.post(
      '/api/v1/auth/login',
      {
        // Counted per address by the password attempt limiter (AUTH_RATE_LIMIT), with every other
        // password check: a second count here would only repeat it.
        config: { access: access.public(), rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'login',
          summary: 'Log in with email and password; answers a session token that expires',
          tags: ['accounts'],
          body: LoginBody,
          response: { 200: LoginResponse },
        },
      },
      async (request) => ({ data: await accounts.login(request.body, actorOf(request)) }),
    );

    app.post(
      '/api/v1/auth/logout',
      {
        config: { access: access.anyToken() },
        schema: {
          operationId: 'logout',
          summary: 'Revoke the calling token (a login session, or any token but the master token)',
          tags: ['accounts'],
          response: { 200: LogoutResponse },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        if (principal.kind === 'master') {
          throw new AppError('CONFLICT', 'The master token does not log out; replace it with POST /api/v1/tokens/master/regenerate');
        }
        await tokens.revoke(principal.ownerId, principal.tokenId, actorOf(request));
        return { data: { success: true, tokenId: principal.tokenId } };
      },
    );

    app.post(
      '/api/v1/auth/password',
      {
        // The owner alone (master token or login session): a token given to an app or agent must
        // not take the account over. Password checks are counted by the attempt limiter.
        config: { access: access.owner(), rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'changePassword',
          summary: "Change the account's password: the current one is required; every other login session ends",
          tags: ['accounts'],
          body: ChangePasswordBody,
          response: { 200: PasswordChangedResponse },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const keep = principal.kind === 'session' ? principal.tokenId : undefined;
        const result = await accounts.changePassword(principal.ownerId, request.body, actorOf(request), keep);
        return { data: { success: true, sessionsEnded: result.sessionsEnded } };
      },
    );

    app.post(
      '/api/v1/auth/password-reset',
      {
        // Whoever holds the link: the link's secret is the proof, made by the server's operator.
        config: { access: access.public(), rateLimit: passwordResetLimit },
        schema: {
          operationId: 'resetPassword',
          summary: 'Set a new password with a one-time link made by `hearth reset-password` on the server; every login session ends',
          description:
            'For an owner who forgot the password: the operator runs `hearth reset-password --email <address>` on the server, which prints a ' +
            'link to the console\'s /reset-password page, valid 30 minutes and once. A link never made answers 404; one used, replaced by a ' +
            'newer link or expired answers 409, with `details.reason` `used`, `superseded` or `expired`. A link ends too when the password or ' +
            'the email is changed after it was made (`superseded`); an account the administrator disabled answers 403 `ACCOUNT_DISABLED`, the link unspent.',
          tags: ['accounts'],
          body: PasswordResetBody,
          response: { 200: PasswordResetResponse },
        },
      },
      async (request, reply) => {
        // The answer names the account: no cache may keep it.
        reply.header('cache-control', 'no-store');
        const result = await deps.passwordResets.useLink(request.body.token, request.body.newPassword, actorOf(request));
        return { data: { success: true, email: result.email, sessionsEnded: result.sessionsEnded } };
      },
    );

    app.post(
      '/api/v1/auth/email',
      {
        config: { access: access.owner(), rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'changeEmail',
          summary: 'Change the email the account signs in with; the password is required',
          tags: ['accounts'],
          body: ChangeEmailBody,
          response: { 200: UserResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', accounts.changeEmail(principalOf(request).ownerId, request.body, actorOf(request))) }),
    );

    for (const [url, operationId] of [
      ['/api/v1/auth/me', 'getAuthMe'],
      ['/api/v1/users/me', 'getUsersMe'],
    ] as const) {
      app.get(
        url,
        {
          // Not counted against the daily quota: a client (the console first) must still learn
          // whose account it is to explain a refusal or offer the upgrade.
          config: { access: access.scope('identity'), dailyQuotaExempt: true },
          schema: { operationId, summary: 'The account the calling token belongs to', tags: ['accounts'], response: { 200: UserResponse } },
        },
        async (request) => ({ data: await accounts.getUser(principalOf(request).ownerId) }),
      );
    }

    app.get(
      '/api/v1/users',
      {
        config: { access: access.admin() },
        schema: { operationId: 'listUsers', summary: 'List every account', tags: ['users'], querystring: ListUsersQuery, response: { 200: UserPage } },
      },
      async (request) => {
        const { limit = 50, cursor } = request.query;
        const page = await accounts.listUsers({ limit, cursor });
        return { data: page.users, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/users',
      {
        config: { access: access.admin() },
        schema: {
          operationId: 'createUser',
          summary: 'Create an account (works whatever REGISTRATION says)',
          tags: ['users'],
          body: RegisterBody,
          response: { 201: UserResponse },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await accounts.createUser(request.body, actorOf(request)) }),
    );

    app.put(
      '/api/v1/users/:id/plan',
      {
        config: { access: access.admin() },
        schema: {
          operationId: 'setUserPlan',
          summary: "Change an account's plan",
          tags: ['users'],
          params: IdParams,
          body: PlanBody,
          response: { 200: UserResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', accounts.setPlan(request.params.id, request.body.planId, actorOf(request))) }),
    );

    app.put(
      '/api/v1/users/:id/status',
      {
        config: { access: access.admin() },
        schema: {
          operationId: 'setUserStatus',
          summary: 'Disable an account, or enable it again',
          description:
            'A disabled account cannot sign in (403 ACCOUNT_DISABLED once its password is right), and every one of its tokens and login sessions ' +
            'is refused at once with 403 ACCOUNT_DISABLED; none is revoked, so enabling it again gives back what it had. ' +
            "The administrator's own account cannot be disabled (409 CONFLICT). Setting the state it already has changes nothing.",
          tags: ['users'],
          params: IdParams,
          body: UserStatusBody,
          response: { 200: UserResponse },
        },
      },
      async (request) => ({ data: await accounts.setDisabled(request.params.id, request.body.disabled, actorOf(request)) }),
    );
  };
}
