/**
 * A shared store's one connection to PostgreSQL (core/postgres.ts): opened when a turn needs it,
 * forgotten when a query on it failed (its transaction's state is then not known) or the server
 * dropped it, so the next turn opens another; closed once.
 */
import pg from 'pg';
import { SharedStoreError } from './postgres-options.js';

const message = (error: unknown) => (error as Error).message;
const noop = () => undefined;

export class SharedConnection {
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    /** Where the database is (no password), for messages. */
    private readonly where: string,
    private readonly onError: (message: string) => void,
  ) {}

  /** The connection, opened when there is none (the first, or the last one was lost). */
  async get(): Promise<pg.Client> {
    if (this.closed) throw new SharedStoreError(`the shared store ${this.where} is closed`);
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 15_000,
      application_name: 'gspec-emulator',
    });
    client.on('error', (error) => {
      this.onError(`The emulator lost its connection to ${this.where}: ${message(error)}`);
      this.drop(client);
    });
    try {
      await client.connect();
    } catch (error) {
      client.end().catch(noop);
      throw new SharedStoreError(`cannot connect to PostgreSQL at ${this.where}: ${message(error)}`);
    }
    this.client = client;
    return client;
  }

  /** Forgets a connection whose state is not known (a failed query): the next turn opens another. */
  drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(noop);
  }

  /** Rolls back what a failed query left open, and forgets the connection. */
  async abandon(client: pg.Client): Promise<void> {
    await client.query('ROLLBACK').catch(noop);
    this.drop(client);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(noop);
  }
}
