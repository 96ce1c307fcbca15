/**
 * Loopback ports held until they are used. A Prometheus scrape configuration names its
 * targets before the servers behind them start; holding each port with a listening
 * socket (that drops every connection, so a scrape of it fails at once) keeps any other
 * process from taking it, and `release` frees it for the server that will listen there.
 */
import { createServer, type Server } from 'node:net';

export interface HeldPort {
  port: number;
  /** Stops holding: the next listener on this port may start. */
  release(): Promise<void>;
}

/** A free loopback port, held. */
export async function holdPort(): Promise<HeldPort> {
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let released: Promise<void> | undefined;
  return {
    port,
    release() {
      released ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return released;
    },
  };
}

/** A free loopback port, not held: for a child process that is told to listen on it right away. */
export async function findFreePort(): Promise<number> {
  const held = await holdPort();
  await held.release();
  return held.port;
}
