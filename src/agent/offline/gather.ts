/**
 * The engine's investigation procedure: from the trigger to a focus, from the focus to
 * the failing pod and its workload, then the facts a diagnosis needs (pod details, the
 * right container's log, the Deployment's rollout history and events, the node, claims,
 * quotas, the Service). Every fact comes from a tool call; independent calls are asked
 * for together so they run in one turn.
 */
import type { DeploymentDetailsData } from '../../tools/describe-deployment.ts';
import type { PodDetailsData } from '../../tools/describe-pod.ts';
import type { ServiceDetailsData } from '../../tools/describe-service.ts';
import type { ContainerStatusData, PodSummaryData } from '../../tools/format/pod-status.ts';
import type { JobsData } from '../../tools/list-jobs.ts';
import type { NodeSummaryData } from '../../tools/list-nodes.ts';
import type { AutoscalerData } from '../../tools/list-horizontal-pod-autoscalers.ts';
import type { PodLogsData } from '../../tools/pod-logs.ts';
import type { PodTemplateData } from '../../tools/format/pod-template.ts';
import type { Trigger } from '../trigger.ts';
import { alertWords, focusFromAlert, mentionedNamespaces, mentionScore, pickMentioned, pickWorstPod, workloadOfController, workloadOfPod, type Candidate, type Focus, type WorkloadKind } from './locate.ts';
import type { Query } from './query.ts';
import { describeMissing, missingFromWords, type Missing } from './absent.ts';
import { nearlyNamed } from './unmatched.ts';
import { namesAKind, unknownName } from './unknown-names.ts';
import type { ToolInputMap } from '../../tools/registry.ts';
import { failingNamedByPods, namespacePods } from './narrow.ts';
import { rolesReported } from './roles.ts';
import { isMisscheduled } from './rules/placement.ts';
import type { WorkloadHistory } from './remediation.ts';
import type { RolloutHistoryData } from '../../tools/rollout-history.ts';
import { isNodeExhaustion, isQuotaRefusal } from './signals/index.ts';

/** Everything gathered about the incident, for the rules to judge. */
export interface Case {
  focus: Focus;
  /** The cluster's clock when the facts were read. */
  clusterNow: Date;
  /** The workload in question, when known: what a diagnosis names as culprit. */
  workload?: { kind: WorkloadKind | 'Pod' | 'ReplicaSet'; namespace: string; name: string };
  pod?: PodDetailsData;
  /** The container the logs are of, and its log. */
  logs?: PodLogsData;
  deployment?: DeploymentDetailsData;
  /** Pods of the workload, when listed (their summaries). */
  workloadPods?: PodSummaryData[];
  /** Events of the workload (its controller's and ReplicaSets'), when read. */
  workloadEvents?: { type: string; reason: string; message: string; count: number; lastSeenAgeSeconds?: number; object: { kind: string; name: string } }[];
  node?: NodeSummaryData;
  service?: ServiceDetailsData;
  job?: JobsData;
  /** What the sentence or alert pointed at could not be found (or, for an area, that nothing in it fails). */
  notFound?: string;
  /** The object the sentence or alert named, when the cluster does not have it. */
  missing?: Missing;
  /** How many workloads (or bare pods) fail in the area searched, when a namespace or the cluster was searched. */
  failingWorkloads?: number;
  /** A person's words that named nothing the cluster has, and the namespace searched instead (none: the cluster). */
  unmatched?: { words: string; namespace?: string };
  /** What the container's current run has logged (when its log was read), apart from any earlier run's. */
  currentLogLines?: string[];
  /** The pod the alert named, gone since (replaced by its workload). */
  replacedPod?: string;
  /** A DaemonSet's pod template and every node: where it should run and where it does. */
  daemonSet?: { template: PodTemplateData; nodes: NodeSummaryData[] };
  /** A StatefulSet's or DaemonSet's rollout history (a Deployment's comes with `deployment`). */
  history?: WorkloadHistory;
  /** The HorizontalPodAutoscaler an HPA alert named, whose target is the workload. */
  autoscaler?: AutoscalerData;
}

const POD_NAME_SUFFIX = /^(.+?)(-[a-z0-9]{8,10})?-[a-z0-9]{5}$/;

export function gatherCase(trigger: Trigger, query: Query): Case {
  const focus = locate(trigger, query);
  return { ...gatherForFocus(focus, query), clusterNow: query.clusterNow() };
}

type Gathered = Omit<Case, 'clusterNow'>;

function locate(trigger: Trigger, query: Query): Focus {
  if (trigger.kind === 'alert') {
    const focus = focusFromAlert(trigger.alert.labels);
    if (focus.kind !== 'namespace' && focus.kind !== 'cluster') return focus;
    // An application's own alert names no Kubernetes object: its words are matched against the inventory like a sentence.
    const namespace = focus.kind === 'namespace' ? focus.namespace : undefined;
    const located = locateFromText({ text: alertWords(trigger.alert), ...(namespace ? { namespace } : {}), spoken: false }, query);
    // When nothing visibly fails there, the alert's own name ("CheckoutErrorRateHigh") is the best hint at which pods to read.
    const name = (trigger.alert.labels.alertname ?? '').replace(/([a-z0-9])([A-Z])/g, '$1 $2');
    return located.kind === 'namespace' ? { ...located, hint: `${name} ${located.hint ?? ''}` } : located;
  }
  return locateFromText({ text: trigger.text, ...(trigger.namespace ? { namespace: trigger.namespace } : {}), spoken: true }, query);
}

/**
 * From words to a focus. `spoken` is a person's sentence: a name in it that nothing in the
 * cluster carries is reported as not found. An alert's label values are not (they name
 * exporters and metrics as often as workloads).
 */
function locateFromText(trigger: { text: string; namespace?: string; spoken: boolean }, query: Query): Focus {
  // A person who names the namespace has narrowed the search already.
  const scope = trigger.namespace ? { namespace: trigger.namespace } : {};
  const pods = query.data('list_pods', scope);
  query.barrier();
  // The namespace the person gave does not exist: that is the answer, not an empty namespace.
  const missingScope = trigger.namespace ? missingObject({ kind: 'Namespace', name: trigger.namespace }, query.get('list_pods', scope)) : undefined;
  if (missingScope) return { kind: 'absent', missing: missingScope };
  // Narrow first: a failing workload the words name in full is the lead, without listing the rest of the cluster.
  const narrowed = failingNamedByPods(pods?.pods ?? [], trigger.text);
  if (narrowed) return narrowed.focus;
  const deployments = query.data('list_deployments', scope);
  const statefulSets = query.data('list_stateful_sets', scope);
  const daemonSets = query.data('list_daemon_sets', scope);
  const cronJobs = query.data('list_cron_jobs', scope);
  const jobs = query.data('list_jobs', scope);
  const services = query.data('list_services', scope);
  const nodes = query.data('list_nodes', {});
  query.barrier();

  const candidates: Candidate[] = [];
  for (const list of [deployments, statefulSets, daemonSets]) {
    for (const item of list?.items ?? []) {
      if (item.kind === 'ReplicaSet') continue;
      candidates.push({ focus: { kind: 'workload', workloadKind: item.kind, namespace: item.namespace, name: item.name }, name: item.name, namespace: item.namespace, unhealthy: !item.healthy });
    }
  }
  for (const cronJob of cronJobs?.cronJobs ?? []) {
    const unhealthy = cronJob.recentJobs.some((job) => job.state === 'Failed');
    candidates.push({ focus: { kind: 'workload', workloadKind: 'CronJob', namespace: cronJob.namespace, name: cronJob.name }, name: cronJob.name, namespace: cronJob.namespace, unhealthy });
  }
  // A Job of its own (no CronJob above it) is a workload a person may name.
  for (const job of jobs?.jobs ?? []) {
    if (job.owner?.kind === 'CronJob') continue;
    candidates.push({ focus: { kind: 'workload', workloadKind: 'Job', namespace: job.namespace, name: job.name }, name: job.name, namespace: job.namespace, unhealthy: job.state === 'Failed' });
  }
  for (const service of services?.services ?? []) {
    // A Service is named only when it is the thing in trouble; its workload is a candidate of its own.
    if (service.noReadyEndpoints) candidates.push({ focus: { kind: 'service', namespace: service.namespace, name: service.name }, name: service.name, namespace: service.namespace, unhealthy: true });
  }
  for (const node of nodes?.nodes ?? []) candidates.push({ focus: { kind: 'node', name: node.name }, name: node.name, unhealthy: !node.healthy });
  for (const pod of pods?.pods ?? []) {
    if (!pod.owner) candidates.push({ focus: { kind: 'pod', namespace: pod.namespace, name: pod.name }, name: pod.name, namespace: pod.namespace, unhealthy: !pod.healthy });
  }

  const namespaces = [...new Set([...(pods?.pods ?? []).map((pod) => pod.namespace), ...candidates.flatMap((candidate) => (candidate.namespace ? [candidate.namespace] : []))])];
  const named = pickMentioned(candidates, trigger.text, namespaces);
  // A name nothing carries, where nothing is named in full: say that it does not exist rather than blame a namesake.
  const unknown = !trigger.spoken || (named && mentionScore(named.name, trigger.text) >= 90) ? undefined : unknownName(trigger.text, [...candidates.map((candidate) => candidate.name), ...namespaces, ...(pods?.pods ?? []).map((pod) => pod.name)], namespaces);
  if (unknown) {
    const namespace = trigger.namespace ?? mentionedNamespaces(namespaces, trigger.text)[0];
    return { kind: 'absent', missing: missingFromWords({ unknown, candidates, namespaces, namespace }) };
  }
  // A workload and the Service in front of it often share a name: the failing workload is the better lead.
  if (named?.focus.kind === 'service') {
    const twin = candidates.find((candidate) => candidate.focus.kind === 'workload' && candidate.name === named.name && candidate.namespace === named.namespace && candidate.unhealthy);
    if (twin) return twin.focus;
  }
  // "No logs in Grafana": the words name where the person looked; the component whose job failed is the lead.
  const player = trigger.spoken ? rolePlayer(candidates, trigger.text, named) : undefined;
  if (player) return player.focus;
  if (named) return named.focus;
  const mentioned = mentionedNamespaces(namespaces, trigger.text)[0];
  const namespace = trigger.namespace ?? mentioned;
  // A person's words that matched nothing, not even a namespace: what fails may not be what they meant.
  const names = [...candidates.map((candidate) => candidate.name), ...namespaces];
  const unmatched = trigger.spoken && !mentioned && !player && !nearlyNamed(trigger.text, names) && !namesAKind(trigger.text) ? { unmatched: trigger.text } : {};
  return namespace ? { kind: 'namespace', namespace, hint: trigger.text, ...unmatched } : { kind: 'cluster', ...unmatched };
}

/** What a missing pod's namespace runs instead: its workloads (and bare pods), by name. */
function workloadsOf(namespace: string, pods: readonly PodSummaryData[] | undefined): Pick<Missing, 'existing' | 'existingLabel'> {
  if (!pods) return {};
  const names = [...new Set(pods.map((pod) => workloadOfPod(pod)?.name ?? pod.name))].sort().slice(0, 10);
  return { existing: names, existingLabel: `workloads in ${namespace}` };
}

/** `{ missing }` when the call that should have read the object answered that it does not exist. */
function missingField(object: Missing, result: ReturnType<Query['get']>): { missing?: Missing } {
  const missing = missingObject(object, result);
  return missing ? { missing } : {};
}

/** The object as named, when the call that should have read it answered that it does not exist; undefined for any other failure. */
function missingObject(object: Missing, result: ReturnType<Query['get']>): Missing | undefined {
  if (!result || result.ok || result.error !== 'not-found') return undefined;
  return { ...object, toolMessage: result.content };
}

/** The workload that plays the role the report's symptom points at, failing first, when the named one is healthy or nothing is named. */
function rolePlayer(candidates: readonly Candidate[], text: string, named: Candidate | undefined): Candidate | undefined {
  if (named?.unhealthy) return undefined;
  const players = rolesReported(text).flatMap((role) => candidates.filter((candidate) => candidate.focus.kind === 'workload' && role.players.test(candidate.name)));
  return players.find((candidate) => candidate.unhealthy) ?? players.find((candidate) => candidate.focus.kind === 'workload' && candidate.focus.workloadKind === 'DaemonSet');
}

function gatherForFocus(focus: Focus, query: Query): Gathered {
  switch (focus.kind) {
    case 'pod':
      return gatherForPod(focus, query, { focus });
    case 'workload':
      return gatherForWorkload(focus, query);
    case 'node':
      return gatherForNode(focus.name, query, focus);
    case 'service':
      return gatherForService(focus, query);
    case 'pvc':
      return gatherForClaim(focus, query);
    case 'quota':
      return gatherForQuota(focus, query);
    case 'autoscaler':
      return gatherForAutoscaler(focus, query);
    case 'absent':
      // The inventory the sentence was matched against has no such object: that is the answer.
      return { focus, notFound: describeMissing(focus.missing), missing: focus.missing };
    case 'namespace':
    case 'cluster':
      // The words that matched nothing stay with the case, whatever it leads to (a pod, a node).
      return { ...gatherForArea(focus, query), failingWorkloads: countFailingWorkloads(focus, query), ...(focus.unmatched !== undefined ? { unmatched: { words: focus.unmatched, ...(focus.kind === 'namespace' ? { namespace: focus.namespace } : {}) } } : {}) };
  }
}

/** The workloads (or bare pods) with a pod in trouble in the area, from the pods already listed. */
function countFailingWorkloads(focus: Extract<Focus, { kind: 'namespace' | 'cluster' }>, query: Query): number {
  const pods = focus.kind === 'namespace' ? namespacePods(focus.namespace, query) : query.data('list_pods', {});
  const failing = (pods?.pods ?? []).filter((pod) => !pod.healthy).map((pod) => `${pod.namespace}/${workloadOfPod(pod)?.name ?? pod.name}`);
  return new Set(failing).size;
}

function gatherForArea(focus: Extract<Focus, { kind: 'namespace' | 'cluster' }>, query: Query): Gathered {
  const pods = focus.kind === 'namespace' ? namespacePods(focus.namespace, query) : query.data('list_pods', {});
  const nodes = query.data('list_nodes', {});
  query.barrier();
  const unhealthy = (pods?.pods ?? []).filter((pod) => !pod.healthy);
  // Several pods failing at once on a node that is itself unwell: the node is the story.
  const sick = (nodes?.nodes ?? []).filter((node) => !node.healthy);
  for (const node of sick) {
    const onNode = unhealthy.filter((pod) => pod.node === node.name);
    if (onNode.length > 0 && onNode.length * 2 >= unhealthy.length) return gatherForNode(node.name, query, { kind: 'node', name: node.name });
  }
  const worst = pickWorstPod(unhealthy);
  if (worst) return gatherForPod({ namespace: worst.namespace, name: worst.name }, query, { focus });
  // No pod in trouble: what is left to look at, asked for at once (workloads, Services, the controllers' refusals, DaemonSets).
  const scope = focus.kind === 'namespace' ? { namespace: focus.namespace } : {};
  const deployments = query.data('list_deployments', scope);
  const services = query.data('list_services', scope);
  // Asked for now so they arrive in the same turn; read below when the checks before them find nothing.
  const daemonSets = focus.kind === 'namespace' ? query.data('list_daemon_sets', { namespace: focus.namespace }) : undefined;
  if (focus.kind === 'namespace') query.data('list_events', { namespace: focus.namespace, type: 'Warning' });
  query.barrier();
  const failing = deployments?.items.find((item) => !item.healthy && item.kind === 'Deployment');
  if (failing) return gatherForWorkload({ kind: 'workload', workloadKind: 'Deployment', namespace: failing.namespace, name: failing.name }, query);
  // Every pod and workload is fine: a Service that reaches none of them is what is left.
  const empty = services?.services.find((service) => service.noReadyEndpoints);
  if (empty) return gatherForService({ kind: 'service', namespace: empty.namespace, name: empty.name }, query);
  // Pods that were never created leave no pod to look at: only their controller's events tell.
  const refused = focus.kind === 'namespace' ? workloadRefusedByQuota({ namespace: focus.namespace }, query) : undefined;
  if (refused && focus.kind === 'namespace') return gatherForWorkload({ kind: 'workload', workloadKind: refused.workloadKind, namespace: focus.namespace, name: refused.name }, query);
  // A DaemonSet whose pods all run ready can still be kept off the nodes it belongs on.
  if (focus.kind === 'namespace') {
    for (const daemonSet of (daemonSets?.items ?? []).slice(0, MAX_DAEMON_SETS_CHECKED)) {
      const checked = gatherForWorkload({ kind: 'workload', workloadKind: 'DaemonSet', namespace: focus.namespace, name: daemonSet.name }, query);
      if (isMisscheduled({ ...checked, clusterNow: query.clusterNow() })) return checked;
    }
  }
  // Nothing visibly fails, yet something was reported: the pod whose workload the words name best may say in its log.
  const hinted = focus.kind === 'namespace' && focus.hint ? podNamedBy(focus.hint, pods?.pods ?? []) : undefined;
  if (hinted) return gatherForPod({ namespace: hinted.namespace, name: hinted.name }, query, { focus }, { readHealthyLogs: true });
  return { focus, notFound: 'an unhealthy pod or workload' };
}

export function gatherForWorkload(focus: Extract<Focus, { kind: 'workload' }>, query: Query): Gathered {
  const { namespace, name, workloadKind } = focus;
  const base: Gathered = { focus, workload: { kind: workloadKind, namespace, name } };
  if (workloadKind === 'Deployment') {
    const deployment = query.data('describe_deployment', { namespace, name });
    query.barrier();
    if (!deployment) return { ...base, notFound: `Deployment ${namespace}/${name}`, ...missingField({ kind: 'Deployment', namespace, name }, query.get('describe_deployment', { namespace, name })) };
    const withDeployment: Gathered = { ...base, deployment, workloadPods: deployment.pods.pods, workloadEvents: deployment.events };
    return followWorstPod(withDeployment, deployment.pods.pods, query);
  }
  if (workloadKind === 'StatefulSet' || workloadKind === 'DaemonSet') {
    const tool = workloadKind === 'StatefulSet' ? 'list_stateful_sets' : 'list_daemon_sets';
    const listed = query.data(tool, { namespace, name });
    const rollout = query.data('rollout_history', { namespace, name, kind: workloadKind });
    // A DaemonSet belongs on every node it tolerates: the nodes say where it runs that it should not, or not where it should.
    const nodes = workloadKind === 'DaemonSet' ? query.data('list_nodes', {}) : undefined;
    query.barrier();
    if (!listed?.details) return { ...base, notFound: `${workloadKind} ${namespace}/${name}`, ...missingField({ kind: workloadKind, namespace, name }, query.get(tool, { namespace, name })) };
    const desired = listed.items.find((item) => item.name === name)?.desired ?? listed.details.pods.total;
    const history = rollout ? { history: historyFrom(rollout, workloadKind, desired) } : {};
    const daemonSet = nodes ? { daemonSet: { template: listed.details.template, nodes: nodes.nodes } } : {};
    return followWorstPod({ ...base, ...history, ...daemonSet, workloadPods: listed.details.pods.pods, workloadEvents: listed.details.events }, listed.details.pods.pods, query);
  }
  let jobName = name;
  if (workloadKind === 'CronJob') {
    const cronJobs = query.data('list_cron_jobs', { namespace, name });
    query.barrier();
    const recent = cronJobs?.cronJobs[0]?.recentJobs ?? [];
    const pick = recent.find((job) => job.state === 'Failed') ?? recent[0];
    if (!pick) return { ...base, notFound: `a Job of CronJob ${namespace}/${name}` };
    jobName = pick.name;
  }
  const job = query.data('list_jobs', { namespace, name: jobName });
  query.barrier();
  if (!job?.details) return { ...base, notFound: `Job ${namespace}/${jobName}`, ...(jobName === name ? missingField({ kind: 'Job', namespace, name }, query.get('list_jobs', { namespace, name })) : {}) };
  // A Job a CronJob made is the CronJob's failure: it makes the next one the same way.
  const owner = job.jobs[0]?.owner;
  const workload = owner?.kind === 'CronJob' ? { kind: 'CronJob' as const, namespace, name: owner.name } : base.workload;
  const known: Gathered = { ...base, ...(workload ? { workload } : {}), job, workloadPods: job.details.pods.pods, workloadEvents: job.details.events };
  // The failed Job's pods are gone (a deadline deletes them): the CronJob's newer run fails the same way, and shows how.
  if (owner?.kind === 'CronJob' && !job.details.pods.pods.some((pod) => !pod.healthy)) {
    const newer = query.data('list_cron_jobs', { namespace, name: owner.name })?.cronJobs[0]?.recentJobs.find((candidate) => candidate.name !== jobName && candidate.state !== 'Complete');
    query.barrier();
    const next = newer ? query.data('list_jobs', { namespace, name: newer.name }) : undefined;
    query.barrier();
    const failing = next?.details?.pods.pods.filter((pod) => !pod.healthy) ?? [];
    if (next?.details && failing.length > 0) return followWorstPod({ ...known, workloadPods: next.details.pods.pods, workloadEvents: [...job.details.events, ...next.details.events] }, next.details.pods.pods, query);
  }
  return followWorstPod(known, job.details.pods.pods, query);
}

/** The running pod whose workload's name the words mention best (some of its words at least). */
function podNamedBy(text: string, pods: readonly PodSummaryData[]): PodSummaryData | undefined {
  const scored = pods
    .filter((pod) => pod.phase === 'Running')
    .map((pod) => ({ pod, score: mentionScore(workloadOfPod(pod)?.name ?? pod.name, text) }))
    .filter((entry) => entry.score > 0)
    .sort((left, right) => right.score - left.score || right.pod.restarts - left.pod.restarts);
  return scored[0]?.pod;
}

/** Follows the pod most worth a look, when one is in trouble now or crashed within the last half hour. */
function followWorstPod(known: Gathered, pods: readonly PodSummaryData[], query: Query): Gathered {
  // Pods stranded on a node (Terminating or Unknown there): if that node is lost, it is why the others are missing or Pending.
  const stranded = pods.find((pod) => pod.node && STRANDED_STATUSES.has(pod.status));
  if (stranded?.node) {
    const node = query.data('list_nodes', { name: stranded.node })?.nodes[0];
    query.barrier();
    if (node && !node.ready) return gatherForNode(node.name, query, { kind: 'node', name: node.name });
  }
  const now = query.clusterNow().getTime();
  const recentlyFailed = (pod: PodSummaryData): boolean => {
    const finished = pod.problem?.state.finishedAt ? Date.parse(pod.problem.state.finishedAt) : Number.NaN;
    return !Number.isNaN(finished) && now - finished < RECENT_FAILURE_MS;
  };
  const worst = pickWorstPod(pods.filter((pod) => !pod.healthy || recentlyFailed(pod)));
  if (!worst) return known;
  return gatherForPod({ namespace: worst.namespace, name: worst.name }, query, known);
}

const RECENT_FAILURE_MS = 30 * 60 * 1000;
const MAX_DAEMON_SETS_CHECKED = 3;
const STRANDED_STATUSES = new Set(['Terminating', 'Unknown', 'NodeLost']);

export function gatherForPod(target: { namespace: string; name: string }, query: Query, known: Gathered, options: { readHealthyLogs?: boolean } = {}): Gathered {
  const pod = query.data('describe_pod', { namespace: target.namespace, name: target.name });
  query.barrier();
  if (!pod) return podGone(target, query, known);
  // The top of the pod's owner chain names the workload, a CronJob above a Job included.
  // An operator's custom resource above the StatefulSet (a Prometheus, a Kafka) is not a workload kubectl can roll: the highest workload is.
  const topWorkload = [...pod.owners].reverse().find((owner) => WORKLOAD_KINDS.includes(owner.kind as WorkloadKind)) ?? pod.workload;
  const workload = pod.owners.length > 0 || !known.workload ? { kind: topWorkload.kind as WorkloadKind | 'Pod', namespace: target.namespace, name: topWorkload.name } : known.workload;
  const deployment =
    known.deployment ?? (workload.kind === 'Deployment' ? query.data('describe_deployment', { namespace: target.namespace, name: workload.name }) : undefined);
  // The Job above the pod says whether it failed for good (backoff limit, deadline).
  const jobOwner = known.job ? undefined : pod.owners.find((owner) => owner.kind === 'Job');
  const job = jobOwner ? query.data('list_jobs', { namespace: target.namespace, name: jobOwner.name }) : undefined;
  const revisioned = workload.kind === 'StatefulSet' || workload.kind === 'DaemonSet' ? workload.kind : undefined;
  const rollout = revisioned && !known.history ? query.data('rollout_history', { namespace: target.namespace, name: workload.name, kind: revisioned }) : undefined;
  const history = known.history ?? (rollout && revisioned ? historyFrom(rollout, revisioned, known.workloadPods?.length ?? rollout.revisions.find((revision) => revision.current)?.replicas ?? 0) : undefined);
  const container = troubledContainer(pod.containers) ?? (options.readHealthyLogs ? pod.containers.find((candidate) => !candidate.init) : undefined);
  const logs = container && hasRun(container) ? query.data('get_pod_logs', logRequest(pod, container)) : undefined;
  // A restarted container that runs now: the previous run says how it ended, the current one what it says now.
  // A probe-killed container's last run may have got further (how long it takes to start) than the one before.
  const probeKilled = pod.events.some((event) => /(Liveness|Startup) probe failed|failed (liveness|startup) probe/i.test(event.message));
  const bothRuns = container !== undefined && container.restartCount > 0 && (container.state.state === 'running' || (container.state.state === 'waiting' && probeKilled));
  const current = bothRuns ? query.data('get_pod_logs', { namespace: pod.namespace, name: pod.name, container: container.name }) : undefined;
  const checkedNode = pod.node && needsNodeCheck(pod) ? query.data('list_nodes', { name: pod.node })?.nodes[0] : undefined;
  query.barrier();
  const log = logs && current ? joinLogs(logs, current) : logs;
  // Out of threads or process ids: something the node shares between all its pods may have run out.
  const exhausted = log !== undefined && [...log.errorLines, ...log.lines].some((line) => isNodeExhaustion(line));
  const node = checkedNode ?? (exhausted && pod.node ? query.data('list_nodes', { name: pod.node })?.nodes[0] : undefined);
  query.barrier();
  return {
    ...known,
    workload,
    pod,
    ...(log ? { logs: log } : {}),
    ...(current ? { currentLogLines: current.lines } : logs && !logs.previous ? { currentLogLines: logs.lines } : {}),
    ...(deployment ? { deployment, workloadEvents: known.workloadEvents ?? deployment.events } : {}),
    ...(node ? { node } : {}),
    ...(history ? { history } : {}),
    ...(job ? { job } : {}),
  };
}

function historyFrom(rollout: RolloutHistoryData, kind: 'StatefulSet' | 'DaemonSet', desired: number): WorkloadHistory {
  return {
    kind,
    namespace: rollout.namespace,
    name: rollout.name,
    desired,
    ...(rollout.currentRevision !== undefined ? { currentRevision: rollout.currentRevision } : {}),
    revisions: rollout.revisions.map(({ template: _template, ...revision }) => revision),
    changes: rollout.changes,
  };
}

/** The previous run's log, then the current run's: one log in time order. */
function joinLogs(previous: PodLogsData, current: PodLogsData): PodLogsData {
  return { ...current, previous: false, totalLines: previous.totalLines + current.totalLines, lines: [...previous.lines, ...current.lines], errorLines: [...previous.errorLines, ...current.errorLines] };
}

/** The pod the alert named is gone (replaced): follow its workload, guessed from the name. */
function podGone(target: { namespace: string; name: string }, query: Query, known: Gathered): Gathered {
  const pods = query.data('list_pods', { namespace: target.namespace });
  query.barrier();
  const prefix = POD_NAME_SUFFIX.exec(target.name)?.[1];
  const sibling = (pods?.pods ?? []).find((pod) => prefix !== undefined && pod.name.startsWith(`${prefix}-`));
  const workload = sibling ? workloadOfPod(sibling) : undefined;
  if (!workload) return { ...known, notFound: `pod ${target.namespace}/${target.name}`, ...missingField({ kind: 'Pod', namespace: target.namespace, name: target.name, ...workloadsOf(target.namespace, pods?.pods) }, query.get('describe_pod', { namespace: target.namespace, name: target.name })) };
  return { ...gatherForWorkload({ kind: 'workload', workloadKind: workload.workloadKind, namespace: target.namespace, name: workload.name }, query), replacedPod: target.name };
}

function gatherForNode(name: string, query: Query, focus: Focus): Gathered {
  const node = query.data('list_nodes', { name })?.nodes[0];
  const pods = query.data('list_pods', { fieldSelector: `spec.nodeName=${name}` });
  query.barrier();
  if (!node) return { focus, notFound: `node ${name}`, ...missingField({ kind: 'Node', name }, query.get('list_nodes', { name })) };
  return { focus, node, workloadPods: pods?.pods ?? [] };
}

function gatherForService(focus: Extract<Focus, { kind: 'service' }>, query: Query): Gathered {
  const service = query.data('describe_service', { namespace: focus.namespace, name: focus.name });
  query.barrier();
  if (!service) return { focus, notFound: `Service ${focus.namespace}/${focus.name}`, ...missingField({ kind: 'Service', namespace: focus.namespace, name: focus.name }, query.get('describe_service', { namespace: focus.namespace, name: focus.name })) };
  // Pods match but some are not ready: the pods' own trouble is the cause, not the Service.
  const worst = pickWorstPod(service.pods.pods);
  if (worst && !worst.healthy) return gatherForPod({ namespace: worst.namespace, name: worst.name }, query, { focus, service });
  // Healthy pods but no endpoint, and a targetPort no pod declares: one pod's ports show what it should name.
  if (worst && service.endpoints.ready.length === 0 && service.unmatchedTargetPorts.length > 0) return gatherForPod({ namespace: worst.namespace, name: worst.name }, query, { focus, service });
  // Every pod ready, yet the Service is alerted on (errors, latency): what its pods log says why.
  if (worst && service.endpoints.ready.length > 0) return gatherForPod({ namespace: worst.namespace, name: worst.name }, query, { focus, service }, { readHealthyLogs: true });
  return { focus, service };
}

/** An HPA alert names the autoscaler: its scaleTargetRef is the workload whose replicas do not come up (or are at the limit). */
function gatherForAutoscaler(focus: Extract<Focus, { kind: 'autoscaler' }>, query: Query): Gathered {
  const autoscaler = query.data('list_horizontal_pod_autoscalers', { namespace: focus.namespace, name: focus.name })?.autoscalers[0];
  query.barrier();
  if (!autoscaler) return { focus, notFound: `HorizontalPodAutoscaler ${focus.namespace}/${focus.name}`, ...missingField({ kind: 'HorizontalPodAutoscaler', namespace: focus.namespace, name: focus.name }, query.get('list_horizontal_pod_autoscalers', { namespace: focus.namespace, name: focus.name })) };
  const kind = autoscaler.target.kind;
  if (!WORKLOAD_KINDS.includes(kind as WorkloadKind)) return { focus, autoscaler, notFound: `the ${kind} ${focus.namespace}/${autoscaler.target.name} that HorizontalPodAutoscaler ${focus.name} scales` };
  return { ...gatherForWorkload({ kind: 'workload', workloadKind: kind as WorkloadKind, namespace: focus.namespace, name: autoscaler.target.name }, query), autoscaler };
}

const WORKLOAD_KINDS: readonly WorkloadKind[] = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];

/** A quota alert names the quota, not its victim: the controller that cannot create pods says who it is. */
function gatherForQuota(focus: Extract<Focus, { kind: 'quota' }>, query: Query): Gathered {
  const workload = workloadRefusedByQuota({ namespace: focus.namespace, quota: focus.name }, query);
  if (!workload) return gatherForArea({ kind: 'namespace', namespace: focus.namespace }, query);
  return gatherForWorkload({ kind: 'workload', workloadKind: workload.workloadKind, namespace: focus.namespace, name: workload.name }, query);
}

/** The workload whose controller reports that a quota or LimitRange refused its pods, if any. */
function workloadRefusedByQuota(input: { namespace: string; quota?: string }, query: Query): { workloadKind: WorkloadKind; name: string } | undefined {
  const events = query.data('list_events', { namespace: input.namespace, type: 'Warning' });
  query.barrier();
  const refused = (events?.events ?? []).filter((event) => isQuotaRefusal(event.message));
  const refusal = (input.quota ? refused.find((event) => event.message.includes(input.quota!)) : undefined) ?? refused[0];
  return refusal ? workloadOfController(refusal.object) : undefined;
}


function gatherForClaim(focus: Extract<Focus, { kind: 'pvc' }>, query: Query): Gathered {
  const pods = query.data('list_pods', { namespace: focus.namespace });
  query.barrier();
  // StatefulSet claims are named <template>-<pod>: find the pod that mounts this one.
  const user = (pods?.pods ?? []).find((pod) => focus.name.endsWith(`-${pod.name}`)) ?? pickWorstPod((pods?.pods ?? []).filter((pod) => pod.phase === 'Pending'));
  if (!user) return { focus, notFound: `a pod using claim ${focus.namespace}/${focus.name}` };
  return gatherForPod({ namespace: user.namespace, name: user.name }, query, { focus });
}

/** The container in trouble: a failing init container first, then a waiting, crashed or unready one. */
export function troubledContainer(containers: readonly ContainerStatusData[]): ContainerStatusData | undefined {
  // An init container that waits, failed, restarts, or still runs while the app waits for it, holds the pod back.
  const regularWaiting = containers.some((container) => !container.init && container.state.state === 'waiting' && container.state.reason === 'PodInitializing');
  const failingInit = containers.find(
    (container) =>
      container.init &&
      (container.state.state === 'waiting' ||
        (container.state.state === 'terminated' && container.state.exitCode !== 0) ||
        (container.restartCount > 0 && container.state.state !== 'terminated') ||
        (container.state.state === 'running' && regularWaiting)),
  );
  if (failingInit) return failingInit;
  const regular = containers.filter((container) => !container.init);
  return (
    regular.find((container) => container.state.state === 'waiting' && container.state.reason !== 'PodInitializing') ??
    regular.find((container) => container.lastState?.state === 'terminated' || container.state.state === 'terminated') ??
    regular.find((container) => !container.ready && container.state.state === 'running') ??
    regular.find((container) => container.restartCount > 0)
  );
}

/** A container that never started (image pull, missing config) has no log to read. */
function hasRun(container: ContainerStatusData): boolean {
  return container.restartCount > 0 || container.state.state !== 'waiting' || container.lastState !== undefined;
}

/** The previous run holds what a restarted container printed before it died. */
function logRequest(pod: PodDetailsData, container: ContainerStatusData): ToolInputMap['get_pod_logs'] {
  const previous = container.restartCount > 0 && container.state.state !== 'terminated';
  return { namespace: pod.namespace, name: pod.name, container: container.name, ...(previous ? { previous: true } : {}) };
}

/** A pod that is unready or lost without a container to blame may be its node's victim. */
function needsNodeCheck(pod: PodDetailsData): boolean {
  if (['Unknown', 'NodeLost', 'Terminating', 'Evicted'].includes(pod.status) || pod.reason === 'NodeLost' || pod.reason === 'Evicted') return true;
  const ready = pod.conditions.find((condition) => condition.type === 'Ready');
  return ready?.status !== 'True' && troubledContainer(pod.containers) === undefined && pod.phase === 'Running';
}
