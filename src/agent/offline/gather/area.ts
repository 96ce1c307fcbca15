/**
 * A namespace or the whole cluster in focus: a node several failing pods share, else the
 * worst pod, else (nothing failing) a failing Deployment, a Service with no endpoint, a
 * controller refused by a quota, a misscheduled DaemonSet, or the pod the words name.
 */
import type { PodSummaryData } from '../../../tools/format/pod-status.ts';
import type { FocusOf, Gathered } from '../case.ts';
import { mentionScore } from '../mentions.ts';
import { namespacePods } from '../narrow.ts';
import { isMisscheduled } from '../placement.ts';
import { pickWorstPod, podsOfWorkloadsDown, retriedToSuccess, workloadOfPod } from '../pods.ts';
import type { Query } from '../query.ts';
import type { Gathering } from './gathering.ts';
import { restartsAtPace } from './worst-pod.ts';
import { workloadRefusedByQuota } from './quota.ts';

export function gatherForArea(focus: FocusOf<'namespace' | 'cluster'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const pods = focus.kind === 'namespace' ? namespacePods(focus.namespace, query) : query.data('list_pods', {});
  const nodes = query.data('list_nodes', {});
  query.barrier();
  const now = query.clusterNow().getTime();
  const listed = pods?.pods ?? [];
  const unhealthy = listed.filter(
    (pod) => (!pod.healthy || restartsAtPace(pod, now)) && !retriedToSuccess(pod, listed),
  );
  // Several pods failing at once on a node that is itself unwell: the node is the story.
  const sick = (nodes?.nodes ?? []).filter((node) => !node.healthy);
  for (const node of sick) {
    const onNode = unhealthy.filter((pod) => pod.node === node.name);
    if (onNode.length > 0 && onNode.length * 2 >= unhealthy.length)
      return gathering.node({ kind: 'node', name: node.name });
  }
  // A workload that serves nothing is the bigger story than a rollout stuck beside healthy replicas.
  const worst = pickWorstPod(podsOfWorkloadsDown(unhealthy, listed));
  if (worst) return gathering.pod({ namespace: worst.namespace, name: worst.name }, { focus });
  // No pod in trouble: what is left to look at, asked for at once (workloads, Services, the controllers' refusals, DaemonSets).
  const scope = focus.kind === 'namespace' ? { namespace: focus.namespace } : {};
  const deployments = query.data('list_deployments', scope);
  // Only a Service that reaches no pod is a lead of its own; the others are found through their workloads.
  const services = query.data('list_services', { ...scope, noReadyEndpoints: true });
  // Asked for now so they arrive in the same turn; read below when the checks before them find nothing.
  const daemonSets =
    focus.kind === 'namespace' ? query.data('list_daemon_sets', { namespace: focus.namespace }) : undefined;
  if (focus.kind === 'namespace') query.data('list_events', { namespace: focus.namespace, type: 'Warning' });
  query.barrier();
  const failing = deployments?.items.find((item) => !item.healthy && item.kind === 'Deployment');
  if (failing)
    return gathering.workload({
      kind: 'workload',
      workloadKind: 'Deployment',
      namespace: failing.namespace,
      name: failing.name,
    });
  // Every pod and workload is fine: a Service that reaches none of them is what is left.
  const empty = services?.services.find((service) => service.noReadyEndpoints);
  if (empty) return gathering.service({ kind: 'service', namespace: empty.namespace, name: empty.name });
  // Pods that were never created leave no pod to look at: only their controller's events tell.
  const refused =
    focus.kind === 'namespace' ? workloadRefusedByQuota({ namespace: focus.namespace }, query) : undefined;
  if (refused && focus.kind === 'namespace')
    return gathering.workload({
      kind: 'workload',
      workloadKind: refused.workloadKind,
      namespace: focus.namespace,
      name: refused.name,
    });
  // A DaemonSet whose pods all run ready can still be kept off the nodes it belongs on.
  if (focus.kind === 'namespace') {
    for (const daemonSet of (daemonSets?.items ?? []).slice(0, MAX_DAEMON_SETS_CHECKED)) {
      const checked = gathering.workload({
        kind: 'workload',
        workloadKind: 'DaemonSet',
        namespace: focus.namespace,
        name: daemonSet.name,
      });
      if (isMisscheduled({ ...checked, clusterNow: query.clusterNow() })) return checked;
    }
  }
  // Nothing visibly fails, yet something was reported: the pod whose workload the words name best may say in its log.
  const hinted = focus.kind === 'namespace' && focus.hint ? podNamedBy(focus.hint, pods?.pods ?? []) : undefined;
  if (hinted)
    return gathering.pod({ namespace: hinted.namespace, name: hinted.name }, { focus }, { readHealthyLogs: true });
  return { focus, notFound: 'an unhealthy pod or workload' };
}

const MAX_DAEMON_SETS_CHECKED = 3;

/** The workloads (or bare pods) with a pod in trouble in the area, from the pods already listed. */
export function countFailingWorkloads(focus: FocusOf<'namespace' | 'cluster'>, query: Query): number {
  const pods = focus.kind === 'namespace' ? namespacePods(focus.namespace, query) : query.data('list_pods', {});
  const failing = (pods?.pods ?? [])
    .filter((pod) => !pod.healthy)
    .map((pod) => `${pod.namespace}/${workloadOfPod(pod)?.name ?? pod.name}`);
  return new Set(failing).size;
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
