/**
 * The cluster a command reads, from its flags and the settings, as kubectl picks it:
 * `--kubeconfig` (with `--context`), else what src/config.ts resolved (a pod's service
 * account, KUBECONFIG, ~/.kube/config), or a scenario on the embedded mock cluster when
 * one is asked for (`--scenario`, KUBEWHY_CLUSTER=mock). A mix that makes no sense, or no
 * cluster at all, is a refusal to print.
 */
import type { KubeClusterOptions } from '../cluster/kube-adapter.ts';
import type { Config } from '../config.ts';
import { noClusterMessage } from './no-cluster.ts';

export type ClusterTarget =
  /** `from` names where the folder came from, for messages: `--scenario` or `KUBEWHY_MOCK_SCENARIO`. */
  | { kind: 'scenario'; directory: string; from: string }
  | { kind: 'cluster'; options: KubeClusterOptions }
  | { refusal: string };

export function chooseClusterTarget(input: {
  scenario?: string | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
  config: Config;
}): ClusterTarget {
  const { cluster } = input.config;
  if (input.scenario !== undefined) {
    if (input.kubeconfig !== undefined || input.context !== undefined)
      return { refusal: '--scenario reads an embedded mock cluster: it takes no --kubeconfig or --context' };
    return { kind: 'scenario', directory: input.scenario, from: '--scenario' };
  }
  const requestTimeoutMs = cluster.timeoutMs;
  if (input.kubeconfig !== undefined) {
    return {
      kind: 'cluster',
      options: {
        kubeconfigPath: input.kubeconfig,
        ...(input.context ? { context: input.context } : {}),
        requestTimeoutMs,
      },
    };
  }
  switch (cluster.mode) {
    case 'mock':
      if (input.context !== undefined)
        return {
          refusal:
            'KUBEWHY_CLUSTER=mock reads the embedded mock cluster: --context needs a kubeconfig (--kubeconfig FILE)',
        };
      return { kind: 'scenario', directory: cluster.scenarioDir, from: 'KUBEWHY_MOCK_SCENARIO' };
    case 'kubeconfig': {
      const context = input.context ?? cluster.context;
      return {
        kind: 'cluster',
        options: {
          ...(cluster.kubeconfigPath ? { kubeconfigPath: cluster.kubeconfigPath } : {}),
          ...(context ? { context } : {}),
          requestTimeoutMs,
        },
      };
    }
    case 'in-cluster':
      if (input.context !== undefined)
        return {
          refusal: 'inside a pod kubewhy reads its service account: --context needs a kubeconfig (--kubeconfig FILE)',
        };
      return { kind: 'cluster', options: { inCluster: true, requestTimeoutMs } };
    case 'none':
      return { refusal: noClusterMessage(cluster.searched) };
  }
}
