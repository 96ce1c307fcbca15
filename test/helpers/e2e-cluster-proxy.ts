/**
 * One stable address in front of mock clusters that change: a TCP relay on a loopback
 * port that forwards each connection to the cluster it currently points at. kubewhy
 * reads its kubeconfig once at start, so end-to-end tests point its kubeconfig here and
 * switch the cluster behind it from one scenario to the next. Switching closes the
 * connections already relayed, so no kept-alive connection reaches the previous cluster;
 * with nothing to point at, connections are refused by closing them.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { writeKubeconfig } from '../../mock-cluster/kubeconfig.ts';

export interface ClusterProxy {
  url: string;
  /** A kubeconfig whose server is this relay. */
  kubeconfigPath: string;
  /** Forwards new connections to 127.0.0.1:port (undefined: to nothing), and closes the current ones. */
  pointAt(port: number | undefined): void;
  close(): Promise<void>;
}

export async function startClusterProxy(input: { directory: string }): Promise<ClusterProxy> {
  let target: number | undefined;
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset from either side ends the pair; it is not the relay's error.
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (target === undefined) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const kubeconfigPath = join(input.directory, 'proxy-kubeconfig');
  await writeKubeconfig(kubeconfigPath, url);
  const closeAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url,
    kubeconfigPath,
    pointAt(port) {
      target = port;
      closeAll();
    },
    async close() {
      target = undefined;
      closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
