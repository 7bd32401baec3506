import { newId } from '../../lib/ids.js';
import type { AccountEvent, NewEvent } from './events.schemas.js';

export type EventListener = (event: AccountEvent) => void;

/**
 * Carries what happens in an owner's account to whoever listens for that owner: the console's
 * live stream now; webhooks, and other API nodes (over PostgreSQL LISTEN/NOTIFY), later. A
 * carrier across processes implements the same two calls; the event it carries is plain JSON
 * with its id and time already set, so every node and every webhook sees the same event.
 */
export interface EventsBus {
  /** Announces an event of the owner's; answers the event as delivered (with its id and time). */
  publish(ownerId: string, event: NewEvent): AccountEvent;
  /** Calls `listener` with each later event of this owner only; answers the way to stop. */
  subscribe(ownerId: string, listener: EventListener): () => void;
}

/** Publishes to listeners in this process. A listener that throws does not stop the others. */
export function createInProcessEventsBus(options: { onListenerError?: (error: unknown) => void } = {}): EventsBus {
  const listeners = new Map<string, Set<EventListener>>();
  return {
    publish(ownerId, event) {
      const delivered = { id: newId('evt'), occurredAt: new Date().toISOString(), ...event } as AccountEvent;
      const forOwner = listeners.get(ownerId);
      if (forOwner) {
        // A copy: a listener may unsubscribe (close its stream) while hearing the event.
        for (const listener of [...forOwner]) {
          try {
            listener(delivered);
          } catch (error) {
            options.onListenerError?.(error);
          }
        }
      }
      return delivered;
    },

    subscribe(ownerId, listener) {
      let forOwner = listeners.get(ownerId);
      if (!forOwner) listeners.set(ownerId, (forOwner = new Set()));
      forOwner.add(listener);
      return () => {
        const current = listeners.get(ownerId);
        if (!current) return;
        current.delete(listener);
        // Owners without listeners leave no entry behind.
        if (current.size === 0) listeners.delete(ownerId);
      };
    },
  };
}
