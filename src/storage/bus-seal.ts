import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';

/**
 * The seal on every message between the API nodes (the cluster bus and the change feed).
 *
 * A PostgreSQL notification channel is open to every login that can connect to the database,
 * whatever its rights on Hearth's tables: it can listen to the nodes' messages and send its own
 * under any node's name. So each message is sealed with AES-256-GCM under a key derived (HKDF)
 * from the vault's root key, which every node of a cluster shares (VAULT_KEY) and nothing else
 * has. Sealing hides the message (owner ids, device names, a relayed file) and proves it: a
 * message that does not open, that is older than MAX_AGE_MS, that was already heard, or that
 * names itself for another channel is dropped and counted.
 *
 * Inside the seal: the sender's node id, its message number, the time it was sealed (on the
 * database's clock, so nodes need not agree on theirs), then the body. The channel's name is
 * the additional data: a message sealed for one node cannot be replayed on another node's
 * channel, nor a broadcast turned into a direct message.
 *
 * Replays: each sender numbers its messages; a receiver keeps, per sender, the highest number
 * heard and which of the REPLAY_WINDOW below it were, and refuses a number heard before or
 * below the window. Its memory is per live sender, never per message. A receiver that started
 * after a message was sealed refuses it too (it cannot know what it missed), so a recording
 * cannot be played to a node that starts later.
 *
 * Wire form: `h1.<rootKeyId>.<base64url(iv | ciphertext | tag)>`.
 */

/** The root keys the seal's keys are derived from: the vault's (`createRootKeys`), by structure. */
export interface BusKeySource {
  /** The key new messages are sealed with; undefined while this node has none (a key file not made yet). */
  active(): { id: string; key: Buffer } | undefined;
  /** A key by id, for messages sealed by a node on another (older or newer) root key. */
  get(id: string): { id: string; key: Buffer } | undefined;
}

/** Why a message was dropped: counted by reason, and said in the log (see `watchDroppedMessages`). */
export const DROP_REASONS = ['unsealed', 'unknownKey', 'forged', 'stale', 'replayed', 'unknownSender'] as const;
export type DropReason = (typeof DROP_REASONS)[number];
export type DropCounts = Record<DropReason, number>;

export interface OpenedMessage {
  from: string;
  body: string;
}

const PREFIX = 'h1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ROOT_KEY_ID = /^rk_[0-9a-f]{16}$/;
/** A message sealed longer ago than this is stale: notifications arrive in milliseconds, or are lost. */
export const MAX_AGE_MS = 30_000;
/** How far two nodes' readings of the database clock may differ (each measures its offset once). */
const CLOCK_SLACK_MS = 2_000;
/**
 * How much older than a receiver a message may be: a notification reaches the nodes listening
 * when it commits, a few milliseconds after it was sealed (its batch, the clocks' measurement).
 */
const START_SLACK_MS = 250;
/** Message numbers below a sender's highest that are still told apart. Notifications arrive in order; this is slack. */
const REPLAY_WINDOW = 4_096;
/**
 * What the seal adds to a body: the envelope (`h1.`, a key id, a dot), the IV and tag, the
 * header inside (node id, number, time, separators, a topic of up to 40 characters) and
 * base64's third. The carriers take 7,900 bytes; the bodies they accept are bounded below it.
 */
export function sealedLength(bodyBytes: number): number {
  const header = 12 + 1 + 16 + 1 + 15 + 1 + 40 + 1;
  return PREFIX.length + 19 + 1 + Math.ceil(((IV_BYTES + header + bodyBytes + TAG_BYTES) * 4) / 3);
}

/** What one receiver remembers of one sender's numbers. */
interface SenderWindow {
  highest: number;
  /** seen[n % REPLAY_WINDOW] === n for each number heard within the window. */
  seen: Float64Array;
  lastHeardAt: number;
}

export interface BusSeal {
  readonly nodeId: string;
  /** Seals `body` for `channel`; undefined while this node has no root key to seal with. */
  seal(channel: string, body: string): string | undefined;
  /** Opens a payload heard on `channel`, or answers why it is dropped (counted, and emitted as 'dropped'). */
  open(channel: string, payload: string): OpenedMessage | DropReason;
  /** Counts a message that opened but is dropped all the same (its sender is no live node). */
  drop(reason: DropReason): void;
  /** Messages dropped since start, by reason. */
  readonly dropped: Readonly<DropCounts>;
  /** 'dropped' (reason) for each message dropped. */
  readonly events: EventEmitter;
}

export interface BusSealOptions {
  nodeId: string;
  keys: BusKeySource;
  /** Binds the keys to one cluster: nodes of another schema with the same VAULT_KEY cannot replay into this one. */
  scope: string;
  /** Milliseconds on the clock every node shares (the database's); defaults to this machine's. */
  clock?: () => number;
}

export function createBusSeal(options: BusSealOptions): BusSeal {
  const { nodeId, keys, scope } = options;
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  const derived = new Map<string, Buffer>();
  const senders = new Map<string, SenderWindow>();
  const dropped: DropCounts = { unsealed: 0, unknownKey: 0, forged: 0, stale: 0, replayed: 0, unknownSender: 0 };
  const events = new EventEmitter();
  let sequence = 0;
  let lastForgetAt = startedAt;

  function keyFor(root: { id: string; key: Buffer }): Buffer {
    let key = derived.get(root.id);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', root.key, Buffer.from(scope, 'utf8'), 'hearth cluster bus v1', 32));
      derived.set(root.id, key);
    }
    return key;
  }

  function drop(reason: DropReason): DropReason {
    dropped[reason] += 1;
    events.emit('dropped', reason);
    return reason;
  }

  /** Senders silent for longer than a message lives: anything they sent before is stale now. */
  function forgetSilentSenders(now: number): void {
    if (now - lastForgetAt < MAX_AGE_MS) return;
    lastForgetAt = now;
    for (const [id, window] of senders) if (now - window.lastHeardAt > MAX_AGE_MS + CLOCK_SLACK_MS) senders.delete(id);
  }

  /** Whether `number` from `from` is heard for the first time; records it. */
  function firstHearing(from: string, number: number, now: number): boolean {
    let window = senders.get(from);
    if (!window) {
      window = { highest: -1, seen: new Float64Array(REPLAY_WINDOW).fill(-1), lastHeardAt: now };
      senders.set(from, window);
    }
    window.lastHeardAt = now;
    if (number > window.highest) {
      window.highest = number;
      window.seen[number % REPLAY_WINDOW] = number;
      return true;
    }
    if (number <= window.highest - REPLAY_WINDOW) return false;
    const slot = number % REPLAY_WINDOW;
    if (window.seen[slot] === number) return false;
    window.seen[slot] = number;
    return true;
  }

  return {
    nodeId,
    dropped,
    events,
    drop(reason) {
      drop(reason);
    },

    seal(channel, body) {
      const root = keys.active();
      if (!root) return undefined;
      sequence += 1;
      const plaintext = Buffer.from(`${nodeId} ${sequence} ${Math.round(clock())} ${body}`, 'utf8');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(root), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(channel, 'utf8'));
      const sealed = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${root.id}.${sealed.toString('base64url')}`;
    },

    open(channel, payload) {
      if (!payload.startsWith(PREFIX)) return drop('unsealed');
      const dot = payload.indexOf('.', PREFIX.length);
      const keyId = payload.slice(PREFIX.length, dot);
      if (dot < 0 || !ROOT_KEY_ID.test(keyId)) return drop('unsealed');
      const root = keys.get(keyId);
      if (!root) return drop('unknownKey');
      const raw = Buffer.from(payload.slice(dot + 1), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) return drop('forged');
      let plaintext: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(root), raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(channel, 'utf8'));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        plaintext = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return drop('forged');
      }
      // Sealed by a holder of the key, so well formed; checked all the same, as any input is.
      const first = plaintext.indexOf(' ');
      const second = plaintext.indexOf(' ', first + 1);
      const third = plaintext.indexOf(' ', second + 1);
      if (first < 0 || second < 0 || third < 0) return drop('forged');
      const from = plaintext.slice(0, first);
      const number = Number(plaintext.slice(first + 1, second));
      const sentAt = Number(plaintext.slice(second + 1, third));
      if (!Number.isSafeInteger(number) || number < 1 || !Number.isFinite(sentAt)) return drop('forged');
      const now = clock();
      forgetSilentSenders(now);
      if (sentAt < now - MAX_AGE_MS || sentAt > now + CLOCK_SLACK_MS || sentAt < startedAt - START_SLACK_MS) return drop('stale');
      if (!firstHearing(from, number, now)) return drop('replayed');
      return { from, body: plaintext.slice(third + 1) };
    },
  };
}

/** How often at most the log says that messages were dropped. */
const DROP_REPORT_EVERY_MS = 60_000;

/**
 * Tells the operator, at most once a minute, how many messages were dropped and what it means.
 * Answers the way to stop.
 */
export function watchDroppedMessages(seal: Pick<BusSeal, 'events'>, warn: (message: string) => void, everyMs = DROP_REPORT_EVERY_MS): () => void {
  let pending: Partial<DropCounts> = {};
  /** Runs for a minute after each report: drops meanwhile wait for its end. */
  let quiet: NodeJS.Timeout | undefined;
  const report = () => {
    const counts = pending;
    pending = {};
    const total = DROP_REASONS.reduce((sum, reason) => sum + (counts[reason] ?? 0), 0);
    const parts = DROP_REASONS.filter((reason) => counts[reason]).map((reason) => `${reason} ${counts[reason]}`);
    const cause = counts.unknownKey
      ? 'a node with another VAULT_KEY shares this database (every node needs the same VAULT_KEY), or something that is not a Hearth node is sending on its channels'
      : 'something that is not a Hearth node of this cluster is sending on its notification channels';
    warn(
      `The cluster bus dropped ${total} message(s) (${parts.join(', ')}): ${cause}. Nothing they asked for was done. ` +
        'Give Hearth a database role of its own and REVOKE CONNECT on the database FROM PUBLIC (README, "Running several nodes")',
    );
    quiet = setTimeout(() => {
      quiet = undefined;
      if (DROP_REASONS.some((reason) => pending[reason])) report();
    }, everyMs);
    quiet.unref();
  };
  const onDropped = (reason: DropReason) => {
    pending[reason] = (pending[reason] ?? 0) + 1;
    // The first drop is said at once; those that follow within the minute, together at its end.
    if (!quiet) report();
  };
  seal.events.on('dropped', onDropped);
  return () => {
    seal.events.off('dropped', onDropped);
    if (quiet) clearTimeout(quiet);
  };
}
