/**
 * Findings about the things around a pod: the node it ran on, the Service in front of it,
 * the workload that cannot create it, or a workload that has recovered.
 */
import type { Finding } from './classify.ts';
import type { Case } from './gather.ts';
import type { EventData } from '../../tools/format/events.ts';
import { eventLine, secondsAgo } from './evidence.ts';
import { isQuotaRefusal } from './signals/index.ts';

/** A pod evicted for a node's shortage: the node's pressure is the cause, named as the culprit. */
export function evictionFinding(gathered: Case): Finding {
  const pod = gathered.pod!;
  const node = gathered.node;
  const evidence = [`pod ${pod.name} was Evicted from node ${pod.node ?? '?'}: ${pod.message ?? 'no message'}`];
  if (node) evidence.push(...nodeFinding(gathered).evidence);
  return {
    category: 'node-failure',
    cause: `node ${pod.node ?? '?'} evicts pods: ${pod.message?.split('.')[0] ?? 'it ran short of a resource'}`,
    evidence,
    confidence: node && !node.healthy ? 'high' : 'medium',
    nodeName: pod.node,
  };
}

export function nodeFinding(gathered: Case): Finding {
  const node = gathered.node!;
  const condition = node.readyCondition;
  const state = node.ready ? `under pressure (${node.pressures.join(', ')})` : 'NotReady';
  const affected = (gathered.workloadPods ?? []).filter((pod) => !pod.healthy);
  return {
    category: 'node-failure',
    cause: `node ${node.name} is ${state}`,
    evidence: [
      `node ${node.name} is ${state}${condition ? `: Ready=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}${condition.message ? `: ${condition.message}` : ''}` : ''}`,
      ...(node.taints.length ? [`node ${node.name} taints: ${node.taints.join(', ')}`] : []),
      ...(affected.length ? [`${affected.length} pod(s) on ${node.name} are not healthy: ${affected.slice(0, 5).map((pod) => `${pod.namespace}/${pod.name} ${pod.status}`).join(', ')}`] : []),
    ],
    confidence: 'high',
  };
}

/** A Service whose selector matches pods but whose targetPort names a port none of them declares: no endpoint can form. */
export function hasUnmatchedTargetPort(gathered: Case): boolean {
  const service = gathered.service;
  return service !== undefined && service.pods.total > 0 && service.endpoints.ready.length === 0 && service.unmatchedTargetPorts.length > 0;
}

/** The ports the pod behind the Service declares, by name: what its targetPort should say. */
function declaredPorts(gathered: Case): string[] {
  const pod = gathered.pod;
  const ports = pod?.spec.containers.filter((container) => !container.init).flatMap((container) => container.ports.map((port) => `${container.name} ${port.name ? `"${port.name}" = ` : ''}${port.containerPort}`)) ?? [];
  return pod && ports.length ? [`pod ${pod.name} declares: ${ports.join(', ')}`] : [];
}

export function serviceFinding(gathered: Case): Finding {
  const service = gathered.service!;
  if (hasUnmatchedTargetPort(gathered)) {
    return {
      category: 'service-no-endpoints',
      cause: `the targetPort of Service ${service.namespace}/${service.name} (${service.unmatchedTargetPorts.join(', ')}) names a port that none of the ${service.pods.total} pod(s) its selector matches declares, so it has no endpoints`,
      evidence: [
        `Service ${service.namespace}/${service.name} ports: ${service.ports.map((port) => `${port.port} -> targetPort ${port.targetPort}`).join(', ')}; targetPort ${service.unmatchedTargetPorts.join(', ')} is declared by no matched pod`,
        `its selector matches ${service.pods.total} pod(s) (${Object.entries(service.pods.countsByStatus).map(([status, count]) => `${status} ${count}`).join(', ')}); ready endpoints: none`,
        ...declaredPorts(gathered),
      ],
      confidence: 'high',
    };
  }
  const selector = Object.entries(service.selector).map(([key, value]) => `${key}=${value}`).join(',');
  const labelHints = Object.entries(service.labelValuesInNamespace ?? {}).map(([key, values]) => `pods in ${service.namespace} carry ${key}=${values.join('|')}`);
  if (service.pods.total === 0) {
    return {
      category: 'service-no-endpoints',
      cause: `the selector of Service ${service.namespace}/${service.name} matches no pod`,
      evidence: [`Service ${service.namespace}/${service.name} selector ${selector || '(none)'} matches no pod; endpoints: none ready`, ...labelHints],
      confidence: 'high',
    };
  }
  return {
    category: 'no-issue',
    cause: `Service ${service.namespace}/${service.name} has ${service.endpoints.ready.length} ready endpoint(s)`,
    evidence: [`Service ${service.namespace}/${service.name} selector ${selector} matches ${service.pods.total} pod(s); ${service.endpoints.ready.length} ready endpoint(s)`],
    confidence: 'medium',
  };
}

/** A ResourceQuota or LimitRange refusal among the workload's events: pods that were never created. */
export function quotaRefusalOf(gathered: Case): EventData | undefined {
  return (gathered.workloadEvents ?? []).find((event) => isQuotaRefusal(event.message));
}


export function quotaFinding(gathered: Case): Finding {
  return { category: 'quota-exceeded', cause: 'pod creation is rejected by a ResourceQuota or LimitRange', evidence: [eventLine(quotaRefusalOf(gathered)!)], confidence: 'high' };
}

/** No pod in trouble: the workload is healthy now, when every pod is ready or completed. */
export function healthyWorkloadFinding(gathered: Case): Finding | undefined {
  if (!gathered.workload || !(gathered.workloadPods ?? []).every((pod) => pod.healthy) || !(gathered.deployment?.summary.healthy ?? true)) return undefined;
  const pods = gathered.workloadPods ?? [];
  const restarted = pods.filter((pod) => pod.restarts > 0).map((pod) => {
    const finished = pod.problem?.last ? pod.problem.state.finishedAt : undefined;
    const ago = finished ? secondsAgo(finished, gathered) : undefined;
    return `pod ${pod.name} is ${pod.status} and ready ${pod.ready}; ${pod.restarts} restart(s)${ago !== undefined ? `, the last ended ${Math.round(ago / 60)} minutes ago` : ''}`;
  });
  return {
    category: 'no-issue',
    cause: `${gathered.workload.kind} ${gathered.workload.namespace}/${gathered.workload.name} is healthy now: every pod is running and ready, or completed`,
    evidence: [
      `all ${pods.length} pod(s) are healthy: ${pods.slice(0, 5).map((pod) => `${pod.name} ${pod.status}`).join(', ')}`,
      ...(gathered.job ? gathered.job.jobs.slice(0, 1).map((job) => `Job ${job.namespace}/${job.name} is ${job.state} (${job.succeeded} succeeded, ${job.failed} failed)${job.durationSeconds !== undefined ? `; it ran ${formatDuration(job.durationSeconds)}` : ''}`) : []),
      ...revisionEvidence(gathered),
      ...restarted.slice(0, 3),
    ],
    confidence: 'medium',
  };
}

/** `13h 41m`, `7m`, `45s`: how long a run took, the way a person says it. */
export function formatDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours}h ${minutes}m`;
  return minutes > 0 ? `${minutes}m` : `${Math.round(seconds)}s`;
}

/** Which revision runs now, and when it replaced the one before: a fix already rolled out is why the alert no longer holds. */
function revisionEvidence(gathered: Case): string[] {
  const deployment = gathered.deployment;
  const current = deployment?.revisions.find((revision) => revision.revision === deployment.currentRevision);
  if (!deployment || !current) return [];
  const age = current.ageSeconds !== undefined ? `, rolled out ${Math.round(current.ageSeconds / 60)} minutes ago` : '';
  const previous = [...deployment.revisions].reverse().find((revision) => revision.revision < current.revision);
  const replaced = previous ? `, replacing revision ${previous.revision} (${previous.images.join(' ')})` : '';
  return [`Deployment ${deployment.summary.namespace}/${deployment.summary.name} runs revision ${current.revision} (${current.images.join(' ')})${age}${replaced}: ${deployment.summary.ready}/${deployment.summary.desired} ready`];
}

export function recoveredFinding(gathered: Case): Finding {
  const pod = gathered.pod!;
  const restarted = pod.containers.filter((container) => container.restartCount > 0);
  const last = restarted.map((container) => container.lastState).find((state) => state?.finishedAt);
  const ago = last?.finishedAt ? secondsAgo(last.finishedAt, gathered) : undefined;
  return {
    category: 'no-issue',
    cause: `pod ${pod.name} has recovered: it is Running and ready`,
    evidence: [
      `pod ${pod.name} is ${pod.status}, ready ${pod.ready}, restarts ${pod.restarts}`,
      ...(last ? [`its last restart ended ${ago !== undefined ? `${Math.round(ago / 60)} minutes ago` : 'a while ago'} (${last.reason ?? 'terminated'}, exit code ${last.exitCode ?? '?'}); no warning events since`] : []),
      ...(gathered.deployment ? [`Deployment ${gathered.deployment.summary.namespace}/${gathered.deployment.summary.name}: ${gathered.deployment.summary.ready}/${gathered.deployment.summary.desired} ready`] : []),
    ],
    confidence: 'medium',
  };
}

