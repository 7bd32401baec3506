import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sealedLength, type BusSeal, type DropCounts } from './bus-seal.js';
import { MAX_NOTIFY_PAYLOAD, type PgListener } from './pg-listener.js';

/**
 * Small messages between the API nodes that share one database: a node tells all the others
 * (`publish`) or one of them (`sendTo`) something happened, under a topic.
 *
 * Each cross-node mechanism (live events, device links, token and rate state) talks to this
 * interface only, so that another carrier (Redis, NATS) could serve it later. With PostgreSQL
 * it rides on LISTEN/NOTIFY; with SQLite there is one node and no other to tell.
 *
 * Messages are small (MAX_MESSAGE_BYTES) and delivered at most once, in the order one node sent
 * them, to nodes whose listening connection is up. A node that must not miss one (a request
 * waiting for its answer) bounds the wait itself; a large payload goes into a table and the
 * message carries its key.
 *
 * Trust: a message is heard only if a node of this cluster sent it. Whatever the carrier, it
 * must be open to others (PostgreSQL's channels are open to every login of the database), so
 * every carrier seals each message (bus-seal.ts: encrypted and authenticated under a key derived
 * from the vault's root key, numbered, timed) and delivers it only once it opened, was not heard
 * before, and came from a node the registry knows alive. What subscribers receive can be acted on.
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
  /** Messages heard but dropped since start, by reason (not sealed by a node of this cluster, replayed, …). */
  readonly dropped: Readonly<DropCounts>;
  close(): Promise<void>;
}

/** The largest message (topic excluded) the bus carries: what a sealed notification leaves room for. */
export const MAX_MESSAGE_BYTES = 5_700;
if (sealedLength(MAX_MESSAGE_BYTES) > MAX_NOTIFY_PAYLOAD) throw new Error('MAX_MESSAGE_BYTES does not fit a notification once sealed');

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
    dropped: { unsealed: 0, unknownKey: 0, forged: 0, stale: 0, replayed: 0, unknownSender: 0 },
    async close() {},
  };
}

export interface PgBusOptions {
  listener: PgListener;
  /** The channels' common prefix, one per schema so that nodes sharing a schema share the bus. */
  channelPrefix: string;
  /** Seals what this node sends and opens what it hears; its node id is this node's. */
  seal: BusSeal;
  /** Which nodes are alive: a message is delivered only from one of them. */
  senders: {
    alive(nodeId: string): boolean;
    /** Asks the registry itself about a node not alive at its last look (one just started). */
    confirm(nodeId: string): Promise<boolean>;
  };
}

/** Messages held while the registry is asked about their sender; beyond, they are dropped. */
const MAX_HELD_PER_SENDER = 1_000;

/**
 * The bus on PostgreSQL: one channel every node listens on (`<prefix>_all`) and one per node
 * (`<prefix>_<nodeId>`). A payload is a sealed `<topic> <message>` (bus-seal.ts).
 */
export async function startPgBus(options: PgBusOptions): Promise<ClusterBus> {
  const { listener, channelPrefix, seal, senders } = options;
  const nodeId = seal.nodeId;
  const subscribers = createSubscribers();
  const allChannel = `${channelPrefix}_all`;
  const channelOf = (node: string) => `${channelPrefix}_${node}`;
  const ownChannel = channelOf(nodeId);
  const events = new EventEmitter();
  const onUp = () => events.emit('up');
  const onDown = () => events.emit('down');
  listener.events.on('up', onUp);
  listener.events.on('down', onDown);

  /** A sender being asked about, with its messages heard meanwhile (delivered in order once it is known alive). */
  const held = new Map<string, Array<() => void>>();

  function admit(from: string, deliver: () => void): void {
    const waiting = held.get(from);
    if (waiting) {
      if (waiting.length < MAX_HELD_PER_SENDER) waiting.push(deliver);
      else seal.drop('unknownSender');
      return;
    }
    if (senders.alive(from)) return deliver();
    const queue = [deliver];
    held.set(from, queue);
    void senders
      .confirm(from)
      .catch(() => false)
      .then((alive) => {
        held.delete(from);
        for (const next of queue) {
          if (alive) next();
          else seal.drop('unknownSender');
        }
      });
  }

  const receive = (channel: string) => (payload: string) => {
    const opened = seal.open(channel, payload);
    if (typeof opened === 'string') return;
    // A broadcast comes back to its sender too; it is meant for the others.
    if (opened.from === nodeId && channel === allChannel) return;
    const space = opened.body.indexOf(' ');
    if (space < 0) return;
    const topic = opened.body.slice(0, space);
    const message = opened.body.slice(space + 1);
    admit(opened.from, () => subscribers.deliver(topic, message, opened.from));
  };
  await listener.listen(allChannel, receive(allChannel));
  await listener.listen(ownChannel, receive(ownChannel));

  function send(channel: string, topic: string, message: string): void {
    checkTopic(topic);
    const bytes = Buffer.byteLength(message);
    if (bytes > MAX_MESSAGE_BYTES) {
      throw new Error(`Cluster bus message under "${topic}" is too large (${bytes} bytes, at most ${MAX_MESSAGE_BYTES}); put the data in a table and send its key`);
    }
    const payload = seal.seal(channel, `${topic} ${message}`);
    // No root key yet (the key file of a first start is made once the schema is ready): nobody
    // could open the message anyway, and nothing is sent before the node serves.
    if (payload === undefined) return;
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
    dropped: seal.dropped,
    async close() {
      listener.events.off('up', onUp);
      listener.events.off('down', onDown);
    },
  };
}
