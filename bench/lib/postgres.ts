/**
 * A fresh PostgreSQL database for each Hearth started on an empty store, made beside the one
 * BENCH_DATABASE_URL names and dropped at the end, so that a run neither reads nor leaves data.
 */
import pg from 'pg';
import { ignoreFailure } from '../../src/lib/ignore-failure.js';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Undefined when the server answers; otherwise why not, in a few words. */
export async function unreachable(adminUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await ignoreFailure(client.end(), 'the answer is known; the connection is dropped either way');
  }
}

export class BenchDatabases {
  private readonly created: string[] = [];
  private readonly stamp = `hearth_bench_${Date.now()}`;

  constructor(private readonly adminUrl: string) {}

  /** Creates an empty database and answers its URL (the admin URL with the database name replaced). */
  async create(): Promise<string> {
    const name = `${this.stamp}_${this.created.length + 1}`;
    await this.admin((client) => client.query(`CREATE DATABASE ${name}`));
    this.created.push(name);
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /** Drops every database this run made; FORCE ends connections a stopped server may have left. */
  async dropAll(): Promise<void> {
    await this.admin(async (client) => {
      for (const name of this.created.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  }

  private async admin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  }
}
