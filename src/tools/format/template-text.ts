/**
 * A pod template as compact text: one block per container, then volumes and placement.
 * Secret and configmap references are written `<secret name/key>` so they read as
 * references and the redactor leaves them alone.
 */
import type { ContainerSpecData, EnvVarData, PodTemplateData, VolumeData } from './pod-template.ts';
import { describeVolume } from './template-diff.ts';

function formatEnvVar(variable: EnvVarData): string {
  const source = variable.source;
  if (!source) {
    const value = variable.value ?? '';
    return `${variable.name}=${/[\s,]/.test(value) || value === '' ? JSON.stringify(value) : value}`;
  }
  if (source.kind === 'secretKeyRef')
    return `${variable.name}=<secret ${source.name}/${source.key}${source.optional ? ' optional' : ''}>`;
  if (source.kind === 'configMapKeyRef')
    return `${variable.name}=<configmap ${source.name}/${source.key}${source.optional ? ' optional' : ''}>`;
  return `${variable.name}=<${source.kind} ${source.fieldPath ?? ''}>`;
}

function formatQuantities(values: Record<string, string> | undefined): string {
  return values
    ? Object.entries(values)
        .map(([name, quantity]) => `${name}=${quantity}`)
        .join(',')
    : '-';
}

/**
 * The spec lines of one container, indented under its header (which the caller writes).
 * Given the pod's volumes, each mount names its source (`/etc/app=configMap app-config`).
 */
export function formatContainerSpec(
  container: ContainerSpecData,
  options: { valueLimit?: number; volumes?: readonly VolumeData[] } = {},
): string[] {
  const limit = options.valueLimit ?? 120;
  const cut = (text: string): string => (text.length > limit ? `${text.slice(0, limit)}…` : text);
  const lines: string[] = [];
  if (container.command) lines.push(`  command: ${cut(JSON.stringify(container.command))}`);
  if (container.args) lines.push(`  args: ${cut(JSON.stringify(container.args))}`);
  if (container.ports.length)
    lines.push(
      `  ports: ${container.ports.map((port) => `${port.containerPort}${port.name ? `/${port.name}` : ''}${port.protocol ? `/${port.protocol}` : ''}`).join(', ')}`,
    );
  if (container.env.length)
    lines.push(`  env: ${container.env.map((variable) => cut(formatEnvVar(variable))).join(', ')}`);
  if (container.envFrom.length) {
    lines.push(
      `  envFrom: ${container.envFrom.map((source) => `<${source.kind === 'secretRef' ? 'secret' : 'configmap'} ${source.name}${source.optional ? ' optional' : ''}>${source.prefix ? ` prefix ${source.prefix}` : ''}`).join(', ')}`,
    );
  }
  if (container.resources.requests || container.resources.limits) {
    lines.push(
      `  resources: requests ${formatQuantities(container.resources.requests)}; limits ${formatQuantities(container.resources.limits)}`,
    );
  }
  for (const probe of container.probes) lines.push(`  ${probe.kind} probe: ${probe.summary}`);
  // The service account token mount is on every pod and explains nothing.
  const mounts = container.volumeMounts.filter((mount) => !mount.name.startsWith('kube-api-access-'));
  if (mounts.length) {
    const sources = new Map((options.volumes ?? []).map((volume) => [volume.name, describeVolume(volume)]));
    lines.push(
      `  mounts: ${mounts.map((mount) => `${mount.mountPath}${mount.subPath ? `[${mount.subPath}]` : ''}=${sources.get(mount.name) ?? mount.name}${mount.readOnly ? ' ro' : ''}`).join(', ')}`,
    );
  }
  return lines;
}

/**
 * Volumes no container mounts (the mounted ones are shown with their mounts), placement, identity.
 * With `showUnset` (one pod, as `kubectl describe pod` shows it), placement also says when the
 * pod has no nodeSelector and tolerates nothing beyond the defaults.
 */
export function formatPodLevel(template: PodTemplateData, options: { showUnset?: boolean } = {}): string[] {
  const lines: string[] = [];
  const mounted = new Set(
    template.containers.flatMap((container) => container.volumeMounts.map((mount) => mount.name)),
  );
  const volumes = template.volumes.filter(
    (volume) =>
      !mounted.has(volume.name) &&
      !(volume.kind === 'projected' && !volume.sources?.length) &&
      !volume.name.startsWith('kube-api-access-'),
  );
  if (volumes.length)
    lines.push(
      `volumes not mounted: ${volumes.map((volume) => `${volume.name}=${describeVolume(volume)}`).join('; ')}`,
    );
  const placement: string[] = [];
  if (template.nodeSelector)
    placement.push(
      `nodeSelector ${Object.entries(template.nodeSelector)
        .map(([key, value]) => `${key}=${value}`)
        .join(',')}`,
    );
  else if (options.showUnset) placement.push('nodeSelector none');
  if (template.affinityRules) placement.push(...template.affinityRules);
  else if (template.affinity) placement.push(`affinity ${template.affinity.join(',')}`);
  if (template.tolerations.length) placement.push(`tolerations ${template.tolerations.join(', ')}`);
  else if (options.showUnset) placement.push('tolerations default');
  if (template.priorityClassName) placement.push(`priorityClass ${template.priorityClassName}`);
  if (template.dnsPolicy)
    placement.push(`dnsPolicy ${template.dnsPolicy}${template.dnsConfig ? ` (${template.dnsConfig})` : ''}`);
  if (placement.length) lines.push(`placement: ${placement.join('; ')}`);
  const identity: string[] = [];
  if (template.serviceAccountName) identity.push(`serviceAccount ${template.serviceAccountName}`);
  if (template.imagePullSecrets.length) identity.push(`imagePullSecrets ${template.imagePullSecrets.join(',')}`);
  if (identity.length) lines.push(identity.join('; '));
  return lines;
}
