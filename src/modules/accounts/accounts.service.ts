import { AppError, InputError, notFound } from '../../http/errors.js';
import { clientKey } from '../../http/rate-limit.js';
import { hashPassword, verifyPassword } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { Executor } from '../../storage/columns.js';
import type { AccountsTables, UsersTable } from './accounts.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import type { PlansService } from '../plans/plans.service.js';
import type { IssuedToken, MasterProof, TokensService } from '../tokens/tokens.service.js';
import type { PasswordAttemptLimiter } from './accounts.attempts.js';
import type { AccountsRepo } from './accounts.repo.js';
import { accountDisabled, createAccountStatus } from './accounts.status.js';
import type { RegistrationStatus, User } from './accounts.schemas.js';

export function toUser(row: UsersTable): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    planId: row.plan_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabled: row.disabled_at !== null,
    disabledAt: row.disabled_at,
  };
}

/** An account's move from one plan to another. */
export interface PlanChange {
  from: string;
  to: string;
}

export interface AccountsServiceOptions {
  db: Executor<AccountsTables>;
  repo: AccountsRepo;
  tokens: TokensService;
  audit: AuditService;
  registration: 'first-user' | 'open';
  passwordHashCost: number;
  /** Every password check reserves an attempt here first (per address, per account). */
  attempts: PasswordAttemptLimiter;
  /** Which plans exist and which one new accounts get. */
  plans: Pick<PlansService, 'defaultPlanId' | 'isKnown' | 'ids'>;
  /** Told when failed passwords start slowing an account's sign-ins down (`login.failed`). */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/**
 * The password check of sign-in and of every action that asks for the password again, with
 * the dummy hash that makes an unknown email cost what a known one does.
 */
function createPasswordCheck(deps: AccountsServiceOptions) {
  const { audit } = deps;
  // Unknown emails still cost one scrypt, so response time does not reveal which emails exist.
  let dummyHash: Promise<string> | undefined;
  const getDummyHash = () => (dummyHash ??= hashPassword('not a password', deps.passwordHashCost));

  /**
   * Checks a password under the attempt limiter. The attempt is reserved (and counted) before
   * the account is read or the password hashed, so parallel requests cannot all pass before one
   * is counted (accounts.attempts.ts says how, across nodes too); a refusal (429) is
   * audited and thrown. An unknown account (no row) costs the same scrypt against a dummy hash and
   * is counted under its email exactly like a known one.
   */
  async function checkPassword(
    email: string,
    findRow: () => Promise<UsersTable | undefined>,
    password: string,
    actor: AuditActor,
    action: string,
  ): Promise<{ row: UsersTable | undefined; ok: boolean }> {
    let attempt;
    try {
      attempt = await deps.attempts.reserve(email, clientKey(actor.ip ?? undefined));
    } catch (error) {
      const row = await findRow();
      await audit.record({ ...actor, ownerId: row?.id ?? null }, { action, outcome: 'denied', details: { reason: 'too many failed attempts' } });
      throw error;
    }
    const row = await findRow();
    const ok = await verifyPassword(password, row?.password_hash ?? (await getDummyHash()));
    if (row && ok) {
      await attempt.succeeded();
      return { row, ok: true };
    }
    await audit.record(
      { ...actor, ownerId: row?.id ?? null },
      { action, outcome: 'failure', details: row ? { reason: 'wrong password', consecutiveFailures: attempt.failures } : { reason: 'unknown email' } },
    );
    // Once per streak, when the slowdown starts: the owner hears that someone is guessing.
    if (row && attempt.startsSlowdown) {
      deps.events?.publish(row.id, {
        type: 'login.failed',
        data: { userId: row.id, consecutiveFailures: attempt.failures, slowdown: attempt.startsSlowdown, ip: actor.ip ?? null },
      });
    }
    return { row, ok: false };
  }
  return checkPassword;
}

export function createAccountsService(deps: AccountsServiceOptions) {
  const { db, repo, tokens, audit, plans } = deps;
  const normaliseEmail = (email: string) => email.trim().toLowerCase();

  const checkPassword = createPasswordCheck(deps);

  async function createAccount(
    input: { email: string; password: string; name?: string | undefined },
    mode: 'register' | 'admin',
  ): Promise<{ user: User; masterToken: string }> {
    const email = normaliseEmail(input.email);
    const passwordHash = await hashPassword(input.password, deps.passwordHashCost);

    const attempt = async (role: UsersTable['role']) =>
      db.transaction().execute(async (trx) => {
        const existing = await repo.count(trx);
        if (mode === 'register' && existing > 0 && deps.registration === 'first-user') {
          throw new AppError('REGISTRATION_CLOSED', 'Registration is closed on this server: the first account exists. Ask the administrator for an account');
        }
        const now = isoNow();
        const row: UsersTable = {
          id: newId('usr'),
          email,
          name: input.name?.trim() || null,
          password_hash: passwordHash,
          role: existing === 0 ? 'admin' : role,
          plan_id: plans.defaultPlanId,
          created_at: now,
          updated_at: now,
          disabled_at: null,
        };
        await repo.insert(row, trx);
        const master = await tokens.createMaster(row.id, trx);
        return { user: toUser(row), masterToken: master.secret };
      });

    try {
      return await attempt('user');
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (await repo.findByEmail(email)) {
        throw new AppError('CONFLICT', `An account with the email ${email} already exists`);
      }
      // Two first registrations raced for the administrator seat; this one lost it.
      if (mode === 'register' && deps.registration === 'first-user') {
        throw new AppError('REGISTRATION_CLOSED', 'Registration is closed on this server: the first account exists');
      }
      return attempt('user');
    }
  }

  /**
   * Whether `password` is the account's password: a second proof for the most sensitive owner
   * actions. Goes through the same attempt limiter as logins (same account, same address), so it
   * is no way round it; throws 429 RATE_LIMITED when the caller must wait.
   */
  async function confirmPassword(userId: string, password: string, actor: AuditActor): Promise<boolean> {
    const row = await repo.findById(userId);
    if (!row) return false;
    const result = await checkPassword(row.email, async () => row, password, { ...actor, ownerId: row.id }, 'auth.confirm_password');
    return result.ok;
  }

  /**
   * Stores a new password (hashed) and ends every login session of the account but
   * `keepTokenId`'s, since one of them may be why the password is being replaced. Answers how
   * many sessions ended. Expired sessions already let no one in and are neither revoked again
   * nor counted; API tokens, agents' tokens and the master token stay.
   */
  async function storeNewPassword(ownerId: string, newPassword: string, actor: AuditActor, keepTokenId: string | undefined): Promise<number> {
    const passwordHash = await hashPassword(newPassword, deps.passwordHashCost);
    const at = isoNow();
    await repo.update(ownerId, { password_hash: passwordHash, updated_at: at });
    // A reset link made before no longer stands for the owner's wish (the one being spent now is
    // marked used already): left in a chat or a scrollback, it would undo this change.
    await repo.endResetLinks(ownerId, at);
    let sessionsEnded = 0;
    const now = Date.now();
    // Page by page (ids descending, so revoking does not move the cursor).
    let cursor: string | undefined;
    do {
      const page = await tokens.list(ownerId, { kind: 'session', limit: 100, cursor });
      for (const session of page.tokens) {
        if (session.id === keepTokenId || (session.expiresAt !== null && Date.parse(session.expiresAt) <= now)) continue;
        await tokens.revoke(ownerId, session.id, { ...actor, ownerId });
        sessionsEnded += 1;
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return sessionsEnded;
  }

  // Told after an account's plan changed, once its `plan.changed` event is published (billing's
  // request counter forgets the old plan).
  const planChangeListeners: Array<(userId: string, change: PlanChange) => void> = [];
  const status = createAccountStatus({ repo, tokens, audit });

  return {
    /** Disables an account or enables it again (see accounts.status.ts); answers the account. */
    async setDisabled(id: string, disabled: boolean, actor: AuditActor): Promise<User> {
      return toUser(await status.setDisabled(id, disabled, actor));
    },
    isDisabled: status.isDisabled,

    /**
     * Whether POST /auth/register would be accepted now, for a sign-in page deciding whether to
     * offer it: always with REGISTRATION=open, only before the first account with first-user.
     */
    async registrationStatus(): Promise<RegistrationStatus> {
      const hasAccounts = await repo.any();
      return { open: deps.registration === 'open' || !hasAccounts, hasAccounts };
    },

    async register(input: { email: string; password: string; name?: string | undefined }, actor: AuditActor) {
      const result = await createAccount(input, 'register');
      await audit.record({ ...actor, ownerId: result.user.id }, {
        action: 'auth.register',
        outcome: 'success',
        targetType: 'user',
        targetId: result.user.id,
        details: { role: result.user.role },
      });
      return result;
    },

    async createUser(input: { email: string; password: string; name?: string | undefined }, actor: AuditActor): Promise<User> {
      const { user } = await createAccount(input, 'admin');
      await audit.record(actor, { action: 'user.create', outcome: 'success', targetType: 'user', targetId: user.id, details: { email: user.email } });
      await audit.record({ ...actor, ownerId: user.id }, {
        action: 'auth.register',
        outcome: 'success',
        targetType: 'user',
        targetId: user.id,
        details: { createdByAdministrator: true },
      });
      return user;
    },

    async login(input: { email: string; password: string }, actor: AuditActor) {
      const email = normaliseEmail(input.email);
      const { row, ok } = await checkPassword(email, () => repo.findByEmail(email), input.password, actor, 'auth.login');
      if (!row || !ok) throw new AppError('UNAUTHORIZED', 'Wrong email or password');
      const userActor = { ...actor, ownerId: row.id };
      if (row.disabled_at !== null) {
        await audit.record(userActor, { action: 'auth.login', outcome: 'denied', details: { reason: 'account disabled' } });
        throw accountDisabled();
      }
      const session = await tokens.createSession(row.id, actor);
      // A password change that stored its hash after the check above may have listed the
      // sessions to end before this one existed: a login with the old password would then keep
      // its session. Read again once the session is stored: either the change lists it, or the
      // hash here is the new one and the session is ended at once.
      if ((await repo.findById(row.id))?.password_hash !== row.password_hash) {
        await tokens.revoke(row.id, session.record.id, userActor);
        throw new AppError('UNAUTHORIZED', 'Wrong email or password');
      }
      await audit.record({ ...userActor, tokenId: session.record.id }, { action: 'auth.login', outcome: 'success', targetType: 'token', targetId: session.record.id });
      return { user: toUser(row), token: session.secret, expiresAt: session.record.expiresAt! };
    },

    /**
     * Signs the owner in on a page that is not a login (the OAuth consent page): the same
     * checks and attempt limits as a login, without a session. Answers the account's id, or
     * null for a wrong email or password; throws 429 RATE_LIMITED when the caller must wait,
     * 403 ACCOUNT_DISABLED for the right password of a disabled account.
     */
    async verifyCredentials(input: { email: string; password: string }, actor: AuditActor, action: string): Promise<string | null> {
      const email = normaliseEmail(input.email);
      const { row, ok } = await checkPassword(email, () => repo.findByEmail(email), input.password, actor, action);
      if (!row || !ok) return null;
      if (row.disabled_at !== null) {
        await audit.record({ ...actor, ownerId: row.id }, { action, outcome: 'denied', details: { reason: 'account disabled' } });
        throw accountDisabled();
      }
      return row.id;
    },

    /**
     * The account with this email, for a request addressed to it by email (the consent page's
     * "send to my console"). The caller must answer the same whether or not there is one.
     */
    async findIdByEmail(email: string): Promise<string | undefined> {
      return (await repo.findByEmail(normaliseEmail(email)))?.id;
    },

    /** How an email is compared: what `findIdByEmail` looks up, so callers can key by the same value. */
    normaliseEmail,

    /**
     * The account a public handshake is addressed to: the given user, or the administrator.
     * Answers only whether it exists, since the public endpoint must say nothing more of it.
     */
    async findHandshakeTarget(userId: string | undefined): Promise<string | undefined> {
      return repo.findAddressableId(userId);
    },

    confirmPassword,

    /**
     * Replaces the master token (MasterTokenReplacer): with the master token itself, or from a
     * login session that confirms the account password (how an owner who lost the master token
     * gets a new one). The master token alone reveals vault secrets, so a stolen session must
     * not be enough to mint one.
     */
    async regenerateMaster(ownerId: string, actor: AuditActor, proof: MasterProof): Promise<IssuedToken> {
      // The password check goes through the attempt limiter (429 when this address or account
      // must wait), shared with logins, so this route is no way round the login slowdown.
      const proven =
        proof.callerKind === 'master' ||
        (proof.callerKind === 'session' && proof.password !== undefined && (await confirmPassword(ownerId, proof.password, actor)));
      if (!proven) {
        await audit.record(actor, {
          action: 'token.master_regenerate',
          outcome: 'denied',
          details: { reason: proof.password === undefined ? 'no password' : 'wrong password' },
        });
        throw new AppError(
          'FORBIDDEN',
          proof.password === undefined
            ? 'Replacing the master token from a login session needs the account password: send { "password": "…" }'
            : 'The password is wrong; the master token was not replaced',
        );
      }
      return tokens.rotateMaster(ownerId, actor);
    },

    /**
     * Changes the account's password: the current one is checked under the login attempt limits
     * (a wrong one answers what login answers and counts as a failed login), the new one follows
     * the registration rules (the route's schema). Every other login session ends, since one of
     * them may be why the password is being changed; the caller's session (`keepTokenId`) stays.
     */
    async changePassword(
      ownerId: string,
      input: { currentPassword: string; newPassword: string },
      actor: AuditActor,
      keepTokenId: string | undefined,
    ): Promise<{ sessionsEnded: number }> {
      const row = await repo.findById(ownerId);
      if (!row) throw notFound('User', ownerId);
      const { ok } = await checkPassword(row.email, async () => row, input.currentPassword, { ...actor, ownerId }, 'auth.password_change');
      if (!ok) throw new AppError('UNAUTHORIZED', 'The current password is wrong; the password was not changed');
      const sessionsEnded = await storeNewPassword(ownerId, input.newPassword, actor, keepTokenId);
      await audit.record({ ...actor, ownerId }, {
        action: 'auth.password_changed',
        outcome: 'success',
        targetType: 'user',
        targetId: ownerId,
        details: { sessionsEnded },
      });
      return { sessionsEnded };
    },

    /**
     * Sets a new password without the current one, for an owner who forgot it: the password
     * reset link (accounts.resets.ts) or the server's command line, which prove who asks in
     * their own way. Every login session ends, as after a change; `via` is audited.
     */
    async resetPassword(ownerId: string, newPassword: string, actor: AuditActor, via: 'link' | 'command line'): Promise<{ sessionsEnded: number }> {
      const row = await repo.findById(ownerId);
      if (!row) throw notFound('User', ownerId);
      const sessionsEnded = await storeNewPassword(ownerId, newPassword, { ...actor, ownerId }, undefined);
      // Where the link was opened, the forgotten password was likely being tried: the new one signs in at once.
      if (actor.ip) await deps.attempts.forgive(row.email, clientKey(actor.ip));
      await audit.record({ ...actor, ownerId }, {
        action: 'auth.password_reset',
        outcome: 'success',
        targetType: 'user',
        targetId: ownerId,
        details: { via, sessionsEnded },
      });
      return { sessionsEnded };
    },

    /** Changes the email the account signs in with; the password proves it is the owner asking. */
    async changeEmail(ownerId: string, input: { password: string; newEmail: string }, actor: AuditActor): Promise<User> {
      const row = await repo.findById(ownerId);
      if (!row) throw notFound('User', ownerId);
      const { ok } = await checkPassword(row.email, async () => row, input.password, { ...actor, ownerId }, 'auth.email_change');
      if (!ok) throw new AppError('UNAUTHORIZED', 'The password is wrong; the email was not changed');
      const email = normaliseEmail(input.newEmail);
      const taken = async () => {
        const other = await repo.findByEmail(email);
        return other !== undefined && other.id !== ownerId;
      };
      const conflict = () => new InputError('newEmail', 'is taken by another account', `Another account already signs in with ${email}; choose a different email`, 'CONFLICT');
      if (await taken()) throw conflict();
      const updatedAt = isoNow();
      try {
        await repo.update(ownerId, { email, updated_at: updatedAt });
        // A reset link went to the old address: it must not set a password for the new one.
        await repo.endResetLinks(ownerId, updatedAt);
      } catch (error) {
        // Another account took the address between the check and the write.
        if (isUniqueViolation(error)) throw conflict();
        throw error;
      }
      await audit.record({ ...actor, ownerId }, {
        action: 'auth.email_changed',
        outcome: 'success',
        targetType: 'user',
        targetId: ownerId,
        details: { from: row.email, to: email },
      });
      return toUser({ ...row, email, updated_at: updatedAt });
    },

    /** Registers `listener` to be told after an account's plan changed; services above accounts use it. */
    onPlanChange(listener: (userId: string, change: PlanChange) => void): void {
      planChangeListeners.push(listener);
    },

    async getUser(id: string): Promise<User> {
      const row = await repo.findById(id);
      if (!row) throw notFound('User', id);
      return toUser(row);
    },

    async listUsers(query: { limit: number; cursor?: string | undefined }): Promise<{ users: User[]; nextCursor: string | null }> {
      const rows = await repo.list({ limit: query.limit + 1, cursor: query.cursor });
      const page = rows.slice(0, query.limit);
      return { users: page.map(toUser), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
    },

    /**
     * Moves an account to a plan: the administrator's PUT /users/{id}/plan, or billing once
     * Stripe confirms a payment (with its own audit action, inside its transaction).
     */
    async setPlan(
      id: string,
      planId: string,
      actor: AuditActor,
      options: {
        trx?: Executor;
        auditAction?: string;
        auditDetails?: Record<string, unknown>;
        /** With `trx`: where the change's announcement waits, for the caller to run once `trx` committed. */
        afterCommit?: Array<() => void>;
      } = {},
    ): Promise<User> {
      if (!plans.isKnown(planId)) {
        const known = plans.ids().join(', ');
        throw new InputError('planId', `must be one of ${known}`, `Unknown plan ${planId}; known plans: ${known}`);
      }
      const { trx } = options;
      const row = await repo.findById(id, trx);
      if (!row) throw notFound('User', id);
      const updatedAt = isoNow();
      await repo.update(id, { plan_id: planId, updated_at: updatedAt }, trx);
      await audit.record(
        actor,
        {
          action: options.auditAction ?? 'user.plan_change',
          outcome: 'success',
          targetType: 'user',
          targetId: id,
          details: { from: row.plan_id, to: planId, ...options.auditDetails },
        },
        trx,
      );
      if (row.plan_id !== planId) {
        const change = { from: row.plan_id, to: planId };
        const announce = () => {
          // The account's own event, to the console's streams and the owner's webhooks.
          deps.events?.publish(id, { type: 'plan.changed', data: { planId: change.to, previousPlanId: change.from } });
          for (const listener of planChangeListeners) listener(id, change);
        };
        // Inside a caller's transaction, listeners hear of it once that committed.
        if (options.afterCommit) options.afterCommit.push(announce);
        else announce();
      }
      return toUser({ ...row, plan_id: planId, updated_at: updatedAt });
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
