/**
 * Where the failing value comes from, as evidence: the values the failing lines name are
 * traced through the failing container's spec and the ConfigMaps it reads (each read with
 * list_config_maps, values redacted), and the newest rollout revision is checked for the
 * change. A port a client dials that the Service it resolved to does not expose is named
 * beside the ports the Service does expose.
 */
import type { ConfigMapSummaryData } from '../../../tools/list-config-maps.ts';
import type { ContainerSpecData, PodTemplateData } from '../../../tools/format/pod-template.ts';
import type { ResolvedHostData } from '../../../tools/resolve-host.ts';
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';
import { historyOf, latestChange } from '../remediation.ts';
import { viewCase } from '../rules/view.ts';
import { readFailingValuesIn, type FailingValue } from '../trace/failing-values.ts';
import { describeValueSources, traceValues } from '../trace/value-source.ts';

/** The categories whose failing line names a value the spec may have set. */
const TRACED = new Set(['dependency-unreachable', 'bad-credentials', 'app-crash', 'init-failure', 'probe-failure']);
const MAX_CONFIG_MAPS = 4;
const MAX_LINES = 3;

export function valueSourceEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const pod = gathered.pod;
  if (!pod || !TRACED.has(finding.category)) return [];
  const status = viewCase(gathered).container;
  const container = pod.spec.containers.find((spec) => spec.name === status?.name && spec.init === status?.init);
  if (!container) return [];
  const values = failingValues(finding, gathered, status?.state.message);
  if (values.length === 0) return [];
  const configMaps = readConfigMaps(container, pod.spec, pod.namespace, query);
  const change = latestChange(historyOf(gathered));
  const sources = traceValues(values, {
    container,
    volumes: pod.spec.volumes,
    configMaps,
    ...(change ? { change: { revision: change.toRevision, entries: change.changes } } : {}),
  });
  const lines = describeValueSources(sources)
    .slice(0, MAX_LINES)
    .map((line) => `${container.init ? 'init container' : 'container'} ${container.name}: ${line}`);
  return [...lines, ...servicePortEvidence(values, query)];
}

/** The values named by the lines the finding quotes, then by the rest of the log's errors and the container's own message. */
function failingValues(finding: Finding, gathered: Case, message: string | undefined): FailingValue[] {
  const quoted = finding.evidence.filter((line) => line.startsWith('log: ')).map((line) => line.slice(5));
  const lines = [
    ...quoted,
    ...continuations(quoted, gathered.logs?.lines ?? []),
    ...(message ? [message] : []),
    ...(gathered.logs?.errorLines ?? []).slice(-20),
  ];
  return readFailingValuesIn(lines).slice(0, 8);
}

/** The indented lines right after a quoted error: where many parsers say the file and line (PyYAML's `  in "/etc/app.yaml", line 25`). */
function continuations(quoted: readonly string[], log: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of quoted) {
    // The same line, quoted whole or with its time cut; an empty log line is the end of nothing.
    const at = log.findIndex(
      (candidate) => candidate.trim() !== '' && (candidate.endsWith(line) || line.endsWith(candidate)),
    );
    for (let next = at + 1; at >= 0 && next < log.length && next <= at + 3 && /^\s+\S/.test(log[next]!); next++)
      found.push(log[next]!);
  }
  return found;
}

/** The ConfigMaps the container reads (env refs, envFrom, mounted volumes), with their values. */
function readConfigMaps(
  container: ContainerSpecData,
  spec: PodTemplateData,
  namespace: string,
  query: Query,
): ConfigMapSummaryData[] {
  const mounted = new Set(container.volumeMounts.map((mount) => mount.name));
  const names = new Set<string>();
  for (const variable of container.env)
    if (variable.source?.kind === 'configMapKeyRef' && variable.source.name) names.add(variable.source.name);
  for (const source of container.envFrom) if (source.kind === 'configMapRef') names.add(source.name);
  for (const volume of spec.volumes) {
    if (!mounted.has(volume.name)) continue;
    if (volume.kind === 'configMap' && volume.sourceName) names.add(volume.sourceName);
    for (const source of volume.sources ?? []) if (source.kind === 'configMap') names.add(source.sourceName);
  }
  // Every pod mounts the cluster's CA bundle: it sets no value of the app's.
  names.delete('kube-root-ca.crt');
  const read = [...names].slice(0, MAX_CONFIG_MAPS).map((name) => query.data('list_config_maps', { namespace, name }));
  query.barrier();
  return read.flatMap((data) => data?.configMaps ?? []);
}

/** A port the client dials that the Service its host resolved to does not expose. */
function servicePortEvidence(values: readonly FailingValue[], query: Query): string[] {
  const ports = values.filter((value) => value.kind === 'port').map((value) => Number(value.value));
  if (ports.length === 0) return [];
  const resolved = query.investigation.dataOf<ResolvedHostData>('resolve_host').filter((data) => data.service);
  const lines: string[] = [];
  for (const data of resolved) {
    const service = data.service!;
    const exposed = service.ports.map((port) => port.port);
    const dialed = data.port ?? ports.find((port) => !exposed.includes(port));
    if (dialed === undefined || exposed.includes(dialed)) continue;
    lines.push(
      `Service ${service.namespace}/${service.name} exposes port ${exposed.join(', ') || '(none)'}, not ${dialed}, the port the client dials`,
    );
  }
  return lines;
}
