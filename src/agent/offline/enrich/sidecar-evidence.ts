/**
 * A client whose failing line dials localhost talks to a sidecar in its own pod (a Cloud
 * SQL proxy, an Envoy, a PgBouncer): the sidecar is the client that fails, and its own log
 * says against what. Each other container of the pod has its log read; the lines that name
 * a failure, and where the value it names is set, become evidence.
 */
import type { Case, Finding } from '../case.ts';
import { readLogSignals } from '../log-signals.ts';
import type { Query } from '../query.ts';
import { traceLine, describeValueSources } from '../trace/value-source.ts';

const LOCAL_TARGET = /(^|[^\d.])(127\.0\.0\.1|localhost|\[::1\])([^\d.]|$)|\bunix socket|\/cloudsql\//i;
const CATEGORIES = new Set(['dependency-unreachable', 'bad-credentials', 'app-crash']);
const MAX_SIDECARS = 3;

/** The containers beside the client that its failing line, dialling localhost, reaches; none when it dials elsewhere. */
export function localSidecars(finding: Finding, gathered: Case): NonNullable<Case['pod']>['spec']['containers'] {
  const pod = gathered.pod;
  if (!pod || !CATEGORIES.has(finding.category)) return [];
  const quoted = [...finding.evidence.filter((line) => line.startsWith('log: ')), ...(gathered.logs?.errorLines ?? []).slice(-10)];
  if (!quoted.some((line) => LOCAL_TARGET.test(line))) return [];
  const client = gathered.logs?.container;
  // A native sidecar is an init container that keeps running: it counts too.
  const running = new Set(pod.containers.filter((status) => status.state.state === 'running').map((status) => status.name));
  return pod.spec.containers.filter((container) => (!container.init || running.has(container.name)) && container.name !== client).slice(0, MAX_SIDECARS);
}

export function sidecarEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const pod = gathered.pod;
  const sidecars = localSidecars(finding, gathered);
  if (!pod || sidecars.length === 0) return [];
  const logs = sidecars.map((container) => ({ container, log: query.data('get_pod_logs', { namespace: pod.namespace, name: pod.name, container: container.name }) }));
  query.barrier();
  const lines: string[] = [];
  for (const { container, log } of logs) {
    if (!log) continue;
    const reading = readLogSignals([...log.errorLines, ...log.lines]);
    const failing = reading.evidence.length ? reading.evidence : reading.errorLines.slice(-2);
    if (failing.length === 0) continue;
    lines.push(`the app reaches its dependency through sidecar container ${container.name} (${container.image}), whose log says: ${failing.slice(0, 2).join(' | ').slice(0, 600)}`);
    const sources = failing.flatMap((line) => traceLine(line, { container, volumes: pod.spec.volumes, configMaps: [] }));
    lines.push(...describeValueSources(sources).slice(0, 2).map((line) => `sidecar ${container.name}: ${line}`));
    const args = [...(container.command ?? []), ...(container.args ?? [])];
    if (args.length) lines.push(`sidecar ${container.name} runs: ${args.join(' ').slice(0, 300)}`);
  }
  return lines;
}
