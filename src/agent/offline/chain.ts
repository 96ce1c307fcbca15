/**
 * Following a failure to its root cause. A client that cannot reach a dependency names a
 * host in its log: the host resolves to a Service, the Service to its backend pods, and a
 * broken backend is diagnosed in turn. A DNS failure leads to the cluster DNS Service and
 * the CoreDNS pods behind it. Every hop is a tool call the trail shows, at most MAX_HOPS;
 * the culprit is the deepest object whose failure explains the others, and the client
 * that alerted becomes evidence.
 */
import type { ServiceDetailsData } from '../../tools/describe-service.ts';
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import type { WorkloadSummaryData } from '../../tools/format/workloads.ts';
import { classifyCase, type Finding } from './classify.ts';
import { serviceFinding } from './findings.ts';
import { gatherForPod, gatherForWorkload, type Case } from './gather.ts';
import type { WorkloadKind } from './locate.ts';
import { mentionScore, pickWorstPod, workloadOfPod } from './locate.ts';
import { namespacePods } from './narrow.ts';
import type { Query } from './query.ts';
import { isClusterDnsFailure, readDependencyTarget } from './signals/targets.ts';

export const MAX_HOPS = 3;

export interface Conclusion {
  gathered: Case;
  finding: Finding;
}

/** The client's case and finding, or the backend's when the client's failure leads to a broken backend. */
export function followChain(gathered: Case, finding: Finding, query: Query, hops = 0): Conclusion {
  if (finding.category === 'no-issue' && !gathered.pod && (gathered.workloadPods?.length ?? 0) > 0) return lookBehindHealthy(gathered, finding, query, hops);
  if (finding.category === 'pvc-unbound' && gathered.pod && hops < MAX_HOPS) return followProvisioner(gathered, finding, query);
  const pod = gathered.pod;
  if (finding.category !== 'dependency-unreachable' || !pod || hops >= MAX_HOPS) return { gathered, finding };
  const lines = logLinesOf(gathered, finding);
  const dnsFailure = lines.find((line) => isClusterDnsFailure(line));
  if (dnsFailure) return followClusterDns({ gathered, finding, query, hops, line: dnsFailure });
  const named = lines.map((line) => ({ line, target: readDependencyTarget(line) })).find((entry) => entry.target);
  if (!named?.target) return { gathered, finding };
  const host = named.target.port ? `${named.target.host}:${named.target.port}` : named.target.host;
  const resolved = query.data('resolve_host', { host, namespace: pod.namespace });
  query.barrier();
  if (!resolved) return { gathered, finding };
  if (!resolved.service) {
    if (resolved.resolvedBy !== 'none') return { gathered, finding };
    const where = resolved.namespace ?? pod.namespace;
    const similar = resolved.similar.length ? `; similar Services there: ${resolved.similar.join(', ')}` : '';
    return { gathered, finding: withEvidence(finding, [`${named.target.host} resolves to no Service: there is no Service "${resolved.name ?? named.target.host}" in namespace ${where}${similar}`]) };
  }
  const trail = `followed ${named.target.host} from the log of pod ${pod.name} to Service ${resolved.service.namespace}/${resolved.service.name}`;
  return followService({ gathered, finding, query, hops: hops + 1, service: resolved.service, trail });
}

/**
 * Every pod of the workload is running and ready, yet someone alerted on it: what one of
 * its pods logs now may say that every request fails on a dependency.
 */
function lookBehindHealthy(gathered: Case, finding: Finding, query: Query, hops: number): Conclusion {
  const running = (gathered.workloadPods ?? []).filter((pod) => pod.phase === 'Running');
  const pod = [...running].sort((left, right) => right.restarts - left.restarts)[0];
  if (!pod) return { gathered, finding };
  const { clusterNow, ...known } = gathered;
  const failing = readPodThatLooksHealthy({ pod, known, clusterNow, query });
  return failing ? followChain(failing.gathered, failing.finding, query, hops) : { gathered, finding };
}

/**
 * A namespace reported as failing where no pod, workload or Service visibly fails: one
 * running pod per workload (the ones the words name first) has its current log read, and
 * the first whose log says its dependency fails now is followed. At most MAX_PODS_READ.
 */
export function lookAcrossNamespace(gathered: Case, query: Query): Conclusion | undefined {
  const focus = gathered.focus;
  if (focus.kind !== 'namespace') return undefined;
  const pods = namespacePods(focus.namespace, query)?.pods ?? [];
  const byWorkload = new Map<string, PodSummaryData>();
  for (const pod of pods) {
    const workload = workloadOfPod(pod)?.name ?? pod.name;
    if (pod.phase === 'Running' && !byWorkload.has(workload)) byWorkload.set(workload, pod);
  }
  const ranked = [...byWorkload.entries()].sort(([left], [right]) => mentionScore(right, focus.hint ?? '') - mentionScore(left, focus.hint ?? '')).slice(0, MAX_PODS_READ);
  for (const [, pod] of ranked) {
    const failing = readPodThatLooksHealthy({ pod, known: { focus }, clusterNow: gathered.clusterNow, query });
    if (failing) return followChain(failing.gathered, failing.finding, query, 1);
  }
  return undefined;
}

const MAX_PODS_READ = 4;

/**
 * A running pod that looks healthy, with its current log read: its case and finding when
 * that log says a dependency fails now. An old restart of a ready pod is history, not this.
 */
function readPodThatLooksHealthy(input: { pod: PodSummaryData; known: Omit<Case, 'clusterNow'>; clusterNow: Date; query: Query }): Conclusion | undefined {
  const { pod, query } = input;
  const podCase: Case = { clusterNow: input.clusterNow, ...gatherForPod({ namespace: pod.namespace, name: pod.name }, query, input.known, { readHealthyLogs: true }) };
  const podFinding = classifyCase(podCase);
  return podFinding?.rule === 'ready-but-failing-dependency' ? { gathered: podCase, finding: podFinding } : undefined;
}

/**
 * A claim the provisioner fails to provision (its ProvisioningFailed warning says so): the
 * StorageClass names the provisioner, and its pods (a CSI driver's controller) failing is
 * why. Otherwise the claim's own finding stands.
 */
function followProvisioner(gathered: Case, finding: Finding, query: Query): Conclusion {
  const pod = gathered.pod!;
  const claims = query.data('list_persistent_volume_claims', { namespace: pod.namespace });
  const classes = query.data('list_storage_classes', {});
  query.barrier();
  const used = new Set(pod.spec.volumes.filter((volume) => volume.kind === 'persistentVolumeClaim').map((volume) => volume.sourceName));
  const failing = (claims?.claims ?? []).find((claim) => used.has(claim.name) && claim.phase !== 'Bound' && claim.warnings.some((warning) => /failed to provision|ProvisioningFailed|rpc error/i.test(warning)));
  const provisioner = classes?.storageClasses.find((storageClass) => storageClass.name === failing?.storageClassName)?.provisioner;
  if (!failing || !provisioner) return { gathered, finding };
  // ebs.csi.aws.com -> ebs; a driver's pods carry its short name and "csi" or "provisioner".
  const tokens = provisioner.split(/[./-]/).filter((token) => token.length >= 3 && !PROVISIONER_NOISE.has(token));
  const candidates = query.data('list_pods', {})?.pods.filter((candidate) => !candidate.healthy && /csi|provisioner/.test(candidate.name) && tokens.some((token) => candidate.name.includes(token))) ?? [];
  query.barrier();
  const broken = pickWorstPod(candidates);
  if (!broken) return { gathered, finding };
  const backendCase: Case = { clusterNow: gathered.clusterNow, ...gatherForPod({ namespace: broken.namespace, name: broken.name }, query, { focus: { kind: 'pod', namespace: broken.namespace, name: broken.name } }) };
  const backendFinding = classifyCase(backendCase);
  if (!backendFinding || backendFinding.category === 'no-issue') return { gathered, finding };
  const trail = `claim ${pod.namespace}/${failing.name} is not provisioned (${failing.warnings[0]?.slice(0, 200) ?? 'ProvisioningFailed'}); StorageClass ${failing.storageClassName} is provisioned by ${provisioner}, whose pod ${broken.namespace}/${broken.name} is ${broken.status}`;
  return { gathered: backendCase, finding: merge(backendFinding, trail, clientEvidence(gathered, finding)) };
}

const PROVISIONER_NOISE = new Set(['csi', 'com', 'aws', 'azure', 'gke', 'k8s', 'kubernetes', 'io', 'net', 'org', 'driver', 'storage']);

/** Resolution itself fails: the cluster DNS Service and its CoreDNS pods are the next hop. */
function followClusterDns(input: { gathered: Case; finding: Finding; query: Query; hops: number; line: string }): Conclusion {
  const { gathered, finding, query } = input;
  const service = query.data('describe_service', { namespace: 'kube-system', name: 'kube-dns' });
  query.barrier();
  if (!service) return { gathered, finding };
  const trail = `name resolution fails ("${input.line.trim().slice(0, 160)}"): followed to the cluster DNS Service kube-system/kube-dns`;
  return followService({ gathered, finding, query, hops: input.hops + 1, service, trail });
}

/** A Service reached from a client: no pod behind it, a broken backend pod, or healthy backends (the client's own finding stands). */
function followService(input: { gathered: Case; finding: Finding; query: Query; hops: number; service: ServiceDetailsData; trail: string }): Conclusion {
  const { gathered, finding, query, service, trail } = input;
  const client = clientEvidence(gathered, finding);
  const readyCount = service.endpoints.ready.length;
  if (Object.keys(service.selector).length > 0 && service.pods.total === 0) {
    // No pod at all: a workload behind the selector that runs none (scaled to zero, or refused its pods), or a selector that matches nothing.
    const owner = workloadBehind(service, query);
    if (owner && owner.desired === 0) {
      return { gathered, finding: withEvidence(finding, [`${trail}: it has no endpoints because ${owner.kind} ${owner.namespace}/${owner.name} is scaled to 0 replicas`]) };
    }
    if (owner) {
      const backendCase: Case = { clusterNow: gathered.clusterNow, ...gatherForWorkload({ kind: 'workload', workloadKind: owner.kind as WorkloadKind, namespace: owner.namespace, name: owner.name }, query) };
      const backendFinding = classifyCase(backendCase);
      if (backendFinding && backendFinding.category !== 'no-issue') return { gathered: backendCase, finding: merge(backendFinding, `${trail}, which has no pod: ${owner.kind} ${owner.namespace}/${owner.name} wants ${owner.desired} and has ${owner.ready} ready`, client) };
    }
    const backend: Finding = { ...serviceFinding({ ...gathered, service }), rule: 'service-selects-no-pod' };
    return { gathered: { ...gathered, service }, finding: merge(backend, `${trail}, whose selector matches no pod`, client) };
  }
  const broken = pickWorstPod(service.pods.pods.filter((pod) => !pod.healthy));
  if (!broken) {
    return { gathered, finding: withEvidence(finding, [`${trail}: ${readyCount} ready endpoint(s), its pods are healthy`]) };
  }
  const backendCase: Case = { clusterNow: gathered.clusterNow, ...gatherForPod({ namespace: broken.namespace, name: broken.name }, query, { focus: { kind: 'service', namespace: service.namespace, name: service.name }, service }) };
  const backendFinding = classifyCase(backendCase);
  if (!backendFinding || backendFinding.category === 'no-issue') {
    return { gathered, finding: withEvidence(finding, [`${trail}: ${readyCount} ready endpoint(s); pod ${broken.name} is ${broken.status}`]) };
  }
  const deeper = followChain(backendCase, backendFinding, query, input.hops);
  const hop = `${trail} (${readyCount} ready endpoint(s)), then to its pod ${broken.name} (${broken.status})`;
  return { gathered: deeper.gathered, finding: merge(deeper.finding, hop, client) };
}

/** The Deployment or StatefulSet whose pods the Service's selector would match (its own selector agrees with it). */
function workloadBehind(service: ServiceDetailsData, query: Query): WorkloadSummaryData | undefined {
  const deployments = query.data('list_deployments', { namespace: service.namespace });
  const statefulSets = query.data('list_stateful_sets', { namespace: service.namespace });
  query.barrier();
  const wanted = Object.entries(service.selector);
  return [...(deployments?.items ?? []), ...(statefulSets?.items ?? [])].find((workload) => {
    if (workload.kind === 'ReplicaSet') return false;
    const own = new Map(workload.selector.split(',').map((pair) => pair.split('=') as [string, string]));
    const shared = wanted.filter(([key]) => own.has(key));
    return shared.length > 0 && shared.every(([key, value]) => own.get(key) === value);
  });
}

/** The backend's finding, with the trail and the client's symptom after its own evidence. */
function merge(backend: Finding, trail: string, client: { label: string; lines: string[]; rule: string }): Finding {
  return {
    ...backend,
    cause: `${backend.cause}; this is why ${client.label} cannot reach it`,
    evidence: [...backend.evidence, trail, ...client.lines],
    rule: `${backend.rule ?? 'backend'} via ${client.rule}`,
  };
}

function clientEvidence(gathered: Case, finding: Finding): { label: string; lines: string[]; rule: string } {
  const workload = gathered.workload;
  const label = workload ? `${workload.kind} ${workload.namespace}/${workload.name}` : `pod ${gathered.pod?.name}`;
  return { label, rule: finding.rule ?? 'unknown', lines: finding.evidence.slice(0, 3).map((line) => `${label} (where the failure shows): ${line}`) };
}

function withEvidence(finding: Finding, lines: string[]): Finding {
  return { ...finding, evidence: [...finding.evidence, ...lines] };
}

/** The log lines behind the finding, most telling first, then the rest of the errors. */
function logLinesOf(gathered: Case, finding: Finding): string[] {
  const quoted = finding.evidence.filter((line) => line.startsWith('log: ')).map((line) => line.slice(5));
  return [...quoted, ...(gathered.logs?.errorLines ?? [])];
}
