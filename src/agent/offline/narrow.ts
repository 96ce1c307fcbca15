/**
 * Narrowing before listing: the pods of the scope alone say which workloads exist, where,
 * and which fail. When the words name one of them in full and it fails now, that is the
 * lead, and the wider inventory (Deployments, StatefulSets, Services, nodes...) need not
 * be read at all. Anything less certain returns nothing, and the caller lists the rest.
 */
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import type { ListPodsData } from '../../tools/list-pods.ts';
import type { Query } from './query.ts';
import { mentionScore, pickMentioned, type Candidate } from './mentions.ts';
import { workloadOfPod } from './pods.ts';

/** A full mention scores 90 and up (see mentionScore); a partial one may mean something the pods do not show. */
const NAMED_IN_FULL = 90;

/** The failing workload (or bare pod) the text names in full, judged from the pods alone; undefined when unsure. */
export function failingNamedByPods(pods: readonly PodSummaryData[], text: string): Candidate | undefined {
  const candidates = new Map<string, Candidate>();
  for (const pod of pods) {
    const candidate = candidateOf(pod);
    if (!candidate) continue;
    const key = `${candidate.focus.kind}/${candidate.namespace}/${candidate.name}`;
    const known = candidates.get(key);
    candidates.set(key, known ? { ...known, unhealthy: known.unhealthy || candidate.unhealthy } : candidate);
  }
  const namespaces = [...new Set(pods.map((pod) => pod.namespace))];
  const named = pickMentioned([...candidates.values()], text, namespaces);
  if (!named?.unhealthy || mentionScore(named.name, text) < NAMED_IN_FULL) return undefined;
  return named;
}

/** The workload a pod belongs to, or the pod itself when nothing owns it; undefined for an owner that is no workload. */
function candidateOf(pod: PodSummaryData): Candidate | undefined {
  const workload = workloadOfPod(pod);
  if (workload)
    return {
      focus: { kind: 'workload', workloadKind: workload.workloadKind, namespace: pod.namespace, name: workload.name },
      name: workload.name,
      namespace: pod.namespace,
      unhealthy: !pod.healthy,
    };
  if (pod.owner) return undefined;
  return {
    focus: { kind: 'pod', namespace: pod.namespace, name: pod.name },
    name: pod.name,
    namespace: pod.namespace,
    unhealthy: !pod.healthy,
  };
}

/**
 * A namespace's pods: from the cluster-wide list when it was read whole (the narrowing step
 * reads it first), so the same pods are not asked for again; otherwise listed (or wanted).
 */
export function namespacePods(namespace: string, query: Query): ListPodsData | undefined {
  const all = query.investigation.dataOf<ListPodsData>('list_pods', (input) => Object.keys(input).length === 0)[0];
  if (!all || all.omitted > 0 || all.incomplete) return query.data('list_pods', { namespace });
  const pods = all.pods.filter((pod) => pod.namespace === namespace);
  return {
    ...all,
    namespaces: [namespace],
    total: pods.length,
    unhealthy: pods.filter((pod) => !pod.healthy).length,
    pods,
  };
}
