/**
 * kube-state-metrics' storage families: PersistentVolumeClaims (which class, which
 * volume, which phase, which access modes) and PersistentVolumes (phase), so a claim stuck
 * in Pending shows.
 */
import { text, type MetricDefinitions, type MetricSample } from './metrics-format.ts';
import { isRecord, type KubeObject } from './types.ts';

export const STORAGE_METRICS: MetricDefinitions = {
  kube_persistentvolumeclaim_info: { help: 'Information about persistent volume claim.', type: 'gauge' },
  kube_persistentvolumeclaim_status_phase: {
    help: 'The phase the persistent volume claim is currently in.',
    type: 'gauge',
  },
  kube_persistentvolumeclaim_access_mode: {
    help: 'The access mode(s) specified by the persistent volume claim.',
    type: 'gauge',
  },
  kube_persistentvolume_info: { help: 'Information about persistentvolume.', type: 'gauge' },
  kube_persistentvolume_status_phase: {
    help: 'The phase indicates if a volume is available, bound to a claim, or released by a claim.',
    type: 'gauge',
  },
};

const CLAIM_PHASES = ['Lost', 'Bound', 'Pending'];
const VOLUME_PHASES = ['Pending', 'Available', 'Bound', 'Released', 'Failed'];

/** Samples for every claim and volume. */
export function collectStorageMetrics(input: {
  claims: readonly KubeObject[];
  volumes: readonly KubeObject[];
}): MetricSample[] {
  return [...input.claims.flatMap(claimSamples), ...input.volumes.flatMap(volumeSamples)];
}

function claimSamples(claim: KubeObject): MetricSample[] {
  const spec = isRecord(claim['spec']) ? claim['spec'] : {};
  const status = isRecord(claim['status']) ? claim['status'] : {};
  const labels = { namespace: text(claim.metadata.namespace), persistentvolumeclaim: claim.metadata.name };
  // The beta annotation still wins over the field where both are set, as in kube-state-metrics.
  const storageClass =
    text(claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class']) || text(spec['storageClassName']);
  const phase = text(status['phase']);
  const accessModes = Array.isArray(spec['accessModes']) ? spec['accessModes'].map(text).filter(Boolean) : [];
  return [
    {
      name: 'kube_persistentvolumeclaim_info',
      labels: {
        ...labels,
        storageclass: storageClass,
        volumename: text(spec['volumeName']),
        volumemode: text(spec['volumeMode']),
      },
      value: 1,
    },
    ...(phase
      ? CLAIM_PHASES.map((candidate) => ({
          name: 'kube_persistentvolumeclaim_status_phase',
          labels: { ...labels, phase: candidate },
          value: candidate === phase ? 1 : 0,
        }))
      : []),
    ...accessModes.map((mode) => ({
      name: 'kube_persistentvolumeclaim_access_mode',
      labels: { ...labels, access_mode: mode },
      value: 1,
    })),
  ];
}

function volumeSamples(volume: KubeObject): MetricSample[] {
  const spec = isRecord(volume['spec']) ? volume['spec'] : {};
  const status = isRecord(volume['status']) ? volume['status'] : {};
  const claimRef = isRecord(spec['claimRef']) ? spec['claimRef'] : {};
  const labels = { persistentvolume: volume.metadata.name };
  const phase = text(status['phase']);
  return [
    {
      name: 'kube_persistentvolume_info',
      labels: {
        ...labels,
        storageclass: text(spec['storageClassName']),
        claim_namespace: text(claimRef['namespace']),
        claim_name: text(claimRef['name']),
      },
      value: 1,
    },
    ...(phase
      ? VOLUME_PHASES.map((candidate) => ({
          name: 'kube_persistentvolume_status_phase',
          labels: { ...labels, phase: candidate },
          value: candidate === phase ? 1 : 0,
        }))
      : []),
  ];
}
