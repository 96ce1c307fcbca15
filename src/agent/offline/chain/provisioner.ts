/**
 * The hop from a claim that is not provisioned to its provisioner: the StorageClass names
 * it, and its pods (a CSI driver's controller) failing is why.
 */
import type { Case, Conclusion } from '../case.ts';
import { classifyCase } from '../classify.ts';
import { createGathering } from '../gather/gather-case.ts';
import { pickWorstPod } from '../pods.ts';
import { clientEvidence, merge, type HopInput } from './hop.ts';

/**
 * A claim the provisioner fails to provision (its ProvisioningFailed warning says so): the
 * StorageClass names the provisioner, and its pods (a CSI driver's controller) failing is
 * why. Otherwise the claim's own finding stands.
 */
export function followProvisioner(input: HopInput): Conclusion {
  const { gathered, finding, query } = input;
  const pod = gathered.pod!;
  const claims = query.data('list_persistent_volume_claims', { namespace: pod.namespace });
  const classes = query.data('list_storage_classes', {});
  query.barrier();
  const used = new Set(
    pod.spec.volumes.filter((volume) => volume.kind === 'persistentVolumeClaim').map((volume) => volume.sourceName),
  );
  const failing = (claims?.claims ?? []).find(
    (claim) =>
      used.has(claim.name) &&
      claim.phase !== 'Bound' &&
      claim.warnings.some((warning) => /failed to provision|ProvisioningFailed|rpc error/i.test(warning)),
  );
  const provisioner = classes?.storageClasses.find(
    (storageClass) => storageClass.name === failing?.storageClassName,
  )?.provisioner;
  if (!failing || !provisioner) return { gathered, finding };
  // ebs.csi.aws.com -> ebs; a driver's pods carry its short name and "csi" or "provisioner".
  const tokens = provisioner.split(/[./-]/).filter((token) => token.length >= 3 && !PROVISIONER_NOISE.has(token));
  const candidates =
    query
      .data('list_pods', {})
      ?.pods.filter(
        (candidate) =>
          !candidate.healthy &&
          /csi|provisioner/.test(candidate.name) &&
          tokens.some((token) => candidate.name.includes(token)),
      ) ?? [];
  query.barrier();
  const broken = pickWorstPod(candidates);
  if (!broken) return { gathered, finding };
  const backendCase: Case = {
    clusterNow: gathered.clusterNow,
    ...createGathering(query).pod(
      { namespace: broken.namespace, name: broken.name },
      { focus: { kind: 'pod', namespace: broken.namespace, name: broken.name } },
    ),
  };
  const backendFinding = classifyCase(backendCase);
  if (!backendFinding || backendFinding.category === 'no-issue') return { gathered, finding };
  const trail = `claim ${pod.namespace}/${failing.name} is not provisioned (${failing.warnings[0]?.slice(0, 200) ?? 'ProvisioningFailed'}); StorageClass ${failing.storageClassName} is provisioned by ${provisioner}, whose pod ${broken.namespace}/${broken.name} is ${broken.status}`;
  return { gathered: backendCase, finding: merge(backendFinding, trail, clientEvidence(gathered, finding)) };
}

const PROVISIONER_NOISE = new Set([
  'csi',
  'com',
  'aws',
  'azure',
  'gke',
  'k8s',
  'kubernetes',
  'io',
  'net',
  'org',
  'driver',
  'storage',
]);
