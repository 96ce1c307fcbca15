/**
 * A workload in focus: a Deployment's details, a StatefulSet's or DaemonSet's listing and
 * rollout history (a DaemonSet's nodes too: where it should run), then its pod most worth
 * a look. Jobs and CronJobs are job.ts's.
 */
import type { FocusOf, Gathered } from '../case.ts';
import type { Gathering } from './gathering.ts';
import { historyFrom } from './history.ts';
import { intentOfWorkload } from './intent.ts';
import { gatherForJob } from './job.ts';
import { missingField } from './missing.ts';
import { followWorstPod } from './worst-pod.ts';

export function gatherForWorkload(focus: FocusOf<'workload'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const { namespace, name, workloadKind } = focus;
  const base: Gathered = { focus, workload: { kind: workloadKind, namespace, name } };
  if (workloadKind === 'Deployment') {
    const deployment = query.data('describe_deployment', { namespace, name });
    query.barrier();
    if (!deployment)
      return {
        ...base,
        notFound: `Deployment ${namespace}/${name}`,
        ...missingField({ kind: 'Deployment', namespace, name }, query.get('describe_deployment', { namespace, name })),
      };
    const intent = intentOfWorkload(deployment.summary);
    const withDeployment: Gathered = {
      ...base,
      deployment,
      workloadPods: deployment.pods.pods,
      workloadEvents: deployment.events,
      ...(intent ? { intent } : {}),
    };
    return followWorstPod(withDeployment, deployment.pods.pods, gathering, deployment.summary.healthy);
  }
  if (workloadKind === 'StatefulSet' || workloadKind === 'DaemonSet') {
    const tool = workloadKind === 'StatefulSet' ? 'list_stateful_sets' : 'list_daemon_sets';
    const listed = query.data(tool, { namespace, name });
    const rollout = query.data('rollout_history', { namespace, name, kind: workloadKind });
    // A DaemonSet belongs on every node it tolerates: the nodes say where it runs that it should not, or not where it should.
    const nodes = workloadKind === 'DaemonSet' ? query.data('list_nodes', {}) : undefined;
    query.barrier();
    if (!listed?.details)
      return {
        ...base,
        notFound: `${workloadKind} ${namespace}/${name}`,
        ...missingField({ kind: workloadKind, namespace, name }, query.get(tool, { namespace, name })),
      };
    const item = listed.items.find((candidate) => candidate.name === name);
    const desired = item?.desired ?? listed.details.pods.total;
    const intent = item ? intentOfWorkload(item) : undefined;
    const history = rollout ? { history: historyFrom(rollout, workloadKind, desired) } : {};
    const daemonSet = nodes ? { daemonSet: { template: listed.details.template, nodes: nodes.nodes } } : {};
    return followWorstPod(
      {
        ...base,
        ...history,
        ...daemonSet,
        ...(intent ? { intent } : {}),
        workloadPods: listed.details.pods.pods,
        workloadEvents: listed.details.events,
      },
      listed.details.pods.pods,
      gathering,
      item?.healthy === true,
    );
  }
  return gatherForJob(focus, gathering);
}
