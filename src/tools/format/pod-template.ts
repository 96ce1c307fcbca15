/**
 * What a pod spec says, reduced to what explains an incident: per container the image,
 * command and args, env var names with their secret and configmap references, envFrom,
 * resources, probes and mounts; per pod the volumes' sources, service account, placement
 * and pull secrets. Plain env values pass through the redactor here, at the source.
 */
import type { V1Container, V1PodSpec, V1Probe, V1Volume } from '@kubernetes/client-node';
import { fingerprintSecret, redactNamedValue, redactValue } from '../../redact/redactor.ts';
import { describeAffinity, singleTermRequirements, type NodeRequirementData } from './placement.ts';

export interface EnvVarData {
  name: string;
  /** A literal value, already redacted. */
  value?: string;
  source?: {
    kind: 'secretKeyRef' | 'configMapKeyRef' | 'fieldRef' | 'resourceFieldRef';
    name?: string;
    key?: string;
    optional?: boolean;
    fieldPath?: string;
  };
}

export interface EnvFromData {
  kind: 'secretRef' | 'configMapRef';
  name: string;
  prefix?: string;
  optional?: boolean;
}

export interface ProbeData {
  kind: 'liveness' | 'readiness' | 'startup';
  handler: 'httpGet' | 'tcpSocket' | 'exec' | 'grpc' | 'none';
  port?: number | string;
  path?: string;
  command?: string[];
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
  /** One line with the spec's own field names, e.g. `http-get :8080/healthz initialDelaySeconds=0 timeoutSeconds=1 periodSeconds=10 failureThreshold=3`. */
  summary: string;
}

export interface ContainerSpecData {
  name: string;
  init: boolean;
  image: string;
  command?: string[];
  args?: string[];
  ports: Array<{ containerPort: number; name?: string; protocol?: string }>;
  env: EnvVarData[];
  envFrom: EnvFromData[];
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  probes: ProbeData[];
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean; subPath?: string }>;
}

export interface VolumeData {
  name: string;
  kind:
    'configMap' | 'secret' | 'persistentVolumeClaim' | 'emptyDir' | 'hostPath' | 'projected' | 'downwardAPI' | 'other';
  /** The ConfigMap, Secret or claim it reads (`secretName`, `claimName`...). */
  sourceName?: string;
  optional?: boolean;
  /** Keys the volume picks (`items`), when it picks some. */
  keys?: string[];
  /** For projected volumes: each configMap or secret source. */
  sources?: Array<{ kind: 'configMap' | 'secret'; sourceName: string; optional?: boolean }>;
}

export interface PodTemplateData {
  containers: ContainerSpecData[];
  volumes: VolumeData[];
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
  tolerations: string[];
  /** Whether node or pod (anti-)affinity rules constrain placement. */
  affinity?: string[];
  /** Each affinity rule with its keys, values and topology key (`nodeAffinity required kubernetes.io/arch in (arm64)`). */
  affinityRules?: string[];
  /** The required node affinity's expressions when it has one term (a DaemonSet pod's `metadata.name in [node]` pin among them). */
  requiredNodeAffinity?: NodeRequirementData[];
  imagePullSecrets: string[];
  priorityClassName?: string;
  /** Set only when not the default (ClusterFirst): where the pod's DNS lookups go. */
  dnsPolicy?: string;
  /** `nameservers=...; searches=...` of a custom dnsConfig. */
  dnsConfig?: string;
  /** The template's annotations that configure the pod (sidecar injectors, agents), when read from a revision. */
  annotations?: Record<string, string>;
}

/** Annotations that only record a restart or a tool's bookkeeping, never how the pod runs. */
const BOOKKEEPING_ANNOTATIONS =
  /^(kubectl\.kubernetes\.io\/restartedAt|kubectl\.kubernetes\.io\/last-applied-configuration|deployment\.kubernetes\.io\/|kubernetes\.io\/change-cause$)/;

/** The template's annotations that say how its pods run, or undefined when there are none. */
export function templateAnnotations(
  annotations: Record<string, string> | undefined,
): Record<string, string> | undefined {
  const kept = Object.entries(annotations ?? {}).filter(([key]) => !BOOKKEEPING_ANNOTATIONS.test(key));
  // An annotation may carry a token (an agent's credentials): masked by its name before it reaches any diff.
  return kept.length
    ? Object.fromEntries(kept.map(([key, value]) => [key, shorten(redactNamedValue(key, value))]))
    : undefined;
}

function shorten(value: string): string {
  return value.length > 120 ? `${value.slice(0, 117)}...` : value;
}

function summarizeProbe(kind: ProbeData['kind'], probe: V1Probe): ProbeData {
  const timing = {
    initialDelaySeconds: probe.initialDelaySeconds ?? 0,
    periodSeconds: probe.periodSeconds ?? 10,
    timeoutSeconds: probe.timeoutSeconds ?? 1,
    failureThreshold: probe.failureThreshold ?? 3,
  };
  const timingText = `initialDelaySeconds=${timing.initialDelaySeconds} timeoutSeconds=${timing.timeoutSeconds} periodSeconds=${timing.periodSeconds} failureThreshold=${timing.failureThreshold}`;
  if (probe.httpGet) {
    const scheme = (probe.httpGet.scheme ?? 'HTTP').toLowerCase();
    const port = probe.httpGet.port as number | string;
    const path = probe.httpGet.path ?? '/';
    return { kind, handler: 'httpGet', port, path, ...timing, summary: `${scheme}-get :${port}${path} ${timingText}` };
  }
  if (probe.tcpSocket) {
    const port = probe.tcpSocket.port as number | string;
    return { kind, handler: 'tcpSocket', port, ...timing, summary: `tcp-socket :${port} ${timingText}` };
  }
  if (probe.exec) {
    const command = (probe.exec.command ?? []).map((part) => redactValue(part));
    return { kind, handler: 'exec', command, ...timing, summary: `exec [${command.join(' ')}] ${timingText}` };
  }
  if (probe.grpc) {
    return {
      kind,
      handler: 'grpc',
      port: probe.grpc.port,
      ...timing,
      summary: `grpc :${probe.grpc.port} ${timingText}`,
    };
  }
  return { kind, handler: 'none', ...timing, summary: `(no handler) ${timingText}` };
}

function summarizeEnv(container: V1Container): EnvVarData[] {
  return (container.env ?? []).map((variable): EnvVarData => {
    const from = variable.valueFrom;
    if (from?.secretKeyRef) {
      return {
        name: variable.name,
        source: {
          kind: 'secretKeyRef',
          name: from.secretKeyRef.name,
          key: from.secretKeyRef.key,
          ...(from.secretKeyRef.optional ? { optional: true } : {}),
        },
      };
    }
    if (from?.configMapKeyRef) {
      return {
        name: variable.name,
        source: {
          kind: 'configMapKeyRef',
          name: from.configMapKeyRef.name,
          key: from.configMapKeyRef.key,
          ...(from.configMapKeyRef.optional ? { optional: true } : {}),
        },
      };
    }
    if (from?.fieldRef)
      return { name: variable.name, source: { kind: 'fieldRef', fieldPath: from.fieldRef.fieldPath } };
    if (from?.resourceFieldRef)
      return { name: variable.name, source: { kind: 'resourceFieldRef', fieldPath: from.resourceFieldRef.resource } };
    const value = variable.value ?? '';
    const redacted = redactNamedValue(variable.name, value);
    // A masked value keeps a fingerprint, so a changed password still shows as a change.
    return { name: variable.name, value: redacted === value ? value : `${redacted} ${fingerprintSecret(value)}` };
  });
}

function stringifyQuantities(values: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (!values || Object.keys(values).length === 0) return undefined;
  return Object.fromEntries(Object.entries(values).map(([name, quantity]) => [name, String(quantity)]));
}

function summarizeContainer(container: V1Container, init: boolean): ContainerSpecData {
  const probes: ProbeData[] = [];
  if (container.livenessProbe) probes.push(summarizeProbe('liveness', container.livenessProbe));
  if (container.readinessProbe) probes.push(summarizeProbe('readiness', container.readinessProbe));
  if (container.startupProbe) probes.push(summarizeProbe('startup', container.startupProbe));
  const requests = stringifyQuantities(container.resources?.requests);
  const limits = stringifyQuantities(container.resources?.limits);
  return {
    name: container.name,
    init,
    image: container.image ?? '',
    ...(container.command?.length ? { command: redactValue(container.command) } : {}),
    ...(container.args?.length ? { args: redactValue(container.args) } : {}),
    ports: (container.ports ?? []).map((port) => ({
      containerPort: port.containerPort,
      ...(port.name ? { name: port.name } : {}),
      ...(port.protocol && port.protocol !== 'TCP' ? { protocol: port.protocol } : {}),
    })),
    env: summarizeEnv(container),
    envFrom: (container.envFrom ?? []).flatMap((source): EnvFromData[] => {
      const common = { ...(source.prefix ? { prefix: source.prefix } : {}) };
      if (source.secretRef)
        return [
          {
            kind: 'secretRef',
            name: source.secretRef.name ?? '',
            ...common,
            ...(source.secretRef.optional ? { optional: true } : {}),
          },
        ];
      if (source.configMapRef)
        return [
          {
            kind: 'configMapRef',
            name: source.configMapRef.name ?? '',
            ...common,
            ...(source.configMapRef.optional ? { optional: true } : {}),
          },
        ];
      return [];
    }),
    resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
    probes,
    volumeMounts: (container.volumeMounts ?? []).map((mount) => ({
      name: mount.name,
      mountPath: mount.mountPath,
      ...(mount.readOnly ? { readOnly: true } : {}),
      ...(mount.subPath ? { subPath: mount.subPath } : {}),
    })),
  };
}

function summarizeVolume(volume: V1Volume): VolumeData {
  if (volume.configMap) {
    const keys = volume.configMap.items?.map((item) => item.key);
    return {
      name: volume.name,
      kind: 'configMap',
      sourceName: volume.configMap.name ?? '',
      ...(volume.configMap.optional ? { optional: true } : {}),
      ...(keys ? { keys } : {}),
    };
  }
  if (volume.secret) {
    const keys = volume.secret.items?.map((item) => item.key);
    return {
      name: volume.name,
      kind: 'secret',
      sourceName: volume.secret.secretName ?? '',
      ...(volume.secret.optional ? { optional: true } : {}),
      ...(keys ? { keys } : {}),
    };
  }
  if (volume.persistentVolumeClaim)
    return { name: volume.name, kind: 'persistentVolumeClaim', sourceName: volume.persistentVolumeClaim.claimName };
  if (volume.emptyDir) return { name: volume.name, kind: 'emptyDir' };
  if (volume.hostPath) return { name: volume.name, kind: 'hostPath', sourceName: volume.hostPath.path };
  if (volume.downwardAPI) return { name: volume.name, kind: 'downwardAPI' };
  if (volume.projected) {
    const sources = (volume.projected.sources ?? []).flatMap((source): NonNullable<VolumeData['sources']> => {
      if (source.configMap)
        return [
          {
            kind: 'configMap',
            sourceName: source.configMap.name ?? '',
            ...(source.configMap.optional ? { optional: true } : {}),
          },
        ];
      if (source.secret)
        return [
          {
            kind: 'secret',
            sourceName: source.secret.name ?? '',
            ...(source.secret.optional ? { optional: true } : {}),
          },
        ];
      return [];
    });
    return { name: volume.name, kind: 'projected', ...(sources.length ? { sources } : {}) };
  }
  return { name: volume.name, kind: 'other' };
}

/** The facts of a pod spec (or a workload's pod template spec). */
export function summarizePodSpec(spec: V1PodSpec | undefined): PodTemplateData {
  const affinity: string[] = [];
  if (spec?.affinity?.nodeAffinity) affinity.push('nodeAffinity');
  if (spec?.affinity?.podAffinity) affinity.push('podAffinity');
  if (spec?.affinity?.podAntiAffinity) affinity.push('podAntiAffinity');
  const affinityRules = describeAffinity(spec?.affinity);
  const requiredNodeAffinity = singleTermRequirements(
    spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
  );
  return {
    containers: [
      ...(spec?.initContainers ?? []).map((container) => summarizeContainer(container, true)),
      ...(spec?.containers ?? []).map((container) => summarizeContainer(container, false)),
    ],
    volumes: (spec?.volumes ?? []).map(summarizeVolume),
    ...(spec?.serviceAccountName && spec.serviceAccountName !== 'default'
      ? { serviceAccountName: spec.serviceAccountName }
      : {}),
    ...(spec?.nodeSelector && Object.keys(spec.nodeSelector).length ? { nodeSelector: spec.nodeSelector } : {}),
    tolerations: (spec?.tolerations ?? [])
      // node.kubernetes.io/* tolerations are added by Kubernetes itself (defaults, DaemonSets) and explain nothing.
      .filter((toleration) => !(toleration.key ?? '').startsWith('node.kubernetes.io/'))
      .map(
        (toleration) =>
          `${toleration.key ?? '*'}${toleration.operator === 'Exists' ? '' : `=${toleration.value ?? ''}`}:${toleration.effect ?? '*'}`,
      ),
    ...(affinity.length ? { affinity } : {}),
    ...(affinityRules.length ? { affinityRules } : {}),
    ...(requiredNodeAffinity ? { requiredNodeAffinity } : {}),
    imagePullSecrets: (spec?.imagePullSecrets ?? []).map((secret) => secret.name ?? '').filter(Boolean),
    ...(spec?.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}),
    ...(spec?.dnsPolicy && spec.dnsPolicy !== 'ClusterFirst' ? { dnsPolicy: spec.dnsPolicy } : {}),
    ...(spec?.dnsConfig ? { dnsConfig: describeDnsConfig(spec.dnsConfig) } : {}),
  };
}

function describeDnsConfig(config: NonNullable<V1PodSpec['dnsConfig']>): string {
  const parts = [
    config.nameservers?.length ? `nameservers=${config.nameservers.join(',')}` : '',
    config.searches?.length ? `searches=${config.searches.join(',')}` : '',
    config.options?.length
      ? `options=${config.options.map((option) => (option.value ? `${option.name}:${option.value}` : option.name)).join(',')}`
      : '',
  ];
  return parts.filter(Boolean).join('; ');
}
