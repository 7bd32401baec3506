import type { Config, OAuthProviderConfig } from '../../config.js';

/**
 * The OAuth providers Hearth can connect, described as data: where the consent screen, the
 * token and revocation endpoints are, which scopes are asked for and which extra parameters
 * the authorization request carries. The service runs the same flow for each; a provider is
 * added here (Microsoft: Outlook mail and OneDrive) without touching the flow.
 */
export interface OAuthProviderDefinition {
  id: string;
  /** Human name for messages and the callback page. */
  label: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Absent when the provider has no revocation endpoint. */
  revokeUrl: string | undefined;
  /** Asked for on every authorization, space-separated in the request. */
  scopes: readonly string[];
  /** Added to the authorization request (offline access, forced consent). */
  authorizeParams: Record<string, string>;
  /** The client credentials; unset means the provider answers 503 PROVIDER_NOT_CONFIGURED. */
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The issuers a token response's ID token may name; the account is read from it. */
  idTokenIssuers: readonly string[];
  /** Where the account's address is read when the token answer names none. */
  profile?: { url: string; emailField: string };
}

/** Google's real addresses, by the origin each one lives on. */
export const GOOGLE_ORIGINS = {
  accounts: 'https://accounts.google.com',
  oauth2: 'https://oauth2.googleapis.com',
  gmail: 'https://gmail.googleapis.com',
  drive: 'https://www.googleapis.com',
} as const;

/**
 * Google scopes Hearth asks for:
 * - gmail.modify: read, send and move messages to Trash (never delete them for good);
 * - drive.file: only files Hearth created or the user opened with it, a non-sensitive scope;
 * - calendar: the calendars and their events, for the catalogue's calendar methods (calendarList needs more than calendar.events);
 * - openid email: the ID token names the connected account.
 */
export const GOOGLE_SCOPES = {
  gmailModify: 'https://www.googleapis.com/auth/gmail.modify',
  driveFile: 'https://www.googleapis.com/auth/drive.file',
  calendar: 'https://www.googleapis.com/auth/calendar',
  openid: 'openid',
  email: 'email',
} as const;

/** Every Google address keeps its path; an override (a local fake) swaps only the origin. */
export function googleOrigin(config: OAuthProviderConfig, which: keyof typeof GOOGLE_ORIGINS): string {
  return config.endpointOverride ?? GOOGLE_ORIGINS[which];
}

function google(config: OAuthProviderConfig): OAuthProviderDefinition {
  return {
    id: 'google',
    label: 'Google',
    authorizeUrl: `${googleOrigin(config, 'accounts')}/o/oauth2/v2/auth`,
    tokenUrl: `${googleOrigin(config, 'oauth2')}/token`,
    revokeUrl: `${googleOrigin(config, 'oauth2')}/revoke`,
    scopes: [GOOGLE_SCOPES.openid, GOOGLE_SCOPES.email, GOOGLE_SCOPES.gmailModify, GOOGLE_SCOPES.driveFile, GOOGLE_SCOPES.calendar],
    // offline: a refresh token; consent: Google issues a refresh token on every connection,
    // also when the account had connected before.
    authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    idTokenIssuers: ['https://accounts.google.com', 'accounts.google.com'],
    // Granular consent may leave out `email`; the Gmail profile names the mailbox then.
    profile: { url: `${googleOrigin(config, 'gmail')}/gmail/v1/users/me/profile`, emailField: 'emailAddress' },
  };
}

export type OAuthProviderRegistry = ReadonlyMap<string, OAuthProviderDefinition>;

export function createProviderRegistry(config: Pick<Config, 'google'>): OAuthProviderRegistry {
  const providers = [google(config.google)];
  return new Map(providers.map((provider) => [provider.id, provider]));
}

export function isConfigured(provider: OAuthProviderDefinition): boolean {
  return Boolean(provider.clientId && provider.clientSecret);
}
