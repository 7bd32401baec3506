import { CompiledQuery } from 'kysely';
import type { Executor } from '../../storage/columns.js';

/**
 * SQLite: which rows may hold each of an owner's text keys (`content_key`), kept in the process
 * instead of a unique index (docs/decisions/memory.md, "The text keys in the process").
 *
 * The index cost every new entry a leaf page of its own (the keys are hashes, in no order), which
 * was the whole of the write row's gap. SQLite has one writer, this process, and every write goes
 * through the group commit one transaction at a time, so the process can decide "this text is
 * already stored" itself; PostgreSQL, written by several nodes, keeps its unique index.
 *
 * What is kept is a superset, never less: for every row of a loaded owner that holds a key, the
 * row's `rid` is among the key's candidates. A candidate may no longer hold the key (superseded,
 * deleted, its text changed): a write of that text reads the candidates by `rid` and finds out.
 * So keys are added as soon as a row is written with one, even inside a transaction that may
 * roll back (a candidate too many is harmless), and none is ever removed one by one: an owner's
 * keys are dropped whole and read again from the table when they cannot be trusted. A
 * transaction that fails drops them all (`dropAll`): keys read inside it may have missed a key
 * that its rollback gave back to a row. So does a commit by another connection to the file (its
 * `data_version`, read in the writing transaction). An owner's are read again, at its first use
 * in a transaction, once what is kept has grown well past what was read (texts changed, entries
 * deleted): what is kept stays some twice the owner's rows, and no text's list of candidates
 * grows long. Other modules that write entries tell memory (the account import and the
 * account's erasure do).
 *
 * Each key is kept as a 30-bit hash (a small integer, which V8 stores without an allocation) with
 * the rids of its rows: some 40 bytes an entry. Two texts whose hashes collide only share
 * candidates, which the read by rid tells apart.
 */
export interface TextKeys {
  /**
   * The owner's keys, read from the table unless they are kept; through the unit's `trx`, before
   * any write of the unit. The answer stays whole for the unit even if the owner's keys are
   * dropped meanwhile (a later unit reads them again).
   */
  load(trx: Executor, ownerId: string): Promise<OwnerTextKeys>;
  /** The owner's rows were written by someone else (an account import): read them again when next needed. */
  drop(ownerId: string): void;
  /** A transaction failed: nothing kept is trusted any more. */
  dropAll(): void;
  /** Keys kept, over all owners. */
  readonly size: number;
}

/** One owner's keys, as `load` answers them. */
export interface OwnerTextKeys {
  /** The rids of the owner's rows that may hold `key` (empty: none does). */
  candidates(key: string): readonly number[];
  /** A row of the owner now holds `key` (written, or its text changed). */
  add(key: string, rid: number): void;
  /** A read by rid found `count` candidates no longer holding their key (they are read again once many are). */
  noteStale(count: number): void;
}

/** Keys kept over all owners before the least recently written owners' are dropped (some 40 MB). */
export const TEXT_KEYS_MAX = 1_000_000;

/** A 30-bit FNV-1a hash of the key: a small integer in V8, so a Map of them allocates no numbers. */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 2;
}

interface OwnerKeys extends OwnerTextKeys {
  /** hash → the rid of the one row holding it, or the rids of several. */
  byHash: Map<number, number | number[]>;
  size: number;
  /** Keys read from the table when loaded. */
  loaded: number;
  /** Candidates a read by rid found no longer holding their key, since loaded. */
  stale: number;
}

const NONE: readonly number[] = [];

/**
 * Keys added or found stale since an owner's were read, beyond which they are read again (at
 * least this many, or as many as were read): what an owner keeps stays within some twice its
 * rows, and a text written again and again over deleted copies never has a long list to read.
 */
const REFRESH_AFTER = 1_000;

export function createTextKeys(max = TEXT_KEYS_MAX): TextKeys {
  /** By owner, least recently used first (an owner used is moved to the end). */
  const owners = new Map<string, OwnerKeys>();
  let total = 0;
  /**
   * SQLite's `data_version` as the writing connection last read it: it changes when another
   * connection (another process on the same file) has committed since. Read once in each writing
   * transaction, before the keys are used in it: once the transaction has written, no other
   * connection commits before it ends.
   */
  let dataVersion: number | undefined;
  /** The owners whose keys each transaction uses: never given up while it runs. */
  const inUse = new WeakMap<object, Set<string>>();

  function dropAll(): void {
    owners.clear();
    total = 0;
  }

  function ownerKeys(ownerId: string): OwnerKeys {
    const keys: OwnerKeys = {
      byHash: new Map(),
      size: 0,
      loaded: 0,
      stale: 0,
      candidates(key) {
        const held = keys.byHash.get(keyHash(key));
        if (held === undefined) return NONE;
        return typeof held === 'number' ? [held] : held;
      },
      add(key, rid) {
        const hash = keyHash(key);
        const held = keys.byHash.get(hash);
        if (held === undefined) keys.byHash.set(hash, rid);
        else if (typeof held === 'number') {
          if (held === rid) return;
          keys.byHash.set(hash, [held, rid]);
        } else if (!held.includes(rid)) held.push(rid);
        else return;
        keys.size += 1;
        // Counted in the total only while kept: a dropped owner's adds go nowhere.
        if (owners.get(ownerId) === keys) total += 1;
      },
      noteStale(count) {
        keys.stale += count;
      },
    };
    return keys;
  }

  function forget(ownerId: string): void {
    const keys = owners.get(ownerId);
    if (!keys) return;
    owners.delete(ownerId);
    total -= keys.size;
  }

  return {
    async load(trx, ownerId) {
      let using = inUse.get(trx);
      if (!using) {
        const version = (await trx.executeQuery<{ data_version: number }>(CompiledQuery.raw('pragma data_version'))).rows[0]?.data_version;
        if (version !== dataVersion) {
          dropAll();
          dataVersion = version;
        }
        using = new Set();
        inUse.set(trx, using);
      }
      const kept = owners.get(ownerId);
      if (kept && (using.has(ownerId) || kept.size - kept.loaded + kept.stale <= Math.max(REFRESH_AFTER, kept.loaded))) {
        owners.delete(ownerId);
        owners.set(ownerId, kept);
        using.add(ownerId);
        return kept;
      }
      forget(ownerId);
      // No index holds the keys: this reads every row of the owner (once per process, or when
      // what is kept has grown well past what was read).
      const rows = await trx.executeQuery<{ rid: number; content_key: string }>(
        CompiledQuery.raw('select "rid", "content_key" from "memory_entries" where "owner_id" = ? and "content_key" is not null', [ownerId]),
      );
      const keys = ownerKeys(ownerId);
      for (const row of rows.rows) keys.add(row.content_key, row.rid);
      keys.loaded = keys.size;
      owners.set(ownerId, keys);
      total += keys.size;
      using.add(ownerId);
      // The least recently written owners give theirs up; never one this transaction uses.
      for (const [other, otherKeys] of owners) {
        if (total <= max) break;
        if (using.has(other)) continue;
        owners.delete(other);
        total -= otherKeys.size;
      }
      return keys;
    },

    drop: forget,

    dropAll,

    get size() {
      return total;
    },
  };
}
