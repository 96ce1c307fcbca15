/**
 * `describe_deployment`: a Deployment's replicas and conditions, its current pod template,
 * its pods by status, the latest revisions with the newest change, and its events.
 */
import { formatNotes } from './format/notes.ts';
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { foldEvents, formatEvent, formatRoutineEvents, type EventData } from './format/events.ts';
import { formatPodGroup, readPodGroup, type PodGroupData } from './format/pod-group.ts';
import { summarizePodSpec, type PodTemplateData } from './format/pod-template.ts';
import { oneLine } from './format/pod-status.ts';
import { readRolloutHistory, type RevisionChangeData, type RevisionData } from './format/rollout.ts';
import { formatContainerSpec, formatPodLevel } from './format/template-text.ts';
import { summarizeWorkload, type WorkloadSummaryData } from './format/workloads.ts';
import { formatChangeLines, formatRevisionLine } from './rollout-history.ts';
import { failureFrom, success } from './tool-results.ts';
import { missingNamespace } from './missing-namespace.ts';
import { shownKey, type ReadTool } from './tool.ts';

export interface DeploymentDetailsData {
  summary: WorkloadSummaryData;
  strategy: string;
  template: PodTemplateData;
  pods: PodGroupData;
  currentRevision?: number;
  /** Oldest first, without their templates (rollout_history has them). */
  revisions: Array<Omit<RevisionData, 'template'>>;
  changes: RevisionChangeData[];
  /** Events of the Deployment and its ReplicaSets, folded, newest first. */
  events: EventData[];
}

const input = z.object({
  namespace: namespaceName().describe('Namespace of the Deployment'),
  name: objectName().describe('Deployment name'),
});

/** Revisions written in full: the current one and the one before it. */
const SHOWN_REVISIONS = 2;

/** Reasons a True condition carries when all is as it should be. */
const SETTLED_REASONS = new Set(['MinimumReplicasAvailable', 'NewReplicaSetAvailable']);

/** Reasons whose message is the same sentence on every Deployment ("Deployment does not have minimum availability."). */
const BOILERPLATE_REASONS = new Set(['MinimumReplicasAvailable', 'MinimumReplicasUnavailable']);

export const describeDeploymentTool: ReadTool<typeof input, DeploymentDetailsData, 'describe_deployment'> = {
  name: 'describe_deployment',
  description:
    'Shows one Deployment: desired/ready/updated/available replicas, conditions with their messages (ProgressDeadlineExceeded, ' +
    'ReplicaFailure such as a quota rejecting pod creation), the pod template (images, env and secret/configmap references, resources, probes), ' +
    'its pods by status with the failing ones named, the latest revisions and what the newest rollout changed, and its events.',
  input,
  risk: 'read',
  async run(args, context) {
    const fetched = await context.cluster.get(
      'Deployment',
      { namespace: args.namespace, name: args.name },
      { signal: context.signal },
    );
    if (!fetched.ok && fetched.error.kind === 'not-found') {
      const missing = await missingNamespace(args.namespace, context);
      if (missing) return missing;
    }
    if (!fetched.ok)
      return failureFrom(
        fetched.error,
        fetched.error.kind === 'not-found'
          ? `Use list_deployments in "${args.namespace}"; the workload may be a StatefulSet or DaemonSet.`
          : undefined,
      );
    const deployment = fetched.value;
    const now = context.cluster.now();
    const summary = summarizeWorkload('Deployment', deployment, now);
    const [pods, history, eventList] = await Promise.all([
      readPodGroup({
        cluster: context.cluster,
        namespace: args.namespace,
        labelSelector: summary.selector,
        signal: context.signal,
      }),
      readRolloutHistory({ cluster: context.cluster, deployment, signal: context.signal }),
      context.cluster.list('Event', { namespace: args.namespace, maxItems: 5000, signal: context.signal }),
    ]);
    const events = eventList.ok
      ? foldEvents(
          eventList.value.items.filter(
            (event) =>
              (event.involvedObject.kind === 'Deployment' && event.involvedObject.name === args.name) ||
              (event.involvedObject.kind === 'ReplicaSet' &&
                (event.involvedObject.name ?? '').startsWith(`${args.name}-`)),
          ),
          now,
        )
      : [];
    const template = summarizePodSpec(deployment.spec?.template?.spec);
    const strategy =
      deployment.spec?.strategy?.type === 'Recreate'
        ? 'Recreate'
        : `RollingUpdate maxUnavailable=${deployment.spec?.strategy?.rollingUpdate?.maxUnavailable ?? '25%'} maxSurge=${deployment.spec?.strategy?.rollingUpdate?.maxSurge ?? '25%'}`;
    const revisions = history.ok ? history.value.revisions.map(({ template: _template, ...rest }) => rest) : [];
    const changes = history.ok ? history.value.changes : [];
    const { items: _items, ...podGroup } = pods;
    const data: DeploymentDetailsData = {
      summary,
      strategy,
      template,
      pods: podGroup,
      ...(history.ok && history.value.currentRevision !== undefined
        ? { currentRevision: history.value.currentRevision }
        : {}),
      revisions,
      changes,
      events,
    };

    const text = new BudgetedText(context.outputBudgetBytes);
    const counts = [
      `ready ${summary.ready}/${summary.desired}`,
      `updated ${summary.updated ?? '?'}`,
      `available ${summary.available ?? '?'}`,
    ];
    // The default rolling update (25% / 25%) goes without saying.
    const strategyText = strategy === 'RollingUpdate maxUnavailable=25% maxSurge=25%' ? 'RollingUpdate' : strategy;
    text.addIfRoom(
      `Deployment ${args.namespace}/${args.name}: ${counts.join(', ')}, revision ${summary.revision ?? '?'}${summary.paused ? ', PAUSED' : ''}, age ${formatAge(deployment.metadata?.creationTimestamp, now)}, strategy ${strategyText}, selector ${summary.selector}${
        summary.desired === 0 || summary.paused
          ? formatNotes(summary.notes)
              .map((note) => `, ${note}`)
              .join('')
          : ''
      }`,
    );
    // A condition that holds for its usual reason says no more than the counts above: one line names them all.
    const settled = summary.conditions.filter(
      (condition) => condition.status === 'True' && SETTLED_REASONS.has(condition.reason ?? ''),
    );
    if (settled.length)
      text.addIfRoom(`conditions settled: ${settled.map((condition) => `${condition.type}=True`).join(', ')}`);
    for (const condition of summary.conditions.filter((candidate) => !settled.includes(candidate))) {
      const message =
        condition.message && !BOILERPLATE_REASONS.has(condition.reason ?? '')
          ? `: ${oneLine(condition.message, 400)}`
          : '';
      text.addIfRoom(
        `condition ${condition.type}=${condition.status}${condition.reason ? ` ${condition.reason}` : ''}${message}`,
      );
    }
    for (const line of formatPodGroup(pods, now)) text.addIfRoom(line);
    for (const container of template.containers) {
      text.addIfRoom(`${container.init ? 'init container' : 'container'} ${container.name}: image ${container.image}`);
      const lines = formatContainerSpec(container, { volumes: template.volumes });
      const all = lines.map((line) => text.addIfRoom(line)).every(Boolean);
      // A pod of this template described later in the run says "as above" instead of these lines.
      if (all && lines.length > 0)
        context.shown?.set(
          shownKey('container', [container.name, container.image, ...lines]),
          `Deployment ${args.namespace}/${args.name}'s template`,
        );
    }
    for (const line of formatPodLevel(template)) text.addIfRoom(line);
    if (!history.ok)
      text.addIfRoom(`rollout history: could not be read (${history.error.kind}: ${history.error.message})`);
    else {
      const latest = history.value.changes.at(-1);
      if (latest) {
        const [header, ...entries] = formatChangeLines(latest);
        text.addIfRoom(`latest change, ${header}`);
        for (const entry of entries) text.addIfRoom(entry);
      }
      // The current revision and the one before it (where a rollback goes); older ones are a call away.
      const newestFirst = [...history.value.revisions].reverse();
      const shown = newestFirst.slice(0, SHOWN_REVISIONS);
      const imagesAbove = template.containers
        .filter((container) => !container.init)
        .map((container) => container.image)
        .join(' ');
      shown.forEach((revision, index) =>
        text.addIfRoom(formatRevisionLine(revision, now, shown[index - 1], { imagesAbove })),
      );
      const older = newestFirst.slice(SHOWN_REVISIONS);
      if (older.length > 0)
        text.addIfRoom(
          `older revision(s): ${older.map((revision) => revision.revision).join(', ')} (rollout_history shows them)`,
        );
    }
    if (events.length) {
      text.addIfRoom(`events of the Deployment and its ReplicaSets (${events.length}, newest first):`);
      // Warnings and the newest rollout step in full; older routine steps (scaling, pod creation) counted in one line.
      const [newest, ...older] = events;
      const shown = events.filter((event) => event === newest || event.type !== 'Normal').slice(0, 15);
      for (const event of shown) text.addIfRoom(`  ${formatEvent(event, now, { withObject: true })}`);
      const routine = formatRoutineEvents(
        older.filter((event) => event.type === 'Normal'),
        now,
      );
      if (routine) text.addIfRoom(`  ${routine.replace(/^routine:/, 'earlier:')}`);
    }
    return success(
      text.finish('use rollout_history, list_pods with the selector, or list_events for the rest.'),
      data,
      text.truncated,
    );
  },
};
