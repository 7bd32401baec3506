import type { ClusterBus } from '../../storage/cluster-bus.js';

/*
 * Changes inside the server: a service says that an owner's records of one kind changed, and
 * whoever keeps something derived from them listens (the MCP hub tells the owner's open sessions
 * to list their resources and prompts again). Unlike the account events of events.bus.ts these
 * reach no client as they are: they carry no id and no data, only whose records of which kind.
 */

/** Every kind of change a service announces, named by the module whose records changed. */
export const CHANGE_TYPES = ['skills.changed', 'personas.changed', 'knowledge.changed'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** One owner's records of one kind changed (created, changed, deleted, attached or detached). */
export interface ChangeEvent {
  type: ChangeType;
  ownerId: string;
}

export type ChangeListener = (event: ChangeEvent) => void;

export interface ChangeBus {
  /** Announces a change, to the listeners of its owner here and on every other node. */
  publish(event: ChangeEvent): void;
  /** Calls `listener` with each later change of this owner only, from any node; answers the way to stop. */
  subscribe(ownerId: string, listener: ChangeListener): () => void;
  /** Stops hearing the other nodes. */
  close(): void;
}

/** What services hold to announce their changes. */
export type ChangePublisher = Pick<ChangeBus, 'publish'>;

/** The cluster bus topic changes travel under between nodes. */
export const CHANGES_TOPIC = 'changes';

const KNOWN = new Set<string>(CHANGE_TYPES);

/**
 * Delivers each change to its owner's listeners in this process, and through `cluster` to the
 * other nodes, whose listeners for that owner hear it there. A listener that throws does not
 * stop the others.
 */
export function createChangeBus(options: { cluster?: Pick<ClusterBus, 'publish' | 'subscribe'> | undefined; onListenerError?: (error: unknown) => void } = {}): ChangeBus {
  const listeners = new Map<string, Set<ChangeListener>>();
  const { cluster } = options;

  function deliver(event: ChangeEvent): void {
    const forOwner = listeners.get(event.ownerId);
    if (!forOwner) return;
    // A copy: a listener may stop listening while it hears the change.
    for (const listener of [...forOwner]) {
      try {
        listener(event);
      } catch (error) {
        options.onListenerError?.(error);
      }
    }
  }

  // `<type> <ownerId>`: a change holds nothing secret, and nothing but whose and what kind.
  const stopHearing = cluster?.subscribe(CHANGES_TOPIC, (message) => {
    const space = message.indexOf(' ');
    if (space <= 0 || space === message.length - 1) return;
    const type = message.slice(0, space);
    if (!KNOWN.has(type)) return;
    deliver({ type: type as ChangeType, ownerId: message.slice(space + 1) });
  });

  return {
    publish(event) {
      deliver(event);
      try {
        cluster?.publish(CHANGES_TOPIC, `${event.type} ${event.ownerId}`);
      } catch (error) {
        // The other nodes' listeners miss this one change; those here heard it above.
        options.onListenerError?.(error);
      }
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
