/** Which container the facts' log lines and listening ports belong to. */
import type { ContainerFacts, MismatchFacts } from './facts.ts';

/** The container named by `logContainer`, or the pod's only container; undefined when it cannot be told. */
export function logContainerOf({ pod, logContainer }: MismatchFacts): ContainerFacts | undefined {
  if (!pod) return undefined;
  if (logContainer) return pod.containers.find((container) => container.name === logContainer);
  return pod.containers.length === 1 ? pod.containers[0] : undefined;
}

/** `8080 (http)`, `3000, 9090 (metrics)`. */
export function describePorts(ports: readonly { readonly name?: string; readonly containerPort: number }[]): string {
  return ports
    .map((port) => (port.name ? `${port.containerPort} (${port.name})` : String(port.containerPort)))
    .join(', ');
}
