/**
 * A filesystem full on a claim's volume ("No space left on device" under a mount the pod
 * takes from a PersistentVolumeClaim): the claim's size, class and volume, so the person
 * knows how big it is and whether its class lets it grow.
 */
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';

const FULL_CLAIM = /^the full filesystem is mounted at \S+: volume \S+ from PersistentVolumeClaim ([^/\s]+)\/(\S+)$/;

export function filledClaimEvidence(finding: Finding, _gathered: Case, query: Query): string[] {
  const claim = finding.evidence.map((line) => FULL_CLAIM.exec(line)).find((match) => match !== null);
  if (!claim) return [];
  const [, namespace, name] = claim as unknown as [string, string, string];
  const found = query.data('list_persistent_volume_claims', { namespace, name })?.claims[0];
  const classes = found?.storageClassName ? query.data('list_storage_classes', {}) : undefined;
  query.barrier();
  if (!found) return [];
  const size = found.capacity ?? found.requested;
  const storageClass = classes?.storageClasses.find((candidate) => candidate.name === found.storageClassName);
  const growth = storageClass
    ? storageClass.allowVolumeExpansion
      ? `; class ${storageClass.name} allows expansion: raise the claim's request`
      : `; class ${storageClass.name} does not allow expansion`
    : '';
  return [
    `PersistentVolumeClaim ${namespace}/${name} is full: capacity ${size ?? 'unknown'}${found.requested && found.capacity && found.requested !== found.capacity ? ` (requests ${found.requested})` : ''}${found.volumeName ? `, volume ${found.volumeName}` : ''}${growth}`,
  ];
}
