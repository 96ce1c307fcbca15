/**
 * A client whose failing line dials localhost talks to a sidecar in its own pod (a Cloud
 * SQL proxy, an Envoy, a PgBouncer): the sidecar is the client that fails, and its own log
 * says against what. Each other container of the pod has its log read; the lines that name
 * a failure, and where the value it names is set, become evidence.
 */
import type { Case, Finding } from '../case.ts';
import { readLogSignals } from '../log-signals.ts';
import { localSidecars } from '../sidecars.ts';
import type { Query } from '../query.ts';
import { traceLine, describeValueSources } from '../trace/value-source.ts';

export function sidecarEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const pod = gathered.pod;
  const sidecars = localSidecars(finding, gathered);
  if (!pod || sidecars.length === 0) return [];
  const logs = sidecars.map((container) => ({
    container,
    log: query.data('get_pod_logs', { namespace: pod.namespace, name: pod.name, container: container.name }),
  }));
  query.barrier();
  const lines: string[] = [];
  for (const { container, log } of logs) {
    if (!log) continue;
    const reading = readLogSignals([...log.errorLines, ...log.lines]);
    const failing = reading.evidence.length ? reading.evidence : reading.errorLines.slice(-2);
    if (failing.length === 0) continue;
    lines.push(
      `the app reaches its dependency through sidecar container ${container.name} (${container.image}), whose log says: ${failing.slice(0, 2).join(' | ').slice(0, 600)}`,
    );
    const sources = failing.flatMap((line) =>
      traceLine(line, { container, volumes: pod.spec.volumes, configMaps: [] }),
    );
    lines.push(
      ...describeValueSources(sources)
        .slice(0, 2)
        .map((line) => `sidecar ${container.name}: ${line}`),
    );
    const args = [...(container.command ?? []), ...(container.args ?? [])];
    if (args.length) lines.push(`sidecar ${container.name} runs: ${args.join(' ').slice(0, 300)}`);
  }
  return lines;
}
