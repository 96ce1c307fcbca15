/**
 * The `meta.k8s.io/v1` Table that `kubectl get` asks for: the columns and cells the API
 * server's printers produce for each built-in kind (priority-1 columns are what `-o wide`
 * adds), NAME and AGE for any other kind. Ages are computed against the cluster's clock.
 */
import { summarizePod, type PodShape } from './pod-status.ts';
import { formatLabelSelector } from './selectors.ts';
import { autoscalerTargets, endpointSliceAddresses, endpointSlicePorts } from './table-lists.ts';
import {
  text,
  number,
  list,
  map,
  age,
  containerCells,
  formatLabels,
  accessModes,
  storageClassOf,
  endpointsText,
  serviceExternalIp,
  nodeStatus,
  nodeRoles,
  nodeAddress,
  jobStatus,
  jobCompletions,
  jobDuration,
  quotaColumns,
} from './table-cells.ts';
import type { JsonRecord, KubeObject } from './types.ts';
import { isRecord, readPath } from './types.ts';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

type Cell = string | number | boolean;

interface Printer {
  columns: ColumnDefinition[];
  cells(object: KubeObject, now: number): Cell[];
}

function column(
  name: string,
  options: { type?: string; priority?: number; format?: string; description?: string } = {},
): ColumnDefinition {
  return {
    name,
    type: options.type ?? 'string',
    format: options.format ?? '',
    description: options.description ?? name,
    priority: options.priority ?? 0,
  };
}

const NAME = column('Name', { format: 'name', description: 'Name must be unique within a namespace.' });
const AGE = column('Age', {
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
});
const wide = (name: string, type = 'string'): ColumnDefinition => column(name, { priority: 1, type });

function eventCells(object: KubeObject, now: number): Cell[] {
  const first = text(object, 'firstTimestamp') || text(object, 'eventTime');
  const series = readPath(object, 'series');
  const last = isRecord(series) ? text(series, 'lastObservedTime') : text(object, 'lastTimestamp') || first;
  const count = isRecord(series) ? number(series, 'count') : number(object, 'count') || 1;
  const kind = text(object, 'involvedObject.kind').toLowerCase();
  const name = text(object, 'involvedObject.name');
  const component = text(object, 'source.component') || text(object, 'reportingComponent');
  const host = text(object, 'source.host') || text(object, 'reportingInstance');
  return [
    age(last, now),
    text(object, 'type'),
    text(object, 'reason'),
    name ? `${kind}/${name}` : kind,
    text(object, 'involvedObject.fieldPath'),
    host ? `${component}, ${host}` : component,
    text(object, 'message').trim(),
    age(first, now),
    count,
    object.metadata.name,
  ];
}

const PRINTERS: Record<string, Printer> = {
  Pod: {
    columns: [
      NAME,
      column('Ready'),
      column('Status'),
      column('Restarts'),
      AGE,
      wide('IP'),
      wide('Node'),
      wide('Nominated Node'),
      wide('Readiness Gates'),
    ],
    cells: (object, now) => {
      const pod = summarizePod(object as PodShape, now);
      return [
        pod.name,
        pod.ready,
        pod.status,
        pod.restarts,
        pod.age,
        pod.ip,
        pod.node,
        pod.nominatedNode,
        pod.readinessGates,
      ];
    },
  },
  Deployment: {
    columns: [
      NAME,
      column('Ready'),
      column('Up-to-date'),
      column('Available'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells: (object, now) => [
      object.metadata.name,
      `${number(object, 'status.readyReplicas')}/${readPath(object, 'spec.replicas') ?? 1}`,
      number(object, 'status.updatedReplicas'),
      number(object, 'status.availableReplicas'),
      age(object.metadata.creationTimestamp, now),
      ...containerCells(object, 'spec.template.spec'),
      formatLabelSelector(readPath(object, 'spec.selector')),
    ],
  },
  ReplicaSet: {
    columns: [
      NAME,
      column('Desired', { type: 'integer' }),
      column('Current', { type: 'integer' }),
      column('Ready', { type: 'integer' }),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells: (object, now) => [
      object.metadata.name,
      Number(readPath(object, 'spec.replicas') ?? 1),
      number(object, 'status.replicas'),
      number(object, 'status.readyReplicas'),
      age(object.metadata.creationTimestamp, now),
      ...containerCells(object, 'spec.template.spec'),
      formatLabelSelector(readPath(object, 'spec.selector')),
    ],
  },
  StatefulSet: {
    columns: [NAME, column('Ready'), AGE, wide('Containers'), wide('Images')],
    cells: (object, now) => [
      object.metadata.name,
      `${number(object, 'status.readyReplicas')}/${readPath(object, 'spec.replicas') ?? 1}`,
      age(object.metadata.creationTimestamp, now),
      ...containerCells(object, 'spec.template.spec'),
    ],
  },
  DaemonSet: {
    columns: [
      NAME,
      column('Desired', { type: 'integer' }),
      column('Current', { type: 'integer' }),
      column('Ready', { type: 'integer' }),
      column('Up-to-date', { type: 'integer' }),
      column('Available', { type: 'integer' }),
      column('Node Selector'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells: (object, now) => [
      object.metadata.name,
      number(object, 'status.desiredNumberScheduled'),
      number(object, 'status.currentNumberScheduled'),
      number(object, 'status.numberReady'),
      number(object, 'status.updatedNumberScheduled'),
      number(object, 'status.numberAvailable'),
      formatLabels(map(object, 'spec.template.spec.nodeSelector')),
      age(object.metadata.creationTimestamp, now),
      ...containerCells(object, 'spec.template.spec'),
      formatLabelSelector(readPath(object, 'spec.selector')),
    ],
  },
  Job: {
    columns: [
      NAME,
      column('Status'),
      column('Completions'),
      column('Duration'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells: (object, now) => [
      object.metadata.name,
      jobStatus(object),
      jobCompletions(object),
      jobDuration(object, now),
      age(object.metadata.creationTimestamp, now),
      ...containerCells(object, 'spec.template.spec'),
      formatLabelSelector(readPath(object, 'spec.selector')),
    ],
  },
  CronJob: {
    columns: [
      NAME,
      column('Schedule'),
      column('Timezone'),
      column('Suspend', { type: 'boolean' }),
      column('Active', { type: 'integer' }),
      column('Last Schedule'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells: (object, now) => [
      object.metadata.name,
      text(object, 'spec.schedule'),
      text(object, 'spec.timeZone', '<none>'),
      readPath(object, 'spec.suspend') === true,
      list(object, 'status.active').length,
      text(object, 'status.lastScheduleTime') ? age(text(object, 'status.lastScheduleTime'), now) : '<none>',
      age(object.metadata.creationTimestamp, now),
      ...containerCells(object, 'spec.jobTemplate.spec.template.spec'),
      formatLabelSelector(readPath(object, 'spec.jobTemplate.spec.selector')),
    ],
  },
  Service: {
    columns: [
      NAME,
      column('Type'),
      column('Cluster-IP'),
      column('External-IP'),
      column('Port(s)'),
      AGE,
      wide('Selector'),
    ],
    cells: (object, now) => {
      const ports = list(object, 'spec.ports').map((port) =>
        port['nodePort']
          ? `${String(port['port'])}:${String(port['nodePort'])}/${String(port['protocol'] ?? 'TCP')}`
          : `${String(port['port'])}/${String(port['protocol'] ?? 'TCP')}`,
      );
      const clusterIps = readPath(object, 'spec.clusterIPs');
      const clusterIp =
        Array.isArray(clusterIps) && clusterIps.length > 0
          ? String(clusterIps[0])
          : text(object, 'spec.clusterIP', '<none>');
      return [
        object.metadata.name,
        text(object, 'spec.type', 'ClusterIP'),
        clusterIp,
        serviceExternalIp(object),
        ports.join(',') || '<none>',
        age(object.metadata.creationTimestamp, now),
        formatLabels(map(object, 'spec.selector')),
      ];
    },
  },
  Endpoints: {
    columns: [NAME, column('Endpoints'), AGE],
    cells: (object, now) => [object.metadata.name, endpointsText(object), age(object.metadata.creationTimestamp, now)],
  },
  Node: {
    columns: [
      NAME,
      column('Status'),
      column('Roles'),
      AGE,
      column('Version'),
      wide('Internal-IP'),
      wide('External-IP'),
      wide('OS-Image'),
      wide('Kernel-Version'),
      wide('Container-Runtime'),
    ],
    cells: (object, now) => [
      object.metadata.name,
      nodeStatus(object),
      nodeRoles(object),
      age(object.metadata.creationTimestamp, now),
      text(object, 'status.nodeInfo.kubeletVersion'),
      nodeAddress(object, 'InternalIP'),
      nodeAddress(object, 'ExternalIP'),
      text(object, 'status.nodeInfo.osImage', '<unknown>'),
      text(object, 'status.nodeInfo.kernelVersion', '<unknown>'),
      text(object, 'status.nodeInfo.containerRuntimeVersion', '<unknown>'),
    ],
  },
  Event: {
    columns: [
      column('Last Seen'),
      column('Type'),
      column('Reason'),
      column('Object'),
      wide('Subobject'),
      wide('Source'),
      column('Message'),
      wide('First Seen'),
      wide('Count'),
      column('Name', { priority: 1, format: 'name' }),
    ],
    cells: eventCells,
  },
  Namespace: {
    columns: [NAME, column('Status'), AGE],
    cells: (object, now) => [
      object.metadata.name,
      text(object, 'status.phase', 'Active'),
      age(object.metadata.creationTimestamp, now),
    ],
  },
  Secret: {
    columns: [NAME, column('Type'), column('Data'), AGE],
    cells: (object, now) => [
      object.metadata.name,
      text(object, 'type', 'Opaque'),
      Object.keys(map(object, 'data')).length,
      age(object.metadata.creationTimestamp, now),
    ],
  },
  ConfigMap: {
    columns: [NAME, column('Data'), AGE],
    cells: (object, now) => [
      object.metadata.name,
      Object.keys(map(object, 'data')).length + Object.keys(map(object, 'binaryData')).length,
      age(object.metadata.creationTimestamp, now),
    ],
  },
  PersistentVolumeClaim: {
    columns: [
      NAME,
      column('Status'),
      column('Volume'),
      column('Capacity'),
      column('Access Modes'),
      column('StorageClass'),
      column('VolumeAttributesClass'),
      AGE,
      wide('VolumeMode'),
    ],
    cells: (object, now) => {
      const bound = text(object, 'spec.volumeName') !== '';
      return [
        object.metadata.name,
        object.metadata.deletionTimestamp ? 'Terminating' : text(object, 'status.phase'),
        text(object, 'spec.volumeName'),
        bound ? text(object, 'status.capacity.storage') : '',
        bound ? accessModes(readPath(object, 'status.accessModes')) : '',
        storageClassOf(object),
        text(object, 'spec.volumeAttributesClassName', '<unset>'),
        age(object.metadata.creationTimestamp, now),
        text(object, 'spec.volumeMode', '<unset>'),
      ];
    },
  },
  PersistentVolume: {
    columns: [
      NAME,
      column('Capacity'),
      column('Access Modes'),
      column('Reclaim Policy'),
      column('Status'),
      column('Claim'),
      column('StorageClass'),
      column('VolumeAttributesClass'),
      column('Reason'),
      AGE,
      wide('VolumeMode'),
    ],
    cells: (object, now) => {
      const claim = readPath(object, 'spec.claimRef');
      return [
        object.metadata.name,
        text(object, 'spec.capacity.storage'),
        accessModes(readPath(object, 'spec.accessModes')),
        text(object, 'spec.persistentVolumeReclaimPolicy'),
        object.metadata.deletionTimestamp ? 'Terminating' : text(object, 'status.phase'),
        isRecord(claim) ? `${text(claim, 'namespace')}/${text(claim, 'name')}` : '',
        storageClassOf(object),
        text(object, 'spec.volumeAttributesClassName', '<unset>'),
        text(object, 'status.reason'),
        age(object.metadata.creationTimestamp, now),
        text(object, 'spec.volumeMode', '<unset>'),
      ];
    },
  },
  StorageClass: {
    columns: [
      NAME,
      column('Provisioner'),
      column('ReclaimPolicy'),
      column('VolumeBindingMode'),
      column('AllowVolumeExpansion'),
      AGE,
    ],
    cells: (object, now) => {
      const annotations = object.metadata.annotations ?? {};
      const isDefault =
        annotations['storageclass.kubernetes.io/is-default-class'] === 'true' ||
        annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
      return [
        isDefault ? `${object.metadata.name} (default)` : object.metadata.name,
        text(object, 'provisioner'),
        text(object, 'reclaimPolicy', 'Delete'),
        text(object, 'volumeBindingMode', 'Immediate'),
        readPath(object, 'allowVolumeExpansion') === true,
        age(object.metadata.creationTimestamp, now),
      ];
    },
  },
  ResourceQuota: {
    columns: [NAME, AGE, column('Request'), column('Limit')],
    cells: (object, now) => [
      object.metadata.name,
      age(object.metadata.creationTimestamp, now),
      ...quotaColumns(object),
    ],
  },
  HorizontalPodAutoscaler: {
    columns: [
      NAME,
      column('Reference'),
      column('Targets'),
      column('MinPods'),
      column('MaxPods'),
      column('Replicas'),
      AGE,
    ],
    cells: (object, now) => [
      object.metadata.name,
      `${text(object, 'spec.scaleTargetRef.kind')}/${text(object, 'spec.scaleTargetRef.name')}`,
      autoscalerTargets(object),
      text(object, 'spec.minReplicas', '<unset>'),
      number(object, 'spec.maxReplicas'),
      number(object, 'status.currentReplicas'),
      age(object.metadata.creationTimestamp, now),
    ],
  },
  EndpointSlice: {
    columns: [NAME, column('AddressType'), column('Ports'), column('Endpoints'), AGE],
    cells: (object, now) => [
      object.metadata.name,
      text(object, 'addressType'),
      endpointSlicePorts(object),
      endpointSliceAddresses(object),
      age(object.metadata.creationTimestamp, now),
    ],
  },
  NetworkPolicy: {
    columns: [NAME, column('Pod-Selector'), AGE],
    cells: (object, now) => [
      object.metadata.name,
      formatLabelSelector(readPath(object, 'spec.podSelector')) || '<none>',
      age(object.metadata.creationTimestamp, now),
    ],
  },
  Ingress: {
    columns: [NAME, column('Class'), column('Hosts'), column('Address'), column('Ports'), AGE],
    cells: (object, now) => {
      const hosts = list(object, 'spec.rules')
        .map((rule) => String(rule['host'] ?? ''))
        .filter(Boolean);
      const address = list(object, 'status.loadBalancer.ingress')
        .map((entry) => String(entry['ip'] ?? entry['hostname'] ?? ''))
        .join(',');
      return [
        object.metadata.name,
        text(object, 'spec.ingressClassName', '<none>'),
        hosts.join(',') || '*',
        address,
        list(object, 'spec.tls').length > 0 ? '80, 443' : '80',
        age(object.metadata.creationTimestamp, now),
      ];
    },
  },
  ServiceAccount: {
    columns: [NAME, column('Secrets', { type: 'integer' }), AGE],
    cells: (object, now) => [
      object.metadata.name,
      list(object, 'secrets').length,
      age(object.metadata.creationTimestamp, now),
    ],
  },
  PodDisruptionBudget: {
    columns: [
      NAME,
      column('Min Available'),
      column('Max Unavailable'),
      column('Allowed Disruptions', { type: 'integer' }),
      AGE,
    ],
    cells: (object, now) => [
      object.metadata.name,
      text(object, 'spec.minAvailable', 'N/A'),
      text(object, 'spec.maxUnavailable', 'N/A'),
      number(object, 'status.disruptionsAllowed'),
      age(object.metadata.creationTimestamp, now),
    ],
  },
  ControllerRevision: {
    columns: [
      NAME,
      column('Controller', { description: 'Controller of the object' }),
      column('Revision', { description: 'Revision indicates the revision of the state represented by Data.' }),
      AGE,
    ],
    cells: (object, now) => [
      object.metadata.name,
      controllerName(object),
      number(object, 'revision'),
      age(object.metadata.creationTimestamp, now),
    ],
  },
  Lease: {
    columns: [NAME, column('Holder'), AGE],
    cells: (object, now) => [
      object.metadata.name,
      text(object, 'spec.holderIdentity'),
      age(object.metadata.creationTimestamp, now),
    ],
  },
};

/** `statefulset.apps/web`: the controlling owner as the API server's printer names it. */
function controllerName(object: KubeObject): string {
  const owner = object.metadata.ownerReferences?.find((reference) => reference.controller);
  if (!owner) return '<none>';
  const apiVersion = owner.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
}

const GENERIC: Printer = {
  columns: [NAME, AGE],
  cells: (object, now) => [object.metadata.name, age(object.metadata.creationTimestamp, now)],
};

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function partialObjectMetadata(object: KubeObject): JsonRecord {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

/** A Table of `objects` (all of one kind). `listMeta` is the list's metadata (resourceVersion, continue). */
export function buildTable(options: {
  kind: string;
  objects: KubeObject[];
  now: number;
  includeObject: IncludeObject;
  apiVersion: string;
  listMeta: JsonRecord;
}): JsonRecord {
  const printer = PRINTERS[options.kind] ?? GENERIC;
  const rows = options.objects.map((object) => {
    const row: JsonRecord = { cells: printer.cells(object, options.now) };
    if (options.includeObject === 'Metadata') row['object'] = partialObjectMetadata(object);
    else if (options.includeObject === 'Object') row['object'] = object;
    if (object.kind === 'Pod') {
      const phase = readPath(object, 'status.phase');
      if (phase === 'Succeeded' || phase === 'Failed') {
        row['conditions'] = [
          {
            type: 'Completed',
            status: 'True',
            reason: phase,
            message: phase === 'Succeeded' ? 'The pod has completed successfully.' : 'The pod failed.',
          },
        ];
      }
    }
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: options.apiVersion,
    metadata: options.listMeta,
    columnDefinitions: printer.columns,
    rows,
  };
}
