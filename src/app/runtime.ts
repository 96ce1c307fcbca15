/**
 * The parts the program is built from, made in one place for every command that needs them
 * (`kubewhy diagnose`, `kubewhy mcp`): the cluster client with the identity it records on
 * each run (a kubeconfig's cluster, or a scenario served by a mock cluster started here),
 * and the model with its logger kept off stdout, which those commands speak on.
 */
import type { Logger } from 'pino';
import { createModel } from '../agent/models/create-model.ts';
import type { Model } from '../agent/model.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { createKubeCluster, kubeconfigSource, type KubeClusterOptions } from '../cluster/kube-adapter.ts';
import { identifyCluster, type ClusterIdentity } from '../cluster/kubeconfig.ts';
import type { Config } from '../config.ts';
import type { LoadedScenario } from '../../mock-cluster/index.ts';

/** Where a command reads: a cluster from a kubeconfig, or a scenario folder to serve on a mock cluster. */
export type ConnectTarget = { kind: 'cluster'; options: KubeClusterOptions } | { kind: 'scenario'; directory: string };

export interface Connection {
  cluster: Cluster;
  identity: ClusterIdentity;
  /** Stops the mock cluster a scenario was served on; nothing for a real cluster. */
  close(): Promise<void>;
}

/** The cluster client and its identity; a scenario (loaded already, or its folder) gets its mock cluster started here. */
export async function connect(
  target: ConnectTarget,
  options: { requestTimeoutMs: number; scenario?: LoadedScenario },
): Promise<Connection> {
  if (target.kind === 'cluster') {
    return {
      cluster: createKubeCluster(target.options),
      identity: identifyCluster(kubeconfigSource(target.options)),
      close: async () => undefined,
    };
  }
  // Loaded only when a scenario is served: a real cluster's command never pays for the mock.
  const { startMockCluster } = await import('../../mock-cluster/index.ts');
  const mock = await startMockCluster({ scenario: options.scenario ?? target.directory });
  return {
    cluster: createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, requestTimeoutMs: options.requestTimeoutMs }),
    identity: { source: 'mock', server: mock.url, scenario: mock.scenario.name },
    close: () => mock.close(),
  };
}

/**
 * The configured model for a command whose stdout is its output (a diagnosis, the MCP
 * channel): a model's logger (the SDK's warnings) writes JSON lines to stderr. The offline
 * engine logs nothing, so it is made without loading a logger.
 */
export async function createCommandModel(config: Config): Promise<Model> {
  if (config.model.provider === 'offline') return createModel(config.model);
  const [{ pino }, { createLogger }] = await Promise.all([import('pino'), import('../logger.ts')]);
  const logger: Logger = createLogger({ level: config.logLevel, destination: pino.destination(2) });
  return createModel(config.model, { logger });
}
