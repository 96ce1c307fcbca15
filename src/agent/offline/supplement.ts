/**
 * Evidence that completes a finding once its category is known: the claim and class
 * behind an unbound volume, the quota that refused a pod, the NetworkPolicy in the way of
 * a dependency, and any text in the cluster's data that tried to instruct the agent.
 */
import type { ListPodsData } from '../../tools/list-pods.ts';
import type { ServicesData } from '../../tools/list-services.ts';
import type { NetworkPoliciesData } from '../../tools/list-network-policies.ts';
import type { PersistentVolumeClaimsData } from '../../tools/list-persistent-volume-claims.ts';
import type { ResourceQuotasData } from '../../tools/list-resource-quotas.ts';
import type { Finding } from './classify.ts';
import type { Case } from './gather.ts';
import type { Investigation } from './investigation.ts';
import type { Query } from './query.ts';

const INJECTION = /ignore (all |any )?(previous|prior|above) instructions|disregard (your|all|previous) instructions|you are (now )?in maintenance mode|\b(AI|LLM) (assistant|agent)\b|as an AI\b|system override|\[SYSTEM\]|new instructions:/i;

export function supplementEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const namespace = gathered.pod?.namespace ?? gathered.workload?.namespace;
  if (!namespace) return [];
  switch (finding.category) {
    case 'pvc-unbound': {
      const claims = query.data<PersistentVolumeClaimsData>('list_persistent_volume_claims', { namespace });
      query.barrier();
      const wanted = new Set(gathered.pod?.spec.volumes.filter((volume) => volume.kind === 'persistentVolumeClaim').map((volume) => volume.sourceName));
      return (claims?.claims ?? [])
        .filter((claim) => claim.phase !== 'Bound' && (wanted.size === 0 || wanted.has(claim.name)))
        .slice(0, 3)
        .map((claim) => {
          const storageClass = claim.storageClassName ? `storageClass ${claim.storageClassName}${claim.storageClassExists === false ? ' (does not exist)' : ''}` : claim.noDefaultStorageClass ? 'no storageClass and no default class' : 'default storageClass';
          return `PersistentVolumeClaim ${namespace}/${claim.name} is ${claim.phase}, ${storageClass}${claim.warnings.length ? `: ${claim.warnings[0]}` : ''}`;
        });
    }
    case 'quota-exceeded': {
      const quotas = query.data<ResourceQuotasData>('list_resource_quotas', { namespace });
      query.barrier();
      return (quotas?.quotas ?? []).flatMap((quota) => {
        const tight = quota.resources.filter((resource) => resource.exhausted || (resource.ratio ?? 0) >= 0.75);
        return tight.length ? [`ResourceQuota ${namespace}/${quota.name}: ${tight.map((resource) => `${resource.resource} used ${resource.used} of ${resource.hard}`).join(', ')}`] : [];
      });
    }
    case 'dependency-unreachable': {
      const target = serviceNamedIn(finding.evidence.join('\n'), namespace);
      const policies = query.data<NetworkPoliciesData>('list_network_policies', { namespace });
      const services = target ? query.data<ServicesData>('list_services', { namespace: target.namespace }) : undefined;
      query.barrier();
      const lines = (policies?.policies ?? [])
        .filter((policy) => policy.policyTypes.includes('Egress'))
        .map((policy) => `NetworkPolicy ${namespace}/${policy.name} restricts egress of ${policy.podSelector}: ${policy.egress.length ? policy.egress.join('; ') : 'deny all'}`);
      if (target && services && !services.services.some((service) => service.name === target.name)) {
        lines.push(`no Service "${target.name}" exists in namespace ${target.namespace}; Services there: ${services.services.map((service) => service.name).join(', ') || 'none'}`);
      }
      return lines;
    }
    case 'unschedulable-resources': {
      const pods = query.data<ListPodsData>('list_pods', { namespace, fieldSelector: 'status.phase=Pending' });
      query.barrier();
      return pods && pods.total > 1 ? [`${pods.total} pod(s) Pending in ${namespace}`] : [];
    }
    default:
      return [];
  }
}

/** A Service the log names by its cluster DNS name (`redis-master.shop.svc.cluster.local`, or `ENOTFOUND redis-master`). */
function serviceNamedIn(text: string, namespace: string): { name: string; namespace: string } | undefined {
  const qualified = /\b([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc\b/.exec(text);
  if (qualified) return { name: qualified[1]!, namespace: qualified[3]! };
  const bare = /(?:ENOTFOUND|no such host|could not resolve|can't resolve|Name or service not known)[^a-z0-9]*['"]?([a-z0-9][-a-z0-9]*[a-z0-9])['"]?(?![.\w])/i.exec(text);
  return bare ? { name: bare[1]!, namespace } : undefined;
}

/** Lines in tool output that address an automated agent: reported, never followed. */
export function findInjectionAttempts(investigation: Investigation): string[] {
  const found = new Set<string>();
  for (const observation of investigation.observations) {
    for (const line of observation.result.content.split('\n')) {
      if (INJECTION.test(line)) found.add(line.trim().slice(0, 240));
    }
  }
  return [...found].slice(0, 2);
}
