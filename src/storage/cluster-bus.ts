import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { MAX_NOTIFY_PAYLOAD, type PgListener } from './pg-listener.js';

/**
 * Small messages between the API nodes that share one database: a node tells all the others
 * (`publish`) or one of them (`sendTo`) something happened, under a topic.
 *
 * Each cross-node mechanism (live events, device links, token and rate state) talks to this
 * interface only, so that another carrier (Redis, NATS) could serve it later. With PostgreSQL
 * it rides on LISTEN/NOTIFY; with SQLite there is one node and no other to tell.
 *
 * Messages are small (under 7,800 bytes with their topic) and delivered at most once, in the
 * order one node sent them, to nodes whose listening connection is up. A node that must not
 * miss one (a request waiting for its answer) bounds the wait itself; a large payload goes
 * into a table and the message carries its key.
 */
export interface ClusterBus {
  /** This node's id, unique for the life of the process. */
  readonly nodeId: string;
  /** False while messages from other nodes cannot arrive (PostgreSQL's listening connection is down). */
  readonly connected: boolean;
  /** 'up' when messages can arrive (again), 'down' when they stopped. */
  readonly events: EventEmitter;
  /** Tells every other node. Not delivered to this node. */
  publish(topic: string, message: string): void;
  /** Tells one node (this one included: delivered on a later tick). */
  sendTo(nodeId: string, topic: string, message: string): void;
  /** Calls `handler` for each message under `topic`; returns the unsubscribe function. */
  subscribe(topic: string, handler: (message: string, fromNodeId: string) => void): () => void;
  close(): Promise<void>;
}

/** Topic names: short words, so that a topic never contains the separator. */
const TOPIC_NAME = /^[a-z][a-z0-9_.-]{0,39}$/;
/** Node ids: 12 hex characters, usable in a channel name. */
export const newNodeId = (): string => randomBytes(6).toString('hex');

function checkTopic(topic: string): void {
  if (!TOPIC_NAME.test(topic)) throw new Error(`Invalid cluster bus topic: ${topic}`);
}

/** Delivery of one message to this node's subscribers. */
function createSubscribers() {
  const byTopic = new Map<string, Set<(message: string, from: string) => void>>();
  return {
    subscribe(topic: string, handler: (message: string, from: string) => void): () => void {
      checkTopic(topic);
      let set = byTopic.get(topic);
      if (!set) byTopic.set(topic, (set = new Set()));
      set.add(handler);
      return () => {
        set.delete(handler);
      };
    },
    deliver(topic: string, message: string, from: string): void {
      const set = byTopic.get(topic);
      if (!set) return;
      for (const handler of set) {
        try {
          handler(message, from);
        } catch {
          // One subscriber's failure is its own; the others still hear the message.
        }
      }
    },
  };
}

/** One node alone (SQLite, or a single PostgreSQL node's tests): nobody else to tell. */
export function createLocalBus(nodeId = newNodeId()): ClusterBus {
  const subscribers = createSubscribers();
  return {
    nodeId,
    connected: true,
    events: new EventEmitter(),
    publish(topic) {
      checkTopic(topic);
    },
    sendTo(target, topic, message) {
      checkTopic(topic);
      if (target === nodeId) setImmediate(() => subscribers.deliver(topic, message, nodeId));
    },
    subscribe: subscribers.subscribe,
    async close() {},
  };
}

export interface PgBusOptions {
  nodeId: string;
  listener: PgListener;
  /** The channels' common prefix, one per schema so that nodes sharing a schema share the bus. */
  channelPrefix: string;
}

/**
 * The bus on PostgreSQL: one channel every node listens on (`<prefix>_all`) and one per node
 * (`<prefix>_<nodeId>`). A payload is `<from> <topic> <message>`.
 */
export async function startPgBus(options: PgBusOptions): Promise<ClusterBus> {
  const { nodeId, listener, channelPrefix } = options;
  const subscribers = createSubscribers();
  const allChannel = `${channelPrefix}_all`;
  const channelOf = (node: string) => `${channelPrefix}_${node}`;
  const events = new EventEmitter();
  const onUp = () => events.emit('up');
  const onDown = () => events.emit('down');
  listener.events.on('up', onUp);
  listener.events.on('down', onDown);

  const receive = (payload: string) => {
    const first = payload.indexOf(' ');
    const second = payload.indexOf(' ', first + 1);
    if (first < 0 || second < 0) return;
    subscribers.deliver(payload.slice(first + 1, second), payload.slice(second + 1), payload.slice(0, first));
  };
  await listener.listen(allChannel, (payload) => {
    // A broadcast comes back to its sender too; it is meant for the others.
    if (payload.startsWith(`${nodeId} `)) return;
    receive(payload);
  });
  await listener.listen(channelOf(nodeId), receive);

  function send(channel: string, topic: string, message: string): void {
    checkTopic(topic);
    const payload = `${nodeId} ${topic} ${message}`;
    if (Buffer.byteLength(payload) > MAX_NOTIFY_PAYLOAD) {
      throw new Error(`Cluster bus message under "${topic}" is too large (${Buffer.byteLength(payload)} bytes); put the data in a table and send its key`);
    }
    void listener.notify(channel, payload);
  }

  return {
    nodeId,
    get connected() {
      return listener.connected;
    },
    events,
    publish(topic, message) {
      send(allChannel, topic, message);
    },
    sendTo(target, topic, message) {
      if (!/^[0-9a-f]{12}$/.test(target)) throw new Error(`Invalid node id: ${target}`);
      send(channelOf(target), topic, message);
    },
    subscribe: subscribers.subscribe,
    async close() {
      listener.events.off('up', onUp);
      listener.events.off('down', onDown);
    },
  };
}
