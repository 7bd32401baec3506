import { open } from 'node:fs/promises';

/**
 * Group commits on SQLite made durable off the event loop. With `synchronous=FULL` SQLite
 * fsyncs the WAL inside COMMIT, on the thread that runs it: Node's only one, which then serves
 * nothing for the millisecond or more the disk takes, and that sync was most of the time of a
 * batch of small writes. A group commit's transaction instead commits with
 * `synchronous=NORMAL` (its frames are written to the WAL, not synced), and the batch's callers
 * are answered only once `sync()` has fsynced the WAL file on libuv's thread pool: a write is
 * still durable when it is acknowledged, and the event loop parses and runs the next batch
 * meanwhile. Every other commit keeps `synchronous=FULL`.
 *
 * In WAL mode FULL is NORMAL plus this very sync of the WAL after each commit (NORMAL already
 * syncs the WAL before a checkpoint, the database after it, and the WAL's header when it is
 * reused), so what is acknowledged survives a power loss as before. What differs: a reader can
 * see a batch's rows during the sync, before their writers are answered, so a power loss in
 * that millisecond could take away rows a reader saw (never a write that was acknowledged).
 */
export interface DeferredSync {
  /**
   * Fsyncs the WAL: every commit made before the call is durable once it resolves. Callers
   * arriving while a sync runs share the next one (a sync started before a commit may miss it).
   */
  sync(): Promise<void>;
}

export function createWalSync(databaseFile: string): DeferredSync {
  const walFile = `${databaseFile}-wal`;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  async function fsyncWal(): Promise<void> {
    // Opened each time: SQLite may replace the file (when the last connection closes), and an
    // fsync through a descriptor of the old file would sync nothing that matters.
    const handle = await open(walFile, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  function sync(): Promise<void> {
    if (!running) {
      const current = fsyncWal().finally(() => {
        if (running === current) running = undefined;
      });
      running = current;
      return current;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return sync();
      });
    return next;
  }

  return { sync };
}
