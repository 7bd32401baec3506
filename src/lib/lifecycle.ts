/**
 * The parts of the server that run beside the requests (timers, workers, subscriptions) or hold
 * something open (pools, storage), and the one registry that starts and stops them.
 */
import { ignoreFailure } from './ignore-failure.js';

/** Where a part reports what goes wrong while it runs: the app's logger. */
export interface PartLog {
  /** What a part did that the operator may want to see (a scheduled backup written); absent on some logs. */
  info?(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export interface Part {
  /** Names the part in a report of its failure (`webhooks.deliverer`). */
  name: string;
  /** Starts its background work; called once, in the order the parts were added. */
  start?(log: PartLog): void | Promise<void>;
  /** Stops its work and releases what it holds; called once, in the reverse order, started or not. */
  stop?(): void | Promise<void>;
}

export interface Lifecycle {
  /** Adds a part; parts added first start first and stop last. */
  add(part: Part): void;
  /** Starts every part, in order; once only (later calls answer the first's promise). */
  start(log: PartLog): Promise<void>;
  /**
   * Stops every part, newest first, each even when one before it failed, so that storage (the
   * first part) is always closed; once only. Each failure is reported to the log (the console's
   * error stream when the parts were never started), and the first is thrown once all stopped.
   */
  stop(): Promise<void>;
  /** The names of the parts, in the order they start. */
  names(): string[];
}

export function createLifecycle(): Lifecycle {
  const parts: Part[] = [];
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  let log: PartLog | undefined;

  function report(part: Part, error: unknown, when: 'start' | 'stop'): void {
    const message = `${part.name} failed to ${when}: ${(error as Error)?.message ?? String(error)}`;
    if (log) log.error({ err: error, part: part.name }, message);
    else console.error(message);
  }

  return {
    add(part) {
      if (starting || stopping) throw new Error(`The part ${part.name} was added after the parts started or stopped`);
      parts.push(part);
    },
    start(startLog) {
      starting ??= (async () => {
        log = startLog;
        for (const part of parts) {
          if (stopping) return;
          await part.start?.(startLog);
        }
      })();
      return starting;
    },
    stop() {
      stopping ??= (async () => {
        // A start in progress finishes first, so that nothing starts after its part stopped.
        if (starting) await ignoreFailure(starting, 'start reports its own failure');
        let first: { error: unknown } | undefined;
        for (const part of [...parts].reverse()) {
          try {
            await part.stop?.();
          } catch (error) {
            report(part, error, 'stop');
            first ??= { error };
          }
        }
        if (first) throw first.error;
      })();
      return stopping;
    },
    names: () => parts.map((part) => part.name),
  };
}
