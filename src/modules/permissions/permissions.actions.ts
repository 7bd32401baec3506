import { Type } from '@sinclair/typebox';
import type { ActionClass } from '../../http/access.js';

/*
 * The action classes a token's policy may govern: the vocabulary of approvals, of the routes that
 * declare a class and of the events that name one, below all of them (approvals publish events,
 * and the events module names action classes). It imports no other module.
 */

/**
 * The kinds of action an owner may put behind a policy (allow, ask or deny) for each token that
 * is not the owner's own. A route names its class next to its access rule (`config.actionClass`);
 * one hook (modules/approvals/approvals.hook.ts) enforces the policy on every such route.
 */
export const ACTION_CLASSES = {
  'devices.exec': 'Run a command on a remote PC',
  'devices.write': 'Write a file or make a folder on a remote PC',
  'devices.delete': 'Delete a file or folder on a remote PC',
  'mail.send': 'Send mail from the connected mailbox',
  'mail.trash': 'Move a message of the connected mailbox to the trash',
  'files.upload': 'Upload a file to the connected file storage',
  'files.delete': 'Delete a file of the connected file storage',
  'services.write':
    "Call a service in a way that may change something (execute, proxy and pass-through calls other than reads: any method but GET or HEAD, and for RPC-style services any method not declared a read), create, change or delete connectors, and disconnect a connected account",
  'memory.write': 'Add or change memory entries',
  'memory.delete': 'Delete memory entries',
  'knowledge.write': 'Add, upload, change or overwrite (upsert) knowledge-base documents',
  'knowledge.delete': 'Delete knowledge-base documents',
  'identity.write': 'Change the identity or the preferences',
  'personas.write': 'Create, change, activate or deactivate personas, and attach or detach their documents and skills',
  'personas.delete': 'Delete personas',
  'skills.write': 'Create, change, activate or deactivate skills, and attach or detach their documents',
  'skills.delete': 'Delete skills',
  'chat.delete': 'Delete chat conversations',
  'marketplace.write': "Publish, change or delete marketplace listings (publishing makes the owner's content public), rate them, and install them into the owner's skills and personas",
  'vault.write': 'Store or delete vault tokens',
} as const;

/** An action class: one of ACTION_CLASSES. */
export type ActionClassKey = keyof typeof ACTION_CLASSES;
export const ACTION_CLASS_NAMES = Object.keys(ACTION_CLASSES) as ActionClass[];

declare module '../../http/access.js' {
  /** The access mechanism and the approvals hook name action classes by these keys (see src/http/access.ts). */
  interface ActionClassVocabulary extends Record<ActionClassKey, true> {}
}
/** An action class's name, as schemas carry it. */
export const ActionClassName = Type.Union(ACTION_CLASS_NAMES.map((name) => Type.Literal(name)), { description: 'An action class (`devices.exec`)' });
