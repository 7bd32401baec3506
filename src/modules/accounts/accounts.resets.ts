import { randomBytes } from 'node:crypto';
import { AppError } from '../../http/errors.js';
import { hashToken } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { AccountsRepo } from './accounts.repo.js';
import type { PasswordResetsRepo } from './accounts.resets.repo.js';
import type { AccountsService } from './accounts.service.js';

/**
 * How long a password reset link works. Long enough to copy it from the server's terminal into a
 * browser, short enough that a link left in a scrollback or a chat is soon worth nothing.
 */
export const RESET_LINK_TTL_MS = 30 * 60_000;

/** The console's page that takes a reset link (web/src/pages/reset-password.tsx). */
export const RESET_PAGE_PATH = '/reset-password';

/** Why a link no longer works, as the API's `details.reason` says it. */
export type EndedLinkReason = 'unknown' | 'used' | 'superseded' | 'expired';

/** Who acts when the server's operator runs `hearth reset-password`: no token, no address. */
export const COMMAND_LINE_ACTOR: Omit<AuditActor, 'ownerId'> = { tokenId: null, ip: null, userAgent: 'hearth reset-password (command line)' };

/** No account signs in with the email given to the command line. */
export class UnknownAccountError extends Error {
  constructor(readonly email: string) {
    super(`No account signs in with ${email}. Check the address (the one the owner signs in with), or list the accounts with GET /api/v1/users as the administrator`);
    this.name = 'UnknownAccountError';
  }
}

function endedLink(reason: EndedLinkReason, when?: string): AppError {
  const again = 'ask whoever runs this Hearth server for a new link (`hearth reset-password --email <your email>` on the server)';
  switch (reason) {
    case 'unknown':
      return new AppError('NOT_FOUND', `This password reset link is not known: it may be cut short or mistyped. Open the whole link, or ${again}`, {
        details: { reason },
      });
    case 'used':
      return new AppError('CONFLICT', `This password reset link was used already${when ? ` (at ${when})` : ''}: each link sets a password once. Sign in with that password, or ${again}`, {
        details: { reason },
      });
    case 'superseded':
      return new AppError('CONFLICT', `A newer password reset link was made for this account${when ? ` (at ${when})` : ''}, which replaces this one: use the newest link, or ${again}`, {
        details: { reason },
      });
    case 'expired':
      return new AppError('CONFLICT', `This password reset link expired${when ? ` at ${when}` : ''}: links work for ${RESET_LINK_TTL_MS / 60_000} minutes. ${again[0]!.toUpperCase()}${again.slice(1)}`, {
        details: { reason },
      });
  }
}

export interface PasswordResetsOptions {
  repo: PasswordResetsRepo;
  users: Pick<AccountsRepo, 'findByEmail' | 'findById'>;
  accounts: Pick<AccountsService, 'resetPassword' | 'normaliseEmail'>;
  audit: Pick<AuditService, 'record'>;
  /** Where the console is (PUBLIC_BASE_URL): the link opens its reset page. */
  publicBaseUrl: string;
}

/**
 * A way back into an account whose password is forgotten, on a server whose operator is at hand:
 * `hearth reset-password` on the server's command line makes a one-time link (or sets the
 * password itself), and the console's reset page spends the link on a new password. The link's
 * secret is shown once and stored as its SHA-256 only; it works once, for RESET_LINK_TTL_MS, and
 * only while it is the account's newest link.
 */
export function createPasswordResets(deps: PasswordResetsOptions) {
  const { repo, users, accounts, audit } = deps;

  async function accountOf(email: string) {
    const normalised = accounts.normaliseEmail(email);
    const row = await users.findByEmail(normalised);
    if (!row) throw new UnknownAccountError(normalised);
    return row;
  }

  return {
    /** Makes a new link for the account that signs in with `email`; the account's earlier links stop working. */
    async issueLink(email: string, actor: Omit<AuditActor, 'ownerId'>): Promise<{ link: string; expiresAt: string; email: string; userId: string }> {
      const row = await accountOf(email);
      // 256 random bits: nothing to guess, so a fast hash is enough at rest (as for tokens).
      const secret = randomBytes(32).toString('base64url');
      const now = Date.now();
      const expiresAt = isoIn(RESET_LINK_TTL_MS, now);
      const id = newId('pwr');
      await repo.replace({ id, owner_id: row.id, secret_hash: hashToken(secret), created_at: new Date(now).toISOString(), expires_at: expiresAt, used_at: null, superseded_at: null });
      await audit.record({ ...actor, ownerId: row.id }, {
        action: 'auth.password_reset_link',
        outcome: 'success',
        targetType: 'user',
        targetId: row.id,
        details: { linkId: id, expiresAt },
      });
      const link = new URL(RESET_PAGE_PATH, `${deps.publicBaseUrl}/`);
      link.searchParams.set('token', secret);
      return { link: link.href, expiresAt, email: row.email, userId: row.id };
    },

    /**
     * Spends a link on a new password: 404 for a link never made (or long gone), 409 for one
     * used, replaced by a newer one or expired (`details.reason` says which). Every session of
     * the account ends. Checked before the new password is hashed, so a made-up link costs one
     * indexed read.
     */
    async useLink(secret: string, newPassword: string, actor: AuditActor): Promise<{ email: string; sessionsEnded: number }> {
      const link = await repo.findBySecretHash(hashToken(secret));
      if (!link) throw endedLink('unknown');
      const now = isoNow();
      const reason: EndedLinkReason | undefined = link.used_at ? 'used' : link.superseded_at ? 'superseded' : link.expires_at <= now ? 'expired' : undefined;
      // A disabled account keeps everything it had, its password and sessions included, until
      // the administrator enables it: a link changes nothing meanwhile, and stays unspent.
      if (reason === undefined && (await users.findById(link.owner_id))?.disabled_at) {
        throw new AppError('ACCOUNT_DISABLED', "The server's administrator disabled this account: its password cannot be reset until the administrator enables it again");
      }
      // Spent only by the one request that claims it, however many race with the same link.
      if (reason === undefined && (await repo.claim(link.id, now))) {
        const row = await users.findById(link.owner_id);
        if (!row) throw endedLink('unknown');
        const { sessionsEnded } = await accounts.resetPassword(row.id, newPassword, { ...actor, ownerId: row.id }, 'link');
        return { email: row.email, sessionsEnded };
      }
      const ended = reason ?? 'used';
      await audit.record({ ...actor, ownerId: link.owner_id }, {
        action: 'auth.password_reset',
        outcome: 'failure',
        targetType: 'user',
        targetId: link.owner_id,
        details: { via: 'link', linkId: link.id, reason: ended },
      });
      const when = ended === 'used' ? link.used_at : ended === 'superseded' ? link.superseded_at : ended === 'expired' ? link.expires_at : null;
      throw endedLink(ended, when ?? undefined);
    },

    /** Sets the password of the account that signs in with `email` directly (the command line's `--password-stdin`). */
    async setPassword(email: string, newPassword: string, actor: Omit<AuditActor, 'ownerId'>): Promise<{ email: string; sessionsEnded: number }> {
      const row = await accountOf(email);
      const { sessionsEnded } = await accounts.resetPassword(row.id, newPassword, { ...actor, ownerId: row.id }, 'command line');
      return { email: row.email, sessionsEnded };
    },
  };
}

export type PasswordResets = ReturnType<typeof createPasswordResets>;
