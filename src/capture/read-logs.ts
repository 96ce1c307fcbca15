/**
 * The current and previous container logs of the pods in trouble, bounded (the last
 * `tailLines` lines, at most `limitBytes` each, at most `maxPods` pods) and passed through
 * the redactor before they are kept. A log the kubelet will not give (a container that is
 * waiting to start, no previous container) is simply not captured.
 */
import type { ReadCluster } from '../cluster/cluster.ts';
import { redactText } from '../redact/redactor.ts';
import type { PodTrouble } from './failing-pods.ts';

export interface CapturedLog {
  namespace: string;
  pod: string;
  container: string;
  previous: boolean;
  text: string;
}

export interface LogLimits {
  tailLines: number;
  limitBytes: number;
  maxPods: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = { tailLines: 500, limitBytes: 256 * 1024, maxPods: 40 };

export async function readLogs(
  cluster: ReadCluster,
  troubles: readonly PodTrouble[],
  limits: LogLimits = DEFAULT_LOG_LIMITS,
): Promise<{ logs: CapturedLog[]; warnings: string[] }> {
  const warnings: string[] = [];
  if (troubles.length > limits.maxPods)
    warnings.push(`logs: read for the first ${limits.maxPods} of ${troubles.length} pods in trouble`);
  const requests = troubles
    .slice(0, limits.maxPods)
    .flatMap(({ pod, containers }) =>
      containers.flatMap(({ container, current, previous }) => [
        ...(current ? [{ pod, container, previous: false }] : []),
        ...(previous ? [{ pod, container, previous: true }] : []),
      ]),
    );
  const logs = await Promise.all(
    requests.map(async ({ pod, container, previous }): Promise<CapturedLog | undefined> => {
      const namespace = pod.metadata.namespace ?? 'default';
      const result = await cluster.readPodLog({
        namespace,
        name: pod.metadata.name,
        container,
        previous,
        tailLines: limits.tailLines,
        limitBytes: limits.limitBytes,
      });
      if (!result.ok || result.value === '') return undefined;
      return { namespace, pod: pod.metadata.name, container, previous, text: redactText(result.value) };
    }),
  );
  return { logs: logs.filter((log): log is CapturedLog => log !== undefined), warnings };
}
