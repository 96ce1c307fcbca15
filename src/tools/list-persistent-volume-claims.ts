/**
 * `list_persistent_volume_claims`: PVCs with phase, storage class (and whether it exists),
 * requested size and bound volume (with the volume's node affinity); Pending ones first with the
 * provisioner's latest event.
 */
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { foldEvents, formatEvent } from './format/events.ts';
import { formatNodeSelector, singleTermRequirements, type NodeRequirementData } from './format/placement.ts';
import { formatLabelMap, formatLabelSelector } from './format/selectors.ts';
import { volumeMisfits } from './format/volume-fit.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface PersistentVolumeClaimData {
  namespace: string;
  name: string;
  phase: string;
  storageClassName?: string;
  /** For a claim not Bound: false when the named StorageClass does not exist; undefined when unknown or Bound. */
  storageClassExists?: boolean;
  /** When the named StorageClass does not exist: the classes that do, the nearest spelling first. */
  existingStorageClasses?: string[];
  /** No class named and no default class in the cluster. */
  noDefaultStorageClass?: boolean;
  /** `storageClassName: ""`: no provisioner makes a volume; only a pre-made volume without a class binds. */
  staticOnly?: boolean;
  /** The claim's label selector (`pool=journal`): only volumes with these labels bind. */
  selector?: string;
  /** For a claim not Bound that only a pre-made volume can satisfy: the volumes nearest to fitting, each with why it does not (at most 5). */
  nearVolumes?: Array<{ name: string; labels: string; misfits: string[] }>;
  requested?: string;
  capacity?: string;
  accessModes: string[];
  volumeName?: string;
  /** The bound PersistentVolume's `spec.nodeAffinity.required` (e.g. `topology.kubernetes.io/zone in (eu-west-1a)`): the nodes it can attach to. */
  volumeNodeAffinity?: string;
  /** The same affinity's expressions (matchFields under `metadata.name`), when it has one term: what a check against node labels reads. */
  volumeNodeRequirements?: NodeRequirementData[];
  ageSeconds?: number;
  /** Warning events about the claim, newest first: the provisioner's reason. */
  warnings: string[];
}

export interface PersistentVolumeClaimsData {
  namespace: string;
  claims: PersistentVolumeClaimData[];
  pending: number;
}

/** A bound volume's node affinity, in the fields that carry it (absent when it has none). */
function optionalAffinity(
  affinity: { text: string | undefined; requirements: NodeRequirementData[] | undefined } | undefined,
): Pick<PersistentVolumeClaimData, 'volumeNodeAffinity' | 'volumeNodeRequirements'> {
  return {
    ...(affinity?.text ? { volumeNodeAffinity: affinity.text } : {}),
    ...(affinity?.requirements ? { volumeNodeRequirements: affinity.requirements } : {}),
  };
}

const input = z.object({
  namespace: namespaceName().describe('Namespace'),
  name: objectName().optional().describe('One claim by name'),
});

export const listPersistentVolumeClaimsTool: ReadTool<
  typeof input,
  PersistentVolumeClaimsData,
  'list_persistent_volume_claims'
> = {
  name: 'list_persistent_volume_claims',
  description:
    'Lists PersistentVolumeClaims with phase (Pending, Bound, Lost), storage class and whether that class exists, requested size, access modes ' +
    'and bound volume with its node affinity (the zone or host it can attach in); Pending claims first, with the provisioning warnings (e.g. "storageclass.storage.k8s.io \\"fast\\" not found"). ' +
    'Use it for pods Pending on "unbound immediate PersistentVolumeClaims" or "volume node affinity conflict" (set the volume\'s zone against list_nodes).',
  input,
  risk: 'read',
  async run(args, context) {
    const [claims, classes, eventList] = await Promise.all([
      context.cluster.list('PersistentVolumeClaim', {
        namespace: args.namespace,
        maxItems: 2000,
        signal: context.signal,
      }),
      context.cluster.list('StorageClass', { maxItems: 500, signal: context.signal }),
      context.cluster.list('Event', {
        namespace: args.namespace,
        fieldSelector: 'involvedObject.kind=PersistentVolumeClaim',
        maxItems: 2000,
        signal: context.signal,
      }),
    ]);
    if (!claims.ok) return failureFrom(claims.error);
    // A bound volume's node affinity (its zone, a local volume's host) decides where the claim's pods can schedule;
    // the volumes a claim waits for say why none binds it.
    const readsVolumes = claims.value.items.some(
      (claim) =>
        (claim.spec?.volumeName || awaitsPremadeVolume(claim)) &&
        (args.name === undefined || claim.metadata?.name === args.name),
    );
    const volumes = readsVolumes
      ? await context.cluster.list('PersistentVolume', { maxItems: 5000, signal: context.signal })
      : undefined;
    // Each volume's node affinity, as text and (one term) as expressions.
    const volumeAffinity = new Map(
      volumes?.ok
        ? volumes.value.items.map((volume) => [
            volume.metadata?.name ?? '',
            {
              text: formatNodeSelector(volume.spec?.nodeAffinity?.required),
              requirements: singleTermRequirements(volume.spec?.nodeAffinity?.required),
            },
          ])
        : [],
    );
    const now = context.cluster.now();
    const classNames = classes.ok ? new Set(classes.value.items.map((item) => item.metadata?.name ?? '')) : undefined;
    const hasDefault = classes.ok
      ? classes.value.items.some(
          (item) => item.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true',
        )
      : undefined;
    const events = eventList.ok
      ? eventList.value.items.filter((event) => event.involvedObject.kind === 'PersistentVolumeClaim')
      : [];
    const selected = claims.value.items.filter(
      (claim) => args.name === undefined || claim.metadata?.name === args.name,
    );
    if (args.name !== undefined && selected.length === 0)
      return {
        ok: false,
        error: 'not-found',
        content: `not-found: no PersistentVolumeClaim "${args.name}" in "${args.namespace}". Call list_persistent_volume_claims without name.`,
      };
    const data: PersistentVolumeClaimsData = {
      namespace: args.namespace,
      claims: selected
        .map((claim): PersistentVolumeClaimData => {
          const name = claim.metadata?.name ?? '';
          const className = claim.spec?.storageClassName;
          const warnings = foldEvents(
            events.filter((event) => event.involvedObject.name === name && event.type === 'Warning'),
            now,
          ).map((event) => formatEvent(event, now, { withObject: false, messageLimit: 300 }));
          const age = claim.metadata?.creationTimestamp
            ? Math.round((now.getTime() - new Date(claim.metadata.creationTimestamp).getTime()) / 1000)
            : undefined;
          return {
            namespace: args.namespace,
            name,
            phase: claim.status?.phase ?? 'Unknown',
            ...(className ? { storageClassName: className } : {}),
            // A Bound claim's class no longer matters; snapshots often leave StorageClasses out.
            ...(className && classNames && claim.status?.phase !== 'Bound'
              ? { storageClassExists: classNames.has(className) }
              : {}),
            ...(className && classNames && claim.status?.phase !== 'Bound' && !classNames.has(className)
              ? { existingStorageClasses: nearestFirst(className, [...classNames]) }
              : {}),
            ...(className === undefined && hasDefault === false ? { noDefaultStorageClass: true } : {}),
            ...(className === '' ? { staticOnly: true } : {}),
            ...(claim.spec?.selector ? { selector: formatLabelSelector(claim.spec.selector) } : {}),
            ...(awaitsPremadeVolume(claim) && volumes?.ok
              ? { nearVolumes: nearVolumes(claim, volumes.value.items) }
              : {}),
            ...(claim.spec?.resources?.requests?.storage
              ? { requested: String(claim.spec.resources.requests.storage) }
              : {}),
            ...(claim.status?.capacity?.storage ? { capacity: String(claim.status.capacity.storage) } : {}),
            accessModes: claim.spec?.accessModes ?? [],
            ...(claim.spec?.volumeName ? { volumeName: claim.spec.volumeName } : {}),
            ...optionalAffinity(claim.spec?.volumeName ? volumeAffinity.get(claim.spec.volumeName) : undefined),
            ...(age !== undefined ? { ageSeconds: age } : {}),
            warnings,
          };
        })
        .sort(
          (left, right) =>
            Number(left.phase === 'Bound') - Number(right.phase === 'Bound') || left.name.localeCompare(right.name),
        ),
      pending: 0,
    };
    data.pending = data.claims.filter((claim) => claim.phase !== 'Bound').length;
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(`${data.claims.length} PersistentVolumeClaim(s) in ${args.namespace}: ${data.pending} not Bound.`);
    for (const claim of data.claims) {
      const existing = claim.existingStorageClasses
        ? `; the cluster has ${claim.existingStorageClasses.join(', ') || 'none'}`
        : '';
      const storageClass = claim.storageClassName
        ? `class ${claim.storageClassName}${claim.storageClassExists === false ? ` (StorageClass "${claim.storageClassName}" not found${existing})` : ''}`
        : claim.staticOnly
          ? 'class "" (binds only a pre-made volume without a class)'
          : `no class${claim.noDefaultStorageClass ? ' and no default StorageClass in the cluster' : ' (default)'}`;
      const near = (claim.nearVolumes ?? []).map(
        (volume) =>
          `  volume ${volume.name} (${volume.labels || 'no labels'}) does not fit: ${volume.misfits.join('; ')}`,
      );
      const selector = claim.selector ? `, selector ${claim.selector}` : '';
      const age =
        claim.ageSeconds !== undefined ? formatAge(new Date(now.getTime() - claim.ageSeconds * 1000), now) : '?';
      const line = `${claim.name}: ${claim.phase}, ${storageClass}, requests ${claim.requested ?? '?'}${claim.capacity ? `, capacity ${claim.capacity}` : ''}, ${claim.accessModes.join(',')}${claim.volumeName ? `, volume ${claim.volumeName}${claim.volumeNodeAffinity ? ` (node affinity ${claim.volumeNodeAffinity})` : ''}` : ''}, age ${age}`;
      if (
        !text.add(
          [
            line.replace(`, ${storageClass}`, `, ${storageClass}${selector}`),
            ...claim.warnings.slice(0, 3).map((warning) => `  ${warning}`),
            ...near,
          ].join('\n'),
        )
      )
        break;
    }
    return success(text.finish('ask for one claim by name.'), data, text.truncated);
  },
};

/** A claim not Bound that no provisioner will make a volume for (`storageClassName: ""`, or a label selector): only a pre-made one binds it. */
function awaitsPremadeVolume(claim: V1PersistentVolumeClaim): boolean {
  return claim.status?.phase !== 'Bound' && (Boolean(claim.spec?.selector) || claim.spec?.storageClassName === '');
}

/** The volumes nearest to binding the claim (fewest misfits, unclaimed first), each with what it lacks; one that fits is not listed. */
function nearVolumes(
  claim: V1PersistentVolumeClaim,
  volumes: readonly V1PersistentVolume[],
): NonNullable<PersistentVolumeClaimData['nearVolumes']> {
  return volumes
    .map((volume) => ({
      name: volume.metadata?.name ?? '',
      labels: formatLabelMap(volume.metadata?.labels),
      misfits: volumeMisfits(claim, volume),
    }))
    .filter((volume) => volume.misfits.length > 0 && !volume.misfits.some((misfit) => misfit.startsWith('claimed by ')))
    .sort((left, right) => left.misfits.length - right.misfits.length || left.name.localeCompare(right.name))
    .slice(0, 5);
}

/** Names ordered by how much of `wanted` they share (the longest common prefix, then the fewest letters apart in length): a misspelt class's real name first. */
function nearestFirst(wanted: string, names: readonly string[]): string[] {
  const shared = (name: string): number => {
    let index = 0;
    while (index < name.length && index < wanted.length && name[index] === wanted[index]) index++;
    return index;
  };
  return [...names]
    .sort(
      (left, right) =>
        shared(right) - shared(left) ||
        Math.abs(left.length - wanted.length) - Math.abs(right.length - wanted.length) ||
        left.localeCompare(right),
    )
    .slice(0, 10);
}
