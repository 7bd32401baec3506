import type { Scope } from '../../http/access.js';

/*
 * The scopes a token can hold: the vocabulary of tokens, handshakes, the authorization server,
 * discovery and the events that name them, kept in a module of its own below all of them (the
 * events module, which tokens publish to, names scopes too). It imports no other module.
 */

/** Every scope a token can hold, with what it grants (served by GET /api/v1/scopes). */
export const SCOPES = {
  read: 'Read the public profile (GET /identity) and the gateway context, limited to what the other scopes allow',
  professional: 'Read the professional section of the identity (GET /identity/professional)',
  availability: 'Read the availability section of the identity (GET /identity/availability)',
  identity: 'Read and change the identity, preferences and the account (GET /users/me, GET /auth/me, /identity*, /preferences)',
  memory: 'Read, add, change and clear long-term memory entries (/memory*), and search them with GET /search',
  knowledge: 'Read and manage the knowledge base (/brain/knowledge-base*), and search its passages with GET /search',
  chat: 'Chat with the active persona, and list, read and delete its conversations (POST /brain/chat, /brain/conversations*)',
  personas: 'Manage personas and their attachments (/personas*)',
  skills: 'Manage skills (/skills*), and search them with GET /search',
  'services:read':
    "Read services, connectors and OAuth status; call connected services read-only (GET /services/{service}/*; for an RPC-style service, only the methods it declares reads); list and read mail and files",
  'services:write':
    'Execute and proxy service calls, pass through GETs that RPC-style services take as writes, send and trash mail, upload and delete files, create, change and delete connectors, connect and disconnect accounts',
  vault: 'List, store and delete vault tokens and discover APIs (never reveal)',
  devices: 'Use remote PCs through the AFP daemon (/afp/*)',
  marketplace:
    "Browse, publish, install and rate marketplace listings (/marketplace/*); publishing makes the owner's skill or persona content public, installing writes into the owner's skills and personas",
} as const;

/** A scope a token can hold: one of SCOPES. */
export type ScopeName = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

declare module '../../http/access.js' {
  /** The access mechanism names scopes by these keys (see src/http/access.ts). */
  interface ScopeVocabulary extends Record<ScopeName, true> {}
}
