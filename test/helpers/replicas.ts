/**
 * Several `kubewhy serve` processes sharing one PostgreSQL database and one (mock)
 * cluster, as replicas behind a Service share them: for the replica tests and the bench.
 * The database is a fresh one on the tests' PostgreSQL server (postgres.ts); the cluster
 * is one mock cluster every replica reads through a kubeconfig.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFaultSpec, startMockCluster, type MockCluster } from '../../mock-cluster/index.ts';
import { sharedPostgres } from './postgres.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';

export const REPLICA_TOKENS = {
  ingest: 'replica-ingest-token-0123456789abcdef',
  read: 'replica-read-token-0123456789abcdef',
  approve: 'replica-approve-token-0123456789abcdef',
} as const;

export interface ReplicaSet {
  databaseUrl: string;
  cluster: MockCluster;
  replicas: ServiceProcess[];
  /** Starts one more replica on the same database and cluster. */
  add(name: string): Promise<ServiceProcess>;
  /** Stops every replica still running, the cluster, and removes the data directories. */
  close(): Promise<void>;
}

export async function startReplicas(input: {
  count: number;
  scenario: string;
  faults?: string[];
  environment?: Record<string, string>;
  databaseUrl?: string;
}): Promise<ReplicaSet> {
  const databaseUrl = input.databaseUrl ?? (await (await sharedPostgres()).createDatabase());
  const cluster = await startMockCluster({
    scenario: input.scenario,
    ...(input.faults ? { faults: input.faults.map(parseFaultSpec) } : {}),
  });
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-replicas-'));
  const replicas: ServiceProcess[] = [];
  const add = async (name: string): Promise<ServiceProcess> => {
    const replica = await startServiceProcess({
      KUBEWHY_DATABASE_URL: databaseUrl,
      KUBEWHY_REPLICA: name,
      KUBEWHY_DATA_DIR: join(directory, name),
      KUBEWHY_CLUSTER: 'kubeconfig',
      KUBECONFIG: cluster.kubeconfigPath,
      KUBEWHY_MODEL: 'offline',
      KUBEWHY_TOKEN_INGEST: REPLICA_TOKENS.ingest,
      KUBEWHY_TOKEN_READ: REPLICA_TOKENS.read,
      KUBEWHY_TOKEN_APPROVE: REPLICA_TOKENS.approve,
      KUBEWHY_SHUTDOWN_GRACE_SECONDS: '1',
      ...input.environment,
    });
    replicas.push(replica);
    return replica;
  };
  try {
    // One after another: the first applies the migrations, the others find them applied.
    for (let index = 1; index <= input.count; index++) await add(`replica-${index}`);
  } catch (error) {
    await Promise.allSettled(replicas.map((replica) => replica.kill()));
    await cluster.close();
    throw error;
  }
  return {
    databaseUrl,
    cluster,
    replicas,
    add,
    async close() {
      await Promise.allSettled(replicas.map((replica) => replica.stop()));
      await cluster.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
