import { createContext, useContext } from 'react';
import type { Schemas } from './api/client';

export interface Session {
  user: Schemas['User'];
  /** Forget the session in the page (after sign-out, or when the API answered 401). */
  signedOut(): void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

/** The signed-in owner; pages are shown only inside a session. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession is used outside the signed-in console');
  return session;
}
