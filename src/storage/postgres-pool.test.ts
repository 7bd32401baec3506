import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../../test/harness.js';
import { createStatementPool, describeStatement } from './postgres-pool.js';

describe('statements as the PostgreSQL pool sees them', () => {
  it('tells writes and their table, transaction control and reads apart', () => {
    expect(describeStatement('insert into "memory_entries" ("id") values ($1)', true).writes).toBe('memory_entries');
    expect(describeStatement('update "tokens" set "revoked_at" = $1 where "id" = $2', true).writes).toBe('tokens');
    // A token's last use changes nothing a cache holds (UNCOUNTED_COLUMNS): alone, it is no write to count.
    expect(describeStatement('update "tokens" set "last_used_at" = $1 where "id" = $2', true).writes).toBeUndefined();
    expect(describeStatement('update "tokens" set "last_used_at" = $1, "name" = $2 where "id" = $3', true).writes).toBe('tokens');
    expect(describeStatement('update "tokens" set "last_used_at" = now() where "id" = $1', true).writes).toBe('tokens');
    expect(describeStatement('update "memory_entries" set "last_used_at" = $1 where "id" = $2', true).writes).toBe('memory_entries');
    expect(describeStatement('delete from "skills" where "owner_id" = $1', true).writes).toBe('skills');
    expect(describeStatement('UPDATE personas SET name = name WHERE owner_id = $1', true).writes).toBe('personas');
    expect(describeStatement('insert into "public"."users" ("id") values ($1)', true).writes).toBe('users');
    expect(describeStatement('select * from "tokens" where "id" = $1 for update', true).writes).toBeUndefined();
    expect(describeStatement('with t as (select 1) select * from t where 1 = $1', true).writes).toBeUndefined();
    expect(describeStatement('with t as (delete from "skills" returning id) select count(*) from t where 1 = $1', true).writes).toBe('unknown');
    expect(describeStatement('truncate "skills"', false).writes).toBe('unknown');
    expect(describeStatement('begin', false).control).toBe('begin');
    expect(describeStatement('start transaction isolation level serializable', false).control).toBe('begin');
    expect(describeStatement('commit', false).control).toBe('commit');
    expect(describeStatement('rollback', false).control).toBe('rollback');
    expect(describeStatement('rollback to savepoint "sp"', false).control).toBeUndefined();
  });

  it('names a statement with parameters after its text, and one without none', () => {
    const a = describeStatement('select $1::int as n', true);
    expect(a.name).toMatch(/^h_[\w-]{22}$/);
    expect(describeStatement('select $1::int as n', true).name).toBe(a.name);
    expect(describeStatement('select $1::int as m', true).name).not.toBe(a.name);
    expect(describeStatement('select 1', false).name).toBeUndefined();
  });
});

describe.skipIf(!TEST_DATABASE_URL)('the PostgreSQL statement pool', () => {
  let pool: pg.Pool;
  const commits: Array<string[] | 'unknown'> = [];
  const MAX = 3;
  let wrapped: ReturnType<typeof createStatementPool>;

  beforeAll(() => {
    // One connection, so that every query below runs on the same one until it is retired.
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    wrapped = createStatementPool({ pool, maxStatements: MAX, onCommit: (tables) => commits.push(tables === 'unknown' ? tables : [...tables]) });
  });
  afterAll(async () => wrapped.end());

  const preparedOn = async (client: Awaited<ReturnType<typeof wrapped.connect>>) =>
    (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name', [])).rows.map((r) => r.name);
  const pidOf = async (client: Awaited<ReturnType<typeof wrapped.connect>>) =>
    (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [])).rows[0]!.pid;

  it('prepares each parameterized statement once per connection, keeps at most its bound, and retires a full connection', async () => {
    const client = await wrapped.connect();
    const pid = await pidOf(client);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < MAX; i++) {
        const { rows } = await client.query<{ n: number }>(`SELECT $1::int + ${i} AS n`, [round]);
        expect(rows[0]!.n).toBe(round + i);
      }
    }
    expect(await preparedOn(client)).toHaveLength(MAX);
    // One more distinct statement: answered, not prepared.
    const { rows } = await client.query<{ n: number }>('SELECT $1::int * 10 AS n', [4]);
    expect(rows[0]!.n).toBe(40);
    expect(await preparedOn(client)).toHaveLength(MAX);
    client.release();

    // The full connection was closed on release; the pool opened a fresh one.
    const next = await wrapped.connect();
    expect(await pidOf(next)).not.toBe(pid);
    expect(await preparedOn(next)).toHaveLength(0);
    expect((await next.query<{ n: number }>('SELECT $1::int + 0 AS n', [7])).rows[0]!.n).toBe(7);
    expect(await preparedOn(next)).toHaveLength(1);
    next.release();
  });

  it('reports writes once they commit: a statement alone at once, a transaction at COMMIT, nothing after ROLLBACK', async () => {
    const client = await wrapped.connect();
    try {
      await client.query('CREATE TEMP TABLE IF NOT EXISTS pool_probe (n int)', []);
      commits.length = 0;
      await client.query('insert into pool_probe (n) values ($1)', [1]);
      expect(commits).toEqual([['pool_probe']]);

      commits.length = 0;
      await client.query('begin', []);
      await client.query('insert into pool_probe (n) values ($1)', [2]);
      await client.query('update pool_probe set n = n + $1', [1]);
      expect(commits).toEqual([]);
      await client.query('commit', []);
      expect(commits).toEqual([['pool_probe']]);

      commits.length = 0;
      await client.query('begin', []);
      await client.query('delete from pool_probe where n > $1', [0]);
      await client.query('rollback', []);
      expect(commits).toEqual([]);
      expect((await client.query<{ c: number }>('SELECT count(*)::int AS c FROM pool_probe', [])).rows[0]!.c).toBe(2);
    } finally {
      client.release();
    }
  });

  it('runs a statement again, unnamed, when a table changed under its prepared plan, and retires the connection', async () => {
    const table = `pool_probe_${process.pid}_${Date.now()}`;
    const client = await wrapped.connect();
    const pid = await pidOf(client);
    try {
      await client.query(`CREATE TABLE ${table} (n int)`, []);
      await client.query(`INSERT INTO ${table} (n) VALUES ($1)`, [1]);
      const select = `SELECT * FROM ${table} WHERE n = $1`;
      expect((await client.query(select, [1])).rows).toEqual([{ n: 1 }]);
      // As another node's migration would: the prepared plan's result no longer fits.
      await client.query(`ALTER TABLE ${table} ADD COLUMN m int`, []);
      expect((await client.query(select, [1])).rows).toEqual([{ n: 1, m: null }]);
    } finally {
      client.release();
    }
    const next = await wrapped.connect();
    try {
      expect(await pidOf(next)).not.toBe(pid);
      expect((await next.query(`SELECT * FROM ${table} WHERE n = $1`, [1])).rows).toEqual([{ n: 1, m: null }]);
    } finally {
      await next.query(`DROP TABLE ${table}`, []);
      next.release();
    }
  });
});
