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
import { ALL_WORDS, mentionedNamespaces, mentionScore, pickMentioned, type Candidate } from '../mentions.ts';
import { failingNamedByPods } from '../narrow.ts';
import type { Query } from '../query.ts';
import { rolesReported } from '../roles.ts';
import { namesAKind, unknownName } from '../unknown-names.ts';
import type { PodSummaryData } from '../../../tools/format/pod-status.ts';
import { failingStateOf, workloadOfPod } from '../pods.ts';
import { NODE_SYMPTOM, sitesNamed, complaintOf, type FailingState } from '../report-words.ts';
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
    const located = locateFromText(
      { text: alertWords(trigger.alert), ...(namespace ? { namespace } : {}), spoken: false },
      query,
    );
    // When nothing visibly fails there, the alert's own name ("CheckoutErrorRateHigh") is the best hint at which pods to read.
    const name = (trigger.alert.labels.alertname ?? '').replace(/([a-z0-9])([A-Z])/g, '$1 $2');
    return located.kind === 'namespace' ? { ...located, hint: `${name} ${located.hint ?? ''}` } : located;
  }
  return locateFromText(
    { text: trigger.text, ...(trigger.namespace ? { namespace: trigger.namespace } : {}), spoken: true },
    query,
  );
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
  const missingScope = trigger.namespace
    ? missingObject({ kind: 'Namespace', name: trigger.namespace }, query.get('list_pods', scope))
    : undefined;
  if (missingScope) return { kind: 'absent', missing: missingScope };
  // A second thing mentioned beside the complaint ("also the relay is red") is read only when the complaint itself names nothing failing.
  const complaint = trigger.spoken ? complaintOf(trigger.text) : trigger.text;
  // Narrow first: a failing workload the words name in full is the lead, without listing the rest of the cluster.
  const narrowed = failingNamedByPods(pods?.pods ?? [], complaint);
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

  // How each workload's pods fail: what a report's symptom words are matched against.
  const states = statesOfWorkloads(pods?.pods ?? []);
  const workloadStates = (kind: string, namespace: string, name: string): { states?: ReadonlySet<FailingState> } => {
    const known = states.get(`${kind}/${namespace}/${name}`);
    return known ? { states: known } : {};
  };
  const candidates: Candidate[] = [];
  for (const list of [deployments, statefulSets, daemonSets]) {
    for (const item of list?.items ?? []) {
      if (item.kind === 'ReplicaSet') continue;
      candidates.push({
        focus: { kind: 'workload', workloadKind: item.kind, namespace: item.namespace, name: item.name },
        name: item.name,
        namespace: item.namespace,
        unhealthy: !item.healthy,
        ...workloadStates(item.kind, item.namespace, item.name),
      });
    }
  }
  for (const cronJob of cronJobs?.cronJobs ?? []) {
    const unhealthy = cronJob.recentJobs.some((job) => job.state === 'Failed');
    candidates.push({
      focus: { kind: 'workload', workloadKind: 'CronJob', namespace: cronJob.namespace, name: cronJob.name },
      name: cronJob.name,
      namespace: cronJob.namespace,
      unhealthy,
      ...(unhealthy ? { states: FAILED_RUN } : {}),
    });
  }
  // A Job of its own (no CronJob above it) is a workload a person may name.
  for (const job of jobs?.jobs ?? []) {
    if (job.owner?.kind === 'CronJob') continue;
    const unhealthy = job.state === 'Failed';
    candidates.push({
      focus: { kind: 'workload', workloadKind: 'Job', namespace: job.namespace, name: job.name },
      name: job.name,
      namespace: job.namespace,
      unhealthy,
      ...(unhealthy ? { states: FAILED_RUN } : {}),
    });
  }
  for (const service of services?.services ?? []) {
    // A Service is named only when it is the thing in trouble; its workload is a candidate of its own.
    if (service.noReadyEndpoints)
      candidates.push({
        focus: { kind: 'service', namespace: service.namespace, name: service.name },
        name: service.name,
        namespace: service.namespace,
        unhealthy: true,
        states: NO_ENDPOINTS,
      });
  }
  for (const node of nodes?.nodes ?? [])
    candidates.push({ focus: { kind: 'node', name: node.name }, name: node.name, unhealthy: !node.healthy });
  for (const pod of pods?.pods ?? []) {
    const state = failingStateOf(pod);
    if (!pod.owner)
      candidates.push({
        focus: { kind: 'pod', namespace: pod.namespace, name: pod.name },
        name: pod.name,
        namespace: pod.namespace,
        unhealthy: !pod.healthy,
        ...(state ? { states: new Set([state]) } : {}),
      });
  }

  const namespaces = [
    ...new Set([
      ...(pods?.pods ?? []).map((pod) => pod.namespace),
      ...candidates.flatMap((candidate) => (candidate.namespace ? [candidate.namespace] : [])),
    ]),
  ];
  const named =
    pickMentioned(candidates, complaint, namespaces) ??
    (complaint === trigger.text ? undefined : pickMentioned(candidates, trigger.text, namespaces));
  // A name nothing carries, where nothing is named in full: say that it does not exist rather than blame a namesake.
  const unknown =
    !trigger.spoken || (named && mentionScore(named.name, trigger.text) >= 90)
      ? undefined
      : unknownName(
          trigger.text,
          [
            ...candidates.map((candidate) => candidate.name),
            ...namespaces,
            ...(pods?.pods ?? []).map((pod) => pod.name),
          ],
          namespaces,
        );
  if (unknown) {
    const namespace = trigger.namespace ?? mentionedNamespaces(namespaces, trigger.text)[0];
    return { kind: 'absent', missing: missingFromWords({ unknown, candidates, namespaces, namespace }) };
  }
  // A site the complaint names ("pay.example.com is 503ing") is served by a Service: that Service is what the person means, unless a failing workload is named outright.
  const site = trigger.spoken ? siteBackend(sitesNamed(complaint), candidates, scope, query) : undefined;
  if (site && !(named?.unhealthy && mentionScore(named.name, complaint) >= 90)) return site;
  // A workload and the Service in front of it often share a name: the failing workload is the better lead.
  if (named?.focus.kind === 'service') {
    const twin = candidates.find(
      (candidate) =>
        candidate.focus.kind === 'workload' &&
        candidate.name === named.name &&
        candidate.namespace === named.namespace &&
        candidate.unhealthy,
    );
    if (twin) return twin.focus;
  }
  // "No logs in Grafana", "queue has no consumers": the words name where the trouble shows; the component whose job failed is the lead.
  const player = rolePlayer(candidates, complaint, named, trigger.spoken);
  if (player) return player.focus;
  // "Pods got evicted on one of the nodes": with nothing failing named, the one node in trouble is the lead.
  if (trigger.spoken && !named?.unhealthy && NODE_SYMPTOM.words.test(complaint)) {
    const troubled = candidates.filter((candidate) => candidate.focus.kind === 'node' && candidate.unhealthy);
    if (troubled.length === 1 && troubled[0]) return troubled[0].focus;
  }
  // A healthy workload named by one word of several ("cluster autoscaler" for coredns-autoscaler) is a weak lead
  // while a workload fails elsewhere: the search goes on rather than answer that all is well.
  const weaklyNamed =
    trigger.spoken &&
    named !== undefined &&
    !named.unhealthy &&
    Math.max(mentionScore(named.name, complaint), mentionScore(named.name, trigger.text)) < ALL_WORDS &&
    candidates.some((candidate) => candidate.unhealthy && candidate.focus.kind === 'workload');
  if (named && !weaklyNamed) return named.focus;
  const mentioned = mentionedNamespaces(namespaces, trigger.text)[0];
  const namespace = trigger.namespace ?? mentioned;
  // A person's words that matched nothing, not even a namespace: what fails may not be what they meant.
  const names = [...candidates.map((candidate) => candidate.name), ...namespaces];
  const unmatched =
    trigger.spoken && !mentioned && !player && !nearlyNamed(trigger.text, names) && !namesAKind(trigger.text)
      ? { unmatched: trigger.text }
      : {};
  return namespace
    ? { kind: 'namespace', namespace, hint: trigger.text, ...unmatched }
    : { kind: 'cluster', ...unmatched };
}

/** The workload that plays the role the report's symptom points at, failing first, when the named one is healthy or nothing is named. */
function rolePlayer(
  candidates: readonly Candidate[],
  text: string,
  named: Candidate | undefined,
  spoken: boolean,
): Candidate | undefined {
  if (named?.unhealthy) return undefined;
  const roles = rolesReported(text);
  const players = roles.flatMap((role) =>
    candidates.filter((candidate) => candidate.focus.kind === 'workload' && role.players.test(candidate.name)),
  );
  const failing = players.find((candidate) => candidate.unhealthy);
  // A node agent plays its role even when it looks well, but only a person's report is read that way.
  const agents =
    spoken && roles.some((role) => role.agentFallback)
      ? players.find((candidate) => candidate.focus.kind === 'workload' && candidate.focus.workloadKind === 'DaemonSet')
      : undefined;
  // Nothing named, and one workload plays the role the symptom points at: it is what the person means, however well it looks.
  const only = spoken && !named && players.length === 1 ? players[0] : undefined;
  return failing ?? agents ?? only;
}

/**
 * The Service behind the first site an Ingress serves: a route whose Service has no ready
 * endpoint, or whose workload of the same name fails, before the others.
 */
function siteBackend(
  sites: readonly string[],
  candidates: readonly Candidate[],
  scope: { namespace?: string },
  query: Query,
): Focus | undefined {
  for (const host of sites) {
    const ingresses = query.data('list_ingresses', { ...scope, host });
    query.barrier();
    const routes = (ingresses?.ingresses ?? []).flatMap((ingress) =>
      ingress.routes.flatMap((route) => (route.service ? [{ namespace: ingress.namespace, name: route.service }] : [])),
    );
    const failing = (route: { namespace: string; name: string }): boolean =>
      candidates.some(
        (candidate) => candidate.unhealthy && candidate.namespace === route.namespace && candidate.name === route.name,
      );
    const route = routes.find(failing) ?? routes[0];
    if (route) return { kind: 'service', namespace: route.namespace, name: route.name };
  }
  return undefined;
}

/** The node an alert from a node's own exporter (node-exporter, job or alert name) is about, read from its `instance`. */
function nodeOfInstance(labels: Record<string, string>, query: Query): string | undefined {
  if (!(NODE_EXPORTER_JOB.test(labels.job ?? '') || /^Node[A-Z]/.test(labels.alertname ?? ''))) return undefined;
  const host = (labels.instance ?? '').replace(/:\d+$/, '');
  const nodes = query.data('list_nodes', {})?.nodes ?? [];
  query.barrier();
  const named = nodes.find(
    (node) => node.name === host || node.internalIP === host || node.name.split('.')[0] === host,
  )?.name;
  // A node alert whose instance names no node (relabelled, or stripped): the one node in trouble is what it is about.
  const troubled = nodes.filter((node) => !node.healthy);
  return named ?? (troubled.length === 1 ? troubled[0]?.name : undefined);
}

const NODE_EXPORTER_JOB = /node-exporter/;

const FAILED_RUN: ReadonlySet<FailingState> = new Set(['failed-run']);
const NO_ENDPOINTS: ReadonlySet<FailingState> = new Set(['no-endpoints']);

/** How each workload's pods fail, by `Kind/namespace/name`. */
function statesOfWorkloads(pods: readonly PodSummaryData[]): Map<string, Set<FailingState>> {
  const states = new Map<string, Set<FailingState>>();
  for (const pod of pods) {
    const workload = workloadOfPod(pod);
    const state = failingStateOf(pod);
    if (!workload || !state) continue;
    const key = `${workload.workloadKind}/${pod.namespace}/${workload.name}`;
    states.set(key, (states.get(key) ?? new Set()).add(state));
  }
  return states;
}
