/**
 * `describe_pod`: what `kubectl describe pod` tells, compact: status and conditions, the
 * owner chain up to the workload (with the ReplicaSet's rollout revision), each container's
 * state, last state, exit code and spec, volumes, labels, placement (nodeSelector, affinity rules, tolerations, container runtime), and the pod's events.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import type { V1Pod } from '@kubernetes/client-node';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { foldEvents, formatEvent, formatRoutineEvents, isRoutineEvent, type EventData } from './format/events.ts';
import { formatOwnerChain, resolveOwnerChain, type OwnerData } from './format/owners.ts';
import { summarizePodSpec, type PodTemplateData } from './format/pod-template.ts';
import {
  formatContainerState,
  oneLine,
  readContainerStatuses,
  summarizePod,
  type ContainerStatusData,
} from './format/pod-status.ts';
import { containerRuntime, selectableLabels } from './format/placement.ts';
import { formatPodServices, matchPodServices, type PodServicesData } from './format/pod-services.ts';
import { formatContainerSpec, formatPodLevel } from './format/template-text.ts';
import { failureFrom, success } from './tool-results.ts';
import { missingNamespace } from './missing-namespace.ts';
import { shownKey, type ReadTool } from './tool.ts';

export interface PodConditionData {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PodDetailsData {
  namespace: string;
  name: string;
  /** kubectl's STATUS column. */
  status: string;
  phase: string;
  /** The pod-level reason and message (`Evicted`, `The node was low on resource: memory`). */
  reason?: string;
  message?: string;
  ready: string;
  restarts: number;
  node?: string;
  podIP?: string;
  qosClass?: string;
  ageSeconds?: number;
  labels: Record<string, string>;
  conditions: PodConditionData[];
  /** Init containers first; state and last state with reasons, messages and exit codes. */
  containers: ContainerStatusData[];
  spec: PodTemplateData;
  /** From the pod's controller up: ReplicaSet (with revision) then Deployment, or Job then CronJob... */
  owners: OwnerData[];
  /** The top of the owner chain, or the pod itself when it has no controller. */
  workload: { kind: string; name: string };
  /** The pod's events, folded, newest first. */
  events: EventData[];
  /** The namespace's Services that select the pod, and near misses; absent when Services could not be read. */
  services?: PodServicesData;
}

const input = z.object({
  namespace: namespaceName().describe('Namespace of the pod'),
  name: objectName().describe('Pod name, e.g. "checkout-api-7d9f8c6b5-x2k4q" (from list_pods)'),
});

function readConditions(pod: V1Pod): PodConditionData[] {
  return (pod.status?.conditions ?? []).map((condition) => ({
    type: condition.type,
    status: condition.status,
    ...(condition.reason ? { reason: condition.reason } : {}),
    ...(condition.message ? { message: condition.message } : {}),
  }));
}

export const describePodTool: ReadTool<typeof input, PodDetailsData, 'describe_pod'> = {
  name: 'describe_pod',
  description:
    'Shows one pod in detail, like a compact `kubectl describe pod`: status, failing conditions (e.g. Unschedulable with the scheduler message), ' +
    'the owner chain (ReplicaSet with its rollout revision, Deployment/StatefulSet/Job...), per container the current state and last ' +
    'termination (reason such as OOMKilled or Error, exit code, message), restarts, image, env var names with their secret/configmap ' +
    "references, resources, probes, mounts, then volumes, placement and the pod's recent events. Use it on a failing pod from list_pods.",
  input,
  risk: 'read',
  async run(args, context) {
    const fetched = await context.cluster.get(
      'Pod',
      { namespace: args.namespace, name: args.name },
      { signal: context.signal },
    );
    if (!fetched.ok) {
      if (fetched.error.kind === 'not-found') {
        const missing = await missingNamespace(args.namespace, context);
        if (missing) return missing;
      }
      return failureFrom(
        fetched.error,
        fetched.error.kind === 'not-found'
          ? `Use list_pods in namespace "${args.namespace}" to see which pods exist (pods are replaced on restart of their owner).`
          : undefined,
      );
    }
    const pod = fetched.value;
    const [owners, eventList, serviceList] = await Promise.all([
      resolveOwnerChain({
        cluster: context.cluster,
        namespace: args.namespace,
        metadata: pod.metadata,
        signal: context.signal,
      }),
      context.cluster.list('Event', {
        namespace: args.namespace,
        fieldSelector: `involvedObject.name=${args.name}`,
        maxItems: 500,
        signal: context.signal,
      }),
      context.cluster.list('Service', { namespace: args.namespace, maxItems: 1000, signal: context.signal }),
    ]);
    const now = context.cluster.now();
    const summary = summarizePod(pod, now);
    const containers = readContainerStatuses(pod);
    const spec = summarizePodSpec(pod.spec);
    const events = eventList.ok
      ? foldEvents(
          eventList.value.items.filter(
            (event) => event.involvedObject.name === args.name && (event.involvedObject.kind ?? 'Pod') === 'Pod',
          ),
          now,
        )
      : [];
    const top = owners.at(-1);
    const services = serviceList.ok
      ? matchPodServices({
          labels: pod.metadata?.labels ?? {},
          services: serviceList.value.items,
          workload: top?.name ?? args.name,
        })
      : undefined;
    const data: PodDetailsData = {
      namespace: args.namespace,
      name: args.name,
      status: summary.status,
      phase: summary.phase,
      ...(pod.status?.reason ? { reason: pod.status.reason } : {}),
      ...(pod.status?.message ? { message: pod.status.message } : {}),
      ready: summary.ready,
      restarts: summary.restarts,
      ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
      ...(pod.status?.podIP ? { podIP: pod.status.podIP } : {}),
      ...(pod.status?.qosClass ? { qosClass: pod.status.qosClass } : {}),
      ...(summary.ageSeconds !== undefined ? { ageSeconds: summary.ageSeconds } : {}),
      labels: pod.metadata?.labels ?? {},
      conditions: readConditions(pod),
      containers,
      spec,
      owners,
      workload: top ? { kind: top.kind, name: top.name } : { kind: 'Pod', name: args.name },
      events,
      ...(services ? { services } : {}),
    };

    const text = new BudgetedText(context.outputBudgetBytes);
    // The runtime matters when containers fail to start or stay unready (a runtime that is down, an exec format error).
    const runtime = containers.some((container) => !container.ready && container.state.state !== 'terminated')
      ? containerRuntime(pod)
      : undefined;
    const placement = [
      pod.spec?.nodeName ? `node ${pod.spec.nodeName}` : 'no node assigned',
      runtime ? `runtime ${runtime}` : undefined,
      pod.status?.podIP ? `IP ${pod.status.podIP}` : undefined,
      pod.status?.qosClass ? `QoS ${pod.status.qosClass}` : undefined,
    ];
    text.addIfRoom(
      `Pod ${args.namespace}/${args.name}: ${summary.status}${summary.status === summary.phase || summary.phase === 'Running' ? '' : ` (phase ${summary.phase})`}, ready ${summary.ready}, restarts ${summary.restarts}, age ${formatAge(pod.metadata?.creationTimestamp, now)}, ${placement.filter(Boolean).join(', ')}`,
    );
    if (pod.status?.reason || pod.status?.message)
      text.addIfRoom(
        `pod reason: ${pod.status.reason ?? ''}${pod.status.message ? ` - ${oneLine(pod.status.message, 400)}` : ''}`,
      );
    text.addIfRoom(`owners: ${owners.length ? formatOwnerChain(owners) : 'none (bare pod)'}`);
    // What a Service's selector is matched against; the controllers' hash labels explain nothing.
    const labels = selectableLabels(pod.metadata?.labels);
    // Its labels always, as kubectl describe pod shows them: what any selector (a Service's, a policy's) is read against.
    const servicesLine = services ? formatPodServices(services, labels) : '';
    text.addIfRoom(
      `labels: ${labels.join(',') || 'none'}${servicesLine && !servicesLine.startsWith('no Service') ? `; ${servicesLine}` : ''}`,
    );
    if (servicesLine.startsWith('no Service')) text.addIfRoom(servicesLine);
    // Ready/ContainersReady=False because of ContainersNotReady repeats the container states below.
    const badConditions = data.conditions.filter(
      (condition) =>
        condition.status !== 'True' && condition.reason !== 'ContainersNotReady' && condition.reason !== 'PodCompleted',
    );
    if (badConditions.length) {
      text.addIfRoom(
        `conditions not true: ${badConditions.map((condition) => `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason}${condition.message ? `: ${oneLine(condition.message, 300)}` : ''})` : ''}`).join('; ')}`,
      );
    }
    const specsByName = new Map(spec.containers.map((container) => [`${container.init}/${container.name}`, container]));
    for (const container of containers) {
      const state = formatContainerState(container.state, now, { messageLimit: 600 });
      // A container running and ready says its state on its own line only when there is more to it.
      const settled = container.ready && container.state.state === 'running' && !container.lastState;
      text.addIfRoom(
        `${container.init ? 'init container' : 'container'} ${container.name}: image ${container.image}, ${settled ? `${state}, ready` : `ready ${container.ready}`}, restarts ${container.restartCount}`,
      );
      if (!settled) text.addIfRoom(`  state: ${state}`);
      if (container.lastState)
        text.addIfRoom(`  last state: ${formatContainerState(container.lastState, now, { messageLimit: 600 })}`);
      const containerSpec = specsByName.get(`${container.init}/${container.name}`);
      const lines = containerSpec ? formatContainerSpec(containerSpec, { volumes: spec.volumes }) : [];
      // The same lines this run already read in the workload's template: said once, pointed at here.
      const shownIn =
        lines.length > 0
          ? context.shown?.get(shownKey('container', [container.name, container.image, ...lines]))
          : undefined;
      if (shownIn) text.addIfRoom(`  spec (command, ports, env, resources, probes, mounts): as in ${shownIn} above`);
      else for (const line of lines) text.addIfRoom(line);
    }
    // That no nodeSelector or toleration applies is news where placement is in question: a pod not placed, a DaemonSet's (which nodes it covers).
    const placementInQuestion = summary.phase === 'Pending' || top?.kind === 'DaemonSet';
    for (const line of formatPodLevel(spec, { showUnset: placementInQuestion })) text.addIfRoom(line);
    // A pull that fails: whether the pod presents registry credentials at all is the first thing to know.
    const pulling = containers.some(
      (container) => container.state.state === 'waiting' && /ImagePull|ErrImage/.test(container.state.reason ?? ''),
    );
    if (pulling && spec.imagePullSecrets.length === 0)
      text.addIfRoom('imagePullSecrets: none (the pod presents no registry credentials)');
    if (!eventList.ok)
      text.addIfRoom(`events: could not be read (${eventList.error.kind}: ${eventList.error.message})`);
    else if (events.length === 0) text.addIfRoom('events: none (they expire after about an hour)');
    else {
      text.addIfRoom(`events (${events.length}, newest first):`);
      const conditionMessages = new Map(
        badConditions.filter((condition) => condition.message).map((condition) => [condition.message, condition.type]),
      );
      for (const event of events.filter((item) => !isRoutineEvent(item))) {
        // A FailedScheduling event repeats the PodScheduled condition word for word.
        const sameAs = conditionMessages.get(event.message);
        text.addIfRoom(
          `  ${sameAs ? formatEvent({ ...event, message: `(the ${sameAs} message above)` }, now, { withObject: false }) : formatEvent(event, now, { withObject: false })}`,
        );
      }
      const routine = formatRoutineEvents(events.filter(isRoutineEvent), now);
      if (routine) text.addIfRoom(`  ${routine}`);
    }
    return success(
      text.finish(
        'use get_pod_logs for logs and list_events for more events; ask for a single container with get_pod_logs.',
      ),
      data,
      text.truncated,
    );
  },
};
