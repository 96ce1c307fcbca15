/**
 * From the trigger to a focus. An alert names it in its labels; a person's sentence (or an
 * alert that names no Kubernetes object) is matched against the inventory: the pods of the
 * scope first, then workloads, Services, nodes and namespaces. A name nothing carries is
 * reported as absent rather than matched to a namesake.
 */
import type { Trigger } from '../../trigger.ts';
import { missingFromWords } from '../absent.ts';
import { alertWords, focusFromAlert } from '../alert-subject.ts';
import type { Focus } from '../case.ts';
import { mentionedNamespaces, mentionScore, pickMentioned, type Candidate } from '../mentions.ts';
import { failingNamedByPods } from '../narrow.ts';
import type { Query } from '../query.ts';
import { rolesReported } from '../roles.ts';
import { namesAKind, unknownName } from '../unknown-names.ts';
import { nearlyNamed } from '../unmatched.ts';
import { missingObject } from './missing.ts';

export function locateFocus(trigger: Trigger, query: Query): Focus {
  if (trigger.kind === 'alert') {
    const focus = focusFromAlert(trigger.alert.labels);
    if (focus.kind !== 'namespace' && focus.kind !== 'cluster') return focus;
    // A node's own exporter names the node only as its scrape target: `instance` is the node's IP (or name) and port.
    const node = nodeOfInstance(trigger.alert.labels, query);
    if (node) return { kind: 'node', name: node };
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
  // Only a Service that reaches no pod is a lead of its own; the others are found through their workloads.
  const services = query.data('list_services', { ...scope, noReadyEndpoints: true });
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
  // "No logs in Grafana", "queue has no consumers": the words name where the trouble shows; the component whose job failed is the lead.
  const player = rolePlayer(candidates, trigger.text, named, trigger.spoken);
  if (player) return player.focus;
  if (named) return named.focus;
  const mentioned = mentionedNamespaces(namespaces, trigger.text)[0];
  const namespace = trigger.namespace ?? mentioned;
  // A person's words that matched nothing, not even a namespace: what fails may not be what they meant.
  const names = [...candidates.map((candidate) => candidate.name), ...namespaces];
  const unmatched = trigger.spoken && !mentioned && !player && !nearlyNamed(trigger.text, names) && !namesAKind(trigger.text) ? { unmatched: trigger.text } : {};
  return namespace ? { kind: 'namespace', namespace, hint: trigger.text, ...unmatched } : { kind: 'cluster', ...unmatched };
}

/** The workload that plays the role the report's symptom points at, failing first, when the named one is healthy or nothing is named. */
function rolePlayer(candidates: readonly Candidate[], text: string, named: Candidate | undefined, spoken: boolean): Candidate | undefined {
  if (named?.unhealthy) return undefined;
  const roles = rolesReported(text);
  const players = roles.flatMap((role) => candidates.filter((candidate) => candidate.focus.kind === 'workload' && role.players.test(candidate.name)));
  const failing = players.find((candidate) => candidate.unhealthy);
  // A node agent plays its role even when it looks well, but only a person's report is read that way.
  const agents = spoken && roles.some((role) => role.agentFallback) ? players.find((candidate) => candidate.focus.kind === 'workload' && candidate.focus.workloadKind === 'DaemonSet') : undefined;
  // Nothing named, and one workload plays the role the symptom points at: it is what the person means, however well it looks.
  const only = spoken && !named && players.length === 1 ? players[0] : undefined;
  return failing ?? agents ?? only;
}

/** The node an alert from a node's own exporter (node-exporter, job or alert name) is about, read from its `instance`. */
function nodeOfInstance(labels: Record<string, string>, query: Query): string | undefined {
  if (!(NODE_EXPORTER_JOB.test(labels.job ?? '') || /^Node[A-Z]/.test(labels.alertname ?? ''))) return undefined;
  const host = (labels.instance ?? '').replace(/:\d+$/, '');
  const nodes = query.data('list_nodes', {})?.nodes ?? [];
  query.barrier();
  const named = nodes.find((node) => node.name === host || node.internalIP === host || node.name.split('.')[0] === host)?.name;
  // A node alert whose instance names no node (relabelled, or stripped): the one node in trouble is what it is about.
  const troubled = nodes.filter((node) => !node.healthy);
  return named ?? (troubled.length === 1 ? troubled[0]?.name : undefined);
}

const NODE_EXPORTER_JOB = /node-exporter/;
