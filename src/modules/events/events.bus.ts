import { newId } from '../../lib/ids.js';
import type { AccountEvent, NewEvent } from './events.schemas.js';

export type EventListener = (event: AccountEvent) => void;
/** Hears every owner's events, with the owner they belong to. */
export type AnyOwnerListener = (ownerId: string, event: AccountEvent) => void;

/**
 * Carries what happens in an owner's account to whoever listens for that owner: the console's
 * live stream and webhooks now; other API nodes (over PostgreSQL LISTEN/NOTIFY), later. A
 * carrier across processes implements the same two calls; the event it carries is plain JSON
 * with its id and time already set, so every node and every webhook sees the same event.
 */
export interface EventsBus {
  /** Announces an event of the owner's; answers the event as delivered (with its id and time). */
  publish(ownerId: string, event: NewEvent): AccountEvent;
  /** Calls `listener` with each later event of this owner only; answers the way to stop. */
  subscribe(ownerId: string, listener: EventListener): () => void;
  /**
   * Calls `listener` with each later event of every owner (webhooks, which serve all owners);
   * answers the way to stop. A carrier across nodes may hand it the same event on several
   * nodes: a listener that acts on it must do so once per event id.
   */
  subscribeAll(listener: AnyOwnerListener): () => void;
}

/** Publishes to listeners in this process. A listener that throws does not stop the others. */
export function createInProcessEventsBus(options: { onListenerError?: (error: unknown) => void } = {}): EventsBus {
  const listeners = new Map<string, Set<EventListener>>();
  const everyOwner = new Set<AnyOwnerListener>();
  return {
    publish(ownerId, event) {
      const delivered = { id: newId('evt'), occurredAt: new Date().toISOString(), ...event } as AccountEvent;
      const forOwner = listeners.get(ownerId);
      // Copies: a listener may unsubscribe (close its stream) while hearing the event.
      for (const listener of forOwner ? [...forOwner] : []) {
        try {
          listener(delivered);
        } catch (error) {
          options.onListenerError?.(error);
        }
      }
      for (const listener of [...everyOwner]) {
        try {
          listener(ownerId, delivered);
        } catch (error) {
          options.onListenerError?.(error);
        }
      }
      return delivered;
    },

    subscribeAll(listener) {
      everyOwner.add(listener);
      return () => {
        everyOwner.delete(listener);
      };
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
