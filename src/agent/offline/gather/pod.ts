/**
 * A pod in focus: its details, the right container's log (the previous run for a crash,
 * both runs for a container restarted and running), the Deployment or Job above it, a
 * StatefulSet's or DaemonSet's rollout history, and the node when the pod may be its
 * victim. Asked for together, so they arrive in one turn.
 */
import type { PodDetailsData } from '../../../tools/describe-pod.ts';
import type { ContainerStatusData } from '../../../tools/format/pod-status.ts';
import type { PodLogsData } from '../../../tools/pod-logs.ts';
import type { ToolInputMap } from '../../../tools/registry.ts';
import { WORKLOAD_KINDS, type Gathered, type WorkloadKind } from '../case.ts';
import { troubledContainer } from '../containers.ts';
import { isNodeExhaustion } from '../signals/index.ts';
import type { Gathering, PodTarget } from './gathering.ts';
import { historyFrom } from './history.ts';
import { podGone } from './replaced-pod.ts';

export function gatherForPod(
  target: PodTarget,
  known: Gathered,
  gathering: Gathering,
  options: { readHealthyLogs?: boolean } = {},
): Gathered {
  const { query } = gathering;
  const pod = query.data('describe_pod', { namespace: target.namespace, name: target.name });
  query.barrier();
  if (!pod) return podGone(target, known, gathering);
  // The top of the pod's owner chain names the workload, a CronJob above a Job included.
  // An operator's custom resource above the StatefulSet (a Prometheus, a Kafka) is not a workload kubectl can roll: the highest workload is.
  const topWorkload =
    [...pod.owners].reverse().find((owner) => WORKLOAD_KINDS.includes(owner.kind as WorkloadKind)) ?? pod.workload;
  const workload =
    pod.owners.length > 0 || !known.workload
      ? { kind: topWorkload.kind as WorkloadKind | 'Pod', namespace: target.namespace, name: topWorkload.name }
      : known.workload;
  const deployment =
    known.deployment ??
    (workload.kind === 'Deployment'
      ? query.data('describe_deployment', { namespace: target.namespace, name: workload.name })
      : undefined);
  // The Job above the pod says whether it failed for good (backoff limit, deadline).
  const jobOwner = known.job ? undefined : pod.owners.find((owner) => owner.kind === 'Job');
  const job = jobOwner ? query.data('list_jobs', { namespace: target.namespace, name: jobOwner.name }) : undefined;
  const revisioned = workload.kind === 'StatefulSet' || workload.kind === 'DaemonSet' ? workload.kind : undefined;
  const rollout =
    revisioned && !known.history
      ? query.data('rollout_history', { namespace: target.namespace, name: workload.name, kind: revisioned })
      : undefined;
  const history =
    known.history ??
    (rollout && revisioned
      ? historyFrom(
          rollout,
          revisioned,
          known.workloadPods?.length ?? rollout.revisions.find((revision) => revision.current)?.replicas ?? 0,
        )
      : undefined);
  const container =
    troubledContainer(pod.containers) ??
    (options.readHealthyLogs ? pod.containers.find((candidate) => !candidate.init) : undefined);
  const request = container && hasRun(container) ? logRequest(pod, container) : undefined;
  const logs = request ? query.data('get_pod_logs', request) : undefined;
  // A restarted container that runs now: the previous run says how it ended, the current one what it says now.
  // A probe-killed container's last run may have got further (how long it takes to start) than the one before.
  const probeKilled = pod.events.some((event) =>
    /(Liveness|Startup) probe failed|failed (liveness|startup) probe/i.test(event.message),
  );
  const bothRuns =
    container !== undefined &&
    container.restartCount > 0 &&
    (container.state.state === 'running' || (container.state.state === 'waiting' && probeKilled));
  const current = bothRuns
    ? query.data('get_pod_logs', { namespace: pod.namespace, name: pod.name, container: container.name })
    : undefined;
  const checkedNode =
    pod.node && needsNodeCheck(pod) ? query.data('list_nodes', { name: pod.node })?.nodes[0] : undefined;
  query.barrier();
  // No previous run's log to read (the runtime kept none): what the current one holds is the next best.
  const fallback =
    request?.previous && !current && (!logs || logs.totalLines === 0)
      ? query.data('get_pod_logs', { namespace: pod.namespace, name: pod.name, container: request.container })
      : undefined;
  query.barrier();
  const found = fallback && fallback.totalLines > 0 ? fallback : logs;
  const log = found && current ? joinLogs(found, current) : found;
  // Out of threads or process ids: something the node shares between all its pods may have run out.
  const exhausted = log !== undefined && [...log.errorLines, ...log.lines].some((line) => isNodeExhaustion(line));
  const node =
    checkedNode ?? (exhausted && pod.node ? query.data('list_nodes', { name: pod.node })?.nodes[0] : undefined);
  query.barrier();
  return {
    ...known,
    workload,
    pod,
    ...(log ? { logs: log } : {}),
    ...(current
      ? { currentLogLines: current.lines }
      : found && !found.previous
        ? { currentLogLines: found.lines }
        : {}),
    ...(deployment ? { deployment, workloadEvents: known.workloadEvents ?? deployment.events } : {}),
    ...(node ? { node } : {}),
    ...(history ? { history } : {}),
    ...(job ? { job } : {}),
  };
}

/** The previous run's log, then the current run's: one log in time order. */
function joinLogs(previous: PodLogsData, current: PodLogsData): PodLogsData {
  return {
    ...current,
    previous: false,
    totalLines: previous.totalLines + current.totalLines,
    lines: [...previous.lines, ...current.lines],
    errorLines: [...previous.errorLines, ...current.errorLines],
  };
}

/** A container that never started (image pull, missing config) has no log to read. */
function hasRun(container: ContainerStatusData): boolean {
  return container.restartCount > 0 || container.state.state !== 'waiting' || container.lastState !== undefined;
}

/** The previous run holds what a restarted container printed before it died. */
function logRequest(pod: PodDetailsData, container: ContainerStatusData): ToolInputMap['get_pod_logs'] {
  const previous = container.restartCount > 0 && container.state.state !== 'terminated';
  return {
    namespace: pod.namespace,
    name: pod.name,
    container: container.name,
    ...(previous ? { previous: true } : {}),
  };
}

/** A pod that is unready or lost without a container to blame may be its node's victim. */
function needsNodeCheck(pod: PodDetailsData): boolean {
  if (
    ['Unknown', 'NodeLost', 'Terminating', 'Evicted'].includes(pod.status) ||
    pod.reason === 'NodeLost' ||
    pod.reason === 'Evicted'
  )
    return true;
  const ready = pod.conditions.find((condition) => condition.type === 'Ready');
  return ready?.status !== 'True' && troubledContainer(pod.containers) === undefined && pod.phase === 'Running';
}
