import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import pg from 'pg';
import { sharedPostgres, startPostgres } from './helpers/postgres.ts';

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function isPortAccepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the test PostgreSQL server', () => {
  test('gives each suite its own empty database on a real PostgreSQL', async () => {
    const server = await sharedPostgres();
    const first = await server.createDatabase();
    const second = await server.createDatabase();
    assert.notEqual(first, second);

    for (const [url, value] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      await withClient(url, async (client) => {
        const { rows } = await client.query<{ version: string }>('SELECT version()');
        assert.match(rows[0]?.version ?? '', /^PostgreSQL \d+/);
        await client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
        await client.query('INSERT INTO notes (body) VALUES ($1)', [value]);
      });
    }
    for (const [url, value] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      const bodies = await withClient(url, async (client) =>
        (await client.query<{ body: string }>('SELECT body FROM notes ORDER BY id')).rows.map((row) => row.body),
      );
      assert.deepEqual(bodies, [value]);
    }
  });

  test('delivers NOTIFY from one connection to another that LISTENs', async () => {
    const server = await sharedPostgres();
    const url = await server.createDatabase();
    await withClient(url, async (listener) => {
      const received = new Promise<pg.Notification>((resolve) => listener.once('notification', resolve));
      await listener.query('LISTEN run_events');
      await withClient(url, async (notifier) => {
        await notifier.query("SELECT pg_notify('run_events', 'run-42 finished')");
      });
      const notification = await received;
      assert.equal(notification.channel, 'run_events');
      assert.equal(notification.payload, 'run-42 finished');
    });
  });

  test('leaves nothing listening once a server it started is stopped', async () => {
    const server = await startPostgres();
    assert.equal(await isPortAccepting(server.port), true);
    await withClient(server.url, async (client) => {
      assert.equal((await client.query<{ answer: number }>('SELECT 42 AS answer')).rows[0]?.answer, 42);
    });
    await server.stop();
    assert.equal(await isPortAccepting(server.port), false);
  });
});
