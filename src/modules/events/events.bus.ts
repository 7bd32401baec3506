import { newId } from '../../lib/ids.js';
import type { ClusterBus } from '../../storage/cluster-bus.js';
import type { AccountEvent, NewEvent } from './events.schemas.js';

export type EventListener = (event: AccountEvent) => void;
/** Hears every owner's events, with the owner they belong to. */
export type AnyOwnerListener = (ownerId: string, event: AccountEvent) => void;

/**
 * Carries what happens in an owner's account to whoever listens for that owner: the console's
 * live stream (on every node) and webhooks. The event is plain JSON with its id and time already
 * set, so every node and every webhook sees the same event.
 */
export interface EventsBus {
  /** Announces an event of the owner's; answers the event as delivered (with its id and time). */
  publish(ownerId: string, event: NewEvent): AccountEvent;
  /** Calls `listener` with each later event of this owner only; answers the way to stop. */
  subscribe(ownerId: string, listener: EventListener): () => void;
  /**
   * Calls `listener` with each later event of every owner published on this node (webhooks,
   * which serve all owners and store one delivery per event: the node where the event happened
   * stores it, once); answers the way to stop.
   */
  subscribeAll(listener: AnyOwnerListener): () => void;
}

/** The cluster bus topic events travel under between nodes. */
export const EVENTS_TOPIC = 'events';

export interface EventsBusOptions {
  onListenerError?: (error: unknown) => void;
  /**
   * The other API nodes sharing the database: each event published here is sent to them (its
   * owner's listeners there hear it; their `subscribeAll` listeners do not), and theirs are heard
   * here. Without it, the bus is this process's only.
   */
  cluster?: Pick<ClusterBus, 'publish' | 'subscribe'> | undefined;
}

/**
 * Publishes to listeners in this process, and through `cluster` to the owner's listeners on the
 * other nodes. A listener that throws does not stop the others.
 */
export function createEventsBus(options: EventsBusOptions = {}): EventsBus & { close(): void } {
  const listeners = new Map<string, Set<EventListener>>();
  const everyOwner = new Set<AnyOwnerListener>();

  const deliverToOwner = (ownerId: string, delivered: AccountEvent) => {
    const forOwner = listeners.get(ownerId);
    // Copies: a listener may unsubscribe (close its stream) while hearing the event.
    for (const listener of forOwner ? [...forOwner] : []) {
      try {
        listener(delivered);
      } catch (error) {
        options.onListenerError?.(error);
      }
    }
  };

  // Another node's event: only its owner's listeners here (the live streams) hear it.
  const stopHearing = options.cluster?.subscribe(EVENTS_TOPIC, (message) => {
    let parsed: { ownerId?: unknown; event?: { id?: unknown; type?: unknown } } | undefined;
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed?.ownerId !== 'string' || typeof parsed.event?.id !== 'string' || typeof parsed.event.type !== 'string') return;
    deliverToOwner(parsed.ownerId, parsed.event as AccountEvent);
  });

  return {
    publish(ownerId, event) {
      const delivered = { id: newId('evt'), occurredAt: new Date().toISOString(), ...event } as AccountEvent;
      deliverToOwner(ownerId, delivered);
      if (options.cluster) {
        // Events hold ids and names only (never a secret), so they may travel as they are.
        try {
          options.cluster.publish(EVENTS_TOPIC, JSON.stringify({ ownerId, event: delivered }));
        } catch (error) {
          // Too large for one message: the other nodes' streams miss it (their console reloads
          // its lists when the stream reopens); this node's listeners heard it above.
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

    close() {
      stopHearing?.();
    },
  };
}
