/**
 * What changed between two pod templates (two rollout revisions), as entries a model and
 * the offline engine can quote: `{container: 'app', field: 'env DB_PASSWORD',
 * from: 'secretKeyRef checkout-db/password', to: 'secretKeyRef checkout-db/password-old'}`.
 */
import type { ContainerSpecData, EnvFromData, EnvVarData, PodTemplateData, VolumeData } from './pod-template.ts';

export interface TemplateDiffEntry {
  /** The container the change is in; absent for pod-level fields. */
  container?: string;
  /** `image`, `env NAME`, `envFrom secretRef/NAME`, `resources limits.memory`, `probe liveness`, `volume NAME`, `command`, `args`... */
  field: string;
  /** Absent when the field was added. */
  from?: string;
  /** Absent when the field was removed. */
  to?: string;
}

/** `secretKeyRef checkout-db/password`, `value "debug"`, `fieldRef status.podIP`. */
export function describeEnvVar(variable: EnvVarData): string {
  const source = variable.source;
  if (!source) return `value ${JSON.stringify(variable.value ?? '')}`;
  if (source.kind === 'secretKeyRef' || source.kind === 'configMapKeyRef') {
    return `${source.kind} ${source.name ?? ''}/${source.key ?? ''}${source.optional ? ' (optional)' : ''}`;
  }
  return `${source.kind} ${source.fieldPath ?? ''}`;
}

/** `secret checkout-db`, `configMap app-config keys=a,b`, `persistentVolumeClaim data`. */
export function describeVolume(volume: VolumeData): string {
  if (volume.kind === 'projected') {
    const sources = (volume.sources ?? []).map(
      (source) => `${source.kind} ${source.sourceName}${source.optional ? ' (optional)' : ''}`,
    );
    return `projected ${sources.join(' + ') || '(service account token)'}`;
  }
  const keys = volume.keys?.length ? ` keys=${volume.keys.join(',')}` : '';
  return `${volume.kind}${volume.sourceName ? ` ${volume.sourceName}` : ''}${keys}${volume.optional ? ' (optional)' : ''}`;
}

function describeEnvFrom(source: EnvFromData): string {
  return `${source.kind} ${source.name}${source.prefix ? ` prefix=${source.prefix}` : ''}${source.optional ? ' (optional)' : ''}`;
}

function describeList(values: readonly string[] | undefined): string | undefined {
  return values && values.length ? JSON.stringify(values) : undefined;
}

function describeRecord(values: Record<string, string> | undefined): string | undefined {
  return values && Object.keys(values).length
    ? Object.entries(values)
        .sort(([left], [right]) => left.localeCompare(right))
        .map(([key, value]) => `${key}=${value}`)
        .join(',')
    : undefined;
}

/** Compares two keyed maps of descriptions and records every addition, removal and change. */
function compareKeyed(input: {
  entries: TemplateDiffEntry[];
  container?: string;
  prefix: string;
  before: Map<string, string>;
  after: Map<string, string>;
}): void {
  const keys = new Set([...input.before.keys(), ...input.after.keys()]);
  for (const key of keys) {
    const from = input.before.get(key);
    const to = input.after.get(key);
    if (from === to) continue;
    input.entries.push({
      ...(input.container ? { container: input.container } : {}),
      field: `${input.prefix}${key}`,
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
    });
  }
}

function compareValue(input: {
  entries: TemplateDiffEntry[];
  container?: string;
  field: string;
  from: string | undefined;
  to: string | undefined;
}): void {
  if (input.from === input.to) return;
  input.entries.push({
    ...(input.container ? { container: input.container } : {}),
    field: input.field,
    ...(input.from !== undefined ? { from: input.from } : {}),
    ...(input.to !== undefined ? { to: input.to } : {}),
  });
}

function containerFacts(container: ContainerSpecData): Map<string, string> {
  const facts = new Map<string, string>();
  facts.set('image', container.image);
  const command = describeList(container.command);
  if (command) facts.set('command', command);
  const args = describeList(container.args);
  if (args) facts.set('args', args);
  for (const variable of container.env) facts.set(`env ${variable.name}`, describeEnvVar(variable));
  for (const source of container.envFrom) facts.set(`envFrom ${source.kind}/${source.name}`, describeEnvFrom(source));
  for (const [name, quantity] of Object.entries(container.resources.requests ?? {}))
    facts.set(`resources requests.${name}`, quantity);
  for (const [name, quantity] of Object.entries(container.resources.limits ?? {}))
    facts.set(`resources limits.${name}`, quantity);
  for (const probe of container.probes) facts.set(`probe ${probe.kind}`, probe.summary);
  const ports = container.ports.map((port) => `${port.containerPort}${port.name ? `/${port.name}` : ''}`).join(',');
  if (ports) facts.set('ports', ports);
  for (const mount of container.volumeMounts)
    facts.set(
      `mount ${mount.mountPath}`,
      `${mount.name}${mount.subPath ? ` subPath=${mount.subPath}` : ''}${mount.readOnly ? ' (ro)' : ''}`,
    );
  return facts;
}

/** Every difference from `before` to `after`; empty when the templates say the same. */
export function diffPodTemplates(before: PodTemplateData, after: PodTemplateData): TemplateDiffEntry[] {
  const entries: TemplateDiffEntry[] = [];
  const beforeContainers = new Map(before.containers.map((container) => [container.name, container]));
  const afterContainers = new Map(after.containers.map((container) => [container.name, container]));
  for (const name of new Set([...beforeContainers.keys(), ...afterContainers.keys()])) {
    const left = beforeContainers.get(name);
    const right = afterContainers.get(name);
    // A container swapped for another (a sidecar's v1 for its v2) differs in how it runs as much as in its image.
    const label = (container: ContainerSpecData): string => {
      const runs = [...(container.command ?? []), ...(container.args ?? [])].join(' ');
      return `${container.init ? 'init container' : 'container'} image ${container.image}${runs ? `, runs ${runs.length > 200 ? `${runs.slice(0, 200)}…` : runs}` : ''}`;
    };
    if (!left || !right) {
      compareValue({
        entries,
        container: name,
        field: 'container',
        from: left ? label(left) : undefined,
        to: right ? label(right) : undefined,
      });
      continue;
    }
    compareKeyed({ entries, container: name, prefix: '', before: containerFacts(left), after: containerFacts(right) });
  }
  compareKeyed({
    entries,
    prefix: 'volume ',
    before: new Map(before.volumes.map((volume) => [volume.name, describeVolume(volume)])),
    after: new Map(after.volumes.map((volume) => [volume.name, describeVolume(volume)])),
  });
  compareValue({ entries, field: 'serviceAccountName', from: before.serviceAccountName, to: after.serviceAccountName });
  compareValue({
    entries,
    field: 'nodeSelector',
    from: describeRecord(before.nodeSelector),
    to: describeRecord(after.nodeSelector),
  });
  compareValue({
    entries,
    field: 'tolerations',
    from: describeList(before.tolerations),
    to: describeList(after.tolerations),
  });
  compareValue({ entries, field: 'affinity', from: describeList(before.affinity), to: describeList(after.affinity) });
  compareValue({
    entries,
    field: 'imagePullSecrets',
    from: describeList(before.imagePullSecrets),
    to: describeList(after.imagePullSecrets),
  });
  compareValue({ entries, field: 'priorityClassName', from: before.priorityClassName, to: after.priorityClassName });
  compareValue({
    entries,
    field: 'dnsPolicy',
    from: before.dnsPolicy ?? 'ClusterFirst',
    to: after.dnsPolicy ?? 'ClusterFirst',
  });
  compareValue({ entries, field: 'dnsConfig', from: before.dnsConfig, to: after.dnsConfig });
  // Injected sidecars and agents are configured through the template's annotations.
  compareKeyed({
    entries,
    prefix: 'annotation ',
    before: new Map(Object.entries(before.annotations ?? {})),
    after: new Map(Object.entries(after.annotations ?? {})),
  });
  return entries;
}

/** One line per entry: `app: env DB_PASSWORD: secretKeyRef a/b -> secretKeyRef a/c`. */
export function formatDiffEntry(entry: TemplateDiffEntry): string {
  const where = entry.container ? `${entry.container}: ` : '';
  if (entry.from === undefined) return `${where}${entry.field} added: ${entry.to ?? ''}`;
  if (entry.to === undefined) return `${where}${entry.field} removed (was ${entry.from})`;
  return `${where}${entry.field}: ${entry.from} -> ${entry.to}`;
}
