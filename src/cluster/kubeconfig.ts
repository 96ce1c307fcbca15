/**
 * Which cluster a run reads, chosen as kubectl chooses it, and a name for it that every
 * diagnosis carries. A kubeconfig is read from the files given (a `KUBECONFIG`-style list
 * merged in order, the first current context winning, missing files skipped as kubectl
 * skips them) or from the pod's service account. Mistakes a person can fix (a missing
 * file, a context that is not there, no current context) throw `KubeconfigError` with a
 * message that names the file or the context; nothing here touches the network.
 */
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

/** Where the cluster comes from: kubeconfig files (with an optional context), or the pod's service account. */
export type KubeconfigSource = { kubeconfigPaths: string[]; context?: string } | { inCluster: true };

/** What a run read: shown by the CLI, stored with every API run. */
export interface ClusterIdentity {
  source: 'kubeconfig' | 'in-cluster' | 'mock';
  /** The kubeconfig context, where there is one. */
  context?: string;
  /** The API server's URL. */
  server: string;
  /** The kubeconfig files read, for `kubeconfig`. */
  files?: string[];
  /** The scenario a mock cluster serves. */
  scenario?: string;
}

/** Loads the kubeconfig of `source` and selects its context; throws KubeconfigError for what a person can fix. */
export function loadKubeconfig(source: KubeconfigSource): KubeConfig {
  const config = new KubeConfig();
  if ('inCluster' in source) {
    config.loadFromCluster();
    return config;
  }
  const files = source.kubeconfigPaths.filter((path) => existsSync(path));
  if (files.length === 0) {
    const named = source.kubeconfigPaths.join(', ') || '(none given)';
    throw new KubeconfigError(`kubeconfig not found: ${named}`);
  }
  for (const [index, file] of files.entries()) {
    const loaded = index === 0 ? config : new KubeConfig();
    try {
      loaded.loadFromFile(file);
    } catch (error) {
      throw new KubeconfigError(
        `kubeconfig ${file} could not be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      );
    }
    if (index > 0) config.mergeConfig(loaded, true);
  }
  const wanted = source.context ?? config.getCurrentContext();
  if (!wanted) {
    throw new KubeconfigError(
      `kubeconfig ${files.join(', ')} has no current context: pass --context NAME (it has ${listContexts(config)})`,
    );
  }
  if (!config.getContextObject(wanted)) {
    throw new KubeconfigError(
      `context "${wanted}" is not in kubeconfig ${files.join(', ')} (it has ${listContexts(config)})`,
    );
  }
  config.setCurrentContext(wanted);
  if (!config.getCurrentCluster()) {
    throw new KubeconfigError(
      `context "${wanted}" in kubeconfig ${files.join(', ')} names a cluster that is not there`,
    );
  }
  return config;
}

/** The identity of the cluster `source` selects. */
export function identifyCluster(source: KubeconfigSource): ClusterIdentity {
  const config = loadKubeconfig(source);
  const server = config.getCurrentCluster()?.server ?? '';
  if ('inCluster' in source) return { source: 'in-cluster', server };
  return {
    source: 'kubeconfig',
    context: config.getCurrentContext(),
    server,
    files: source.kubeconfigPaths.filter((path) => existsSync(path)),
  };
}

/** One line for a person: `context prod (https://…, from ~/.kube/config)`. */
export function describeCluster(identity: ClusterIdentity): string {
  switch (identity.source) {
    case 'mock':
      return `mock cluster${identity.scenario ? `, scenario ${identity.scenario}` : ''} (${identity.server})`;
    case 'in-cluster':
      return `in-cluster service account (${identity.server})`;
    case 'kubeconfig':
      return `context ${identity.context ?? '(current)'} (${identity.server}, from ${(identity.files ?? []).join(', ')})`;
  }
}

function listContexts(config: KubeConfig): string {
  const names = config.getContexts().map((context) => context.name);
  return names.length > 0 ? `contexts: ${names.join(', ')}` : 'no contexts';
}
