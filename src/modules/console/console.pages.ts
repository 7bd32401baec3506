/**
 * The console's pages: each is an address the server answers with the console itself, so a
 * reload or a shared link opens the right page. The console (web/) builds its navigation from
 * this list (plain data, and a filter over it), so the two cannot disagree. A page marked
 * `adminOnly` is listed only for the server's administrator (the API refuses everyone else
 * what it shows anyway).
 */
export const CONSOLE_PAGES = [
  { path: '/', title: 'Home' },
  { path: '/agents', title: 'Agents and tokens' },
  { path: '/connect', title: 'Connect an AI client' },
  { path: '/memory', title: 'Memory' },
  { path: '/knowledge', title: 'Knowledge base' },
  { path: '/chat', title: 'Chat' },
  { path: '/personas', title: 'Personas' },
  { path: '/skills', title: 'Skills' },
  { path: '/profile', title: 'Identity and preferences' },
  { path: '/vault', title: 'Vault' },
  { path: '/connections', title: 'Connections' },
  { path: '/devices', title: 'Devices' },
  { path: '/audit', title: 'Audit log' },
  { path: '/webhooks', title: 'Webhooks' },
  { path: '/data', title: 'Export and import' },
  { path: '/plan', title: 'Plan and usage' },
  { path: '/users', title: 'Users', adminOnly: true },
] as const;

/** The pages the navigation lists for an account of this role. */
export function pagesFor(role: 'admin' | 'user'): ReadonlyArray<(typeof CONSOLE_PAGES)[number]> {
  return CONSOLE_PAGES.filter((page) => role === 'admin' || !('adminOnly' in page && page.adminOnly));
}

export type ConsolePath = (typeof CONSOLE_PAGES)[number]['path'];

/**
 * Pages the console shows whoever opens them, signed in or not, and never lists in its
 * navigation: the reset page a password reset link opens (`hearth reset-password`).
 */
export const SIGNED_OUT_PAGES = [{ path: '/reset-password', title: 'Set a new password' }] as const;

export type SignedOutPath = (typeof SIGNED_OUT_PAGES)[number]['path'];
