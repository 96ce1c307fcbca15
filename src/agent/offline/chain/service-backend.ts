/**
 * The hop from a Service a client cannot reach to what is behind it: a workload scaled to
 * zero or refused its pods, a selector that matches no pod, or a broken backend pod, which
 * is diagnosed in turn and followed on. Healthy backends leave the client's finding.
 */
import type { ServiceDetailsData } from '../../../tools/describe-service.ts';
import type { Case, Conclusion, Finding, WorkloadKind } from '../case.ts';
import { classifyCase } from '../classify.ts';
import { createGathering } from '../gather/gather-case.ts';
import { pickWorstPod } from '../pods.ts';
import { serviceFinding } from '../rules/service-selector.ts';
import { workloadBehind } from '../gather/workload-behind.ts';
import { clientEvidence, merge, withEvidence, type HopInput } from './hop.ts';

/** A Service reached from a client: no pod behind it, a broken backend pod, or healthy backends (the client's own finding stands). */
export function followService(input: HopInput & { service: ServiceDetailsData; trail: string }): Conclusion {
  const { gathered, finding, query, service, trail } = input;
  const client = clientEvidence(gathered, finding);
  const readyCount = service.endpoints.ready.length;
  if (Object.keys(service.selector).length > 0 && service.pods.total === 0) {
    // No pod at all: a workload behind the selector that runs none (scaled to zero, or refused its pods), or a selector that matches nothing.
    const owner = workloadBehind(service, query);
    if (owner && owner.desired === 0) {
      return {
        gathered,
        finding: withEvidence(finding, [
          `${trail}: it has no endpoints because ${owner.kind} ${owner.namespace}/${owner.name} is scaled to 0 replicas`,
        ]),
      };
    }
    if (owner) {
      const backendCase: Case = {
        clusterNow: gathered.clusterNow,
        ...createGathering(query).workload({
          kind: 'workload',
          workloadKind: owner.kind as WorkloadKind,
          namespace: owner.namespace,
          name: owner.name,
        }),
      };
      const backendFinding = classifyCase(backendCase);
      if (backendFinding && backendFinding.category !== 'no-issue')
        return {
          gathered: backendCase,
          finding: merge(
            backendFinding,
            `${trail}, which has no pod: ${owner.kind} ${owner.namespace}/${owner.name} wants ${owner.desired} and has ${owner.ready} ready`,
            client,
          ),
        };
    }
    const backend: Finding = { ...serviceFinding({ ...gathered, service }), rule: 'service-selects-no-pod' };
    return {
      gathered: { ...gathered, service },
      finding: merge(backend, `${trail}, whose selector matches no pod`, client),
    };
  }
  const broken = pickWorstPod(service.pods.pods.filter((pod) => !pod.healthy));
  if (!broken) {
    return {
      gathered,
      finding: withEvidence(finding, [
        `${trail}: ${readyCount} ready endpoint(s), its pods are healthy`,
        ...undeclaredTargetPort(service),
      ]),
    };
  }
  const backendCase: Case = {
    clusterNow: gathered.clusterNow,
    ...createGathering(query).pod(
      { namespace: broken.namespace, name: broken.name },
      { focus: { kind: 'service', namespace: service.namespace, name: service.name }, service },
    ),
  };
  const backendFinding = classifyCase(backendCase);
  if (!backendFinding || backendFinding.category === 'no-issue') {
    return {
      gathered,
      finding: withEvidence(finding, [
        `${trail}: ${readyCount} ready endpoint(s); pod ${broken.name} is ${broken.status}`,
      ]),
    };
  }
  const deeper = input.follow(backendCase, backendFinding, query, input.hops);
  const hop = `${trail} (${readyCount} ready endpoint(s)), then to its pod ${broken.name} (${broken.status})`;
  return { gathered: deeper.gathered, finding: merge(deeper.finding, hop, client) };
}

/**
 * Healthy pods behind endpoints, yet the client is refused: a numeric targetPort the pods do
 * not declare, while they declare others, is where the connection goes and nothing listens.
 */
function undeclaredTargetPort(service: ServiceDetailsData): string[] {
  const numeric = service.unmatchedTargetPorts.filter((target) => /^\d+$/.test(target));
  if (numeric.length === 0 || service.declaredPorts.length === 0) return [];
  const ports = service.ports
    .filter((port) => numeric.includes(port.targetPort))
    .map((port) => `port ${port.port} -> targetPort ${port.targetPort}`);
  return [
    `Service ${service.namespace}/${service.name} sends ${ports.join(', ')}, but its pods declare ${service.declaredPorts.join(', ')}: nothing listens on targetPort ${numeric.join(', ')}`,
  ];
}
