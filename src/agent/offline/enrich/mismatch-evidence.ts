/**
 * Both sides of a mismatch, as evidence: the case's pod, nodes, Service and log are laid
 * out as explainers/'s facts, and every explainer that finds two objects disagreeing says
 * what each side holds (the image's architecture and the nodes', the command's path and
 * the new image, the pod's requests and its node's free room).
 */
import type { NodeSummaryData } from '../../../tools/list-nodes.ts';
import type { Case, Finding } from '../case.ts';
import { troubledContainer } from '../containers.ts';
import { listeningPortsIn, refusedProbePorts } from '../../../tools/format/listening-ports.ts';
import { explainMismatches } from '../explainers/table.ts';
import type { MismatchFacts, NodeFacts, NodeRequirement } from '../explainers/facts.ts';
import type { Query } from '../query.ts';
import { historyOf, latestChange } from '../remediation.ts';

const CATEGORIES = new Set([
  'app-crash',
  'unschedulable-resources',
  'unschedulable-placement',
  'probe-failure',
  'init-failure',
  'service-no-endpoints',
]);
/** Categories whose mismatch is with the nodes: they are listed when no call listed them yet. */
const NODE_CATEGORIES = new Set(['unschedulable-resources', 'unschedulable-placement']);
const MAX_LINES = 4;

export function mismatchEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const pod = gathered.pod;
  if (!pod || !CATEGORIES.has(finding.category)) return [];
  const status = troubledContainer(pod.containers);
  const message = [status?.state.message, status?.lastState?.message].filter((text): text is string => Boolean(text));
  const logLines = [...message, ...(gathered.logs?.errorLines ?? []).slice(-20)];
  const execFailure = logLines.some((line) => /exec format error/i.test(line));
  const nodes = NODE_CATEGORIES.has(finding.category) || execFailure ? query.data('list_nodes', {})?.nodes : undefined;
  const scheduling = pod.conditions.find(
    (condition) => condition.type === 'PodScheduled' && condition.status === 'False',
  )?.message;
  // A volume pinned to a zone (or a host): its claim's bound volume carries the node affinity.
  const claims =
    scheduling && /volume node affinity conflict/i.test(scheduling)
      ? query.data('list_persistent_volume_claims', { namespace: pod.namespace })?.claims
      : undefined;
  query.barrier();
  const mounted = new Set(
    pod.spec.volumes.filter((volume) => volume.kind === 'persistentVolumeClaim').map((volume) => volume.sourceName),
  );
  const claim = claims?.find(
    (candidate) => mounted.has(candidate.name) && candidate.volumeName && candidate.volumeNodeRequirements,
  );
  // A probe aimed at a port the container does not declare is common and harmless: it is a mismatch only where probes fail.
  const probesFail = finding.category === 'probe-failure' || pod.events.some((event) => event.reason === 'Unhealthy');
  const change = latestChange(historyOf(gathered));
  const image = change?.changes.find(
    (entry) => entry.field === 'image' && (entry.container === undefined || entry.container === status?.name),
  );
  const facts: MismatchFacts = {
    pod: {
      name: pod.name,
      namespace: pod.namespace,
      labels: pod.labels,
      ...(pod.node ? { nodeName: pod.node } : {}),
      ...(pod.spec.nodeSelector ? { nodeSelector: pod.spec.nodeSelector } : {}),
      tolerations: pod.spec.tolerations,
      ...(pod.spec.requiredNodeAffinity
        ? { requiredNodeAffinity: pod.spec.requiredNodeAffinity.flatMap(nodeRequirement) }
        : {}),
      containers: pod.spec.containers
        .filter((container) => !container.init || container.name === status?.name)
        .map((container) => ({
          name: container.name,
          image: container.image,
          ...(container.command ? { command: container.command } : {}),
          ...(container.args ? { args: container.args } : {}),
          ports: container.ports,
          ...(container.resources.requests ? { requests: container.resources.requests } : {}),
          probes: container.probes.flatMap((probe) =>
            probe.handler === 'none' || !probesFail
              ? []
              : [
                  {
                    kind: probe.kind,
                    handler: probe.handler,
                    ...(probe.port !== undefined ? { port: probe.port } : {}),
                    ...(probe.path ? { path: probe.path } : {}),
                  },
                ],
          ),
        })),
      ...(pod.owners[0] ? { owner: { kind: pod.owners[0].kind, name: pod.owners[0].name } } : {}),
    },
    ...(nodes ? { nodes: nodes.map(nodeFacts) } : {}),
    ...(gathered.service
      ? {
          service: {
            name: gathered.service.name,
            namespace: gathered.service.namespace,
            selector: gathered.service.selector,
            ports: gathered.service.ports.map((port) => ({ port: port.port, targetPort: port.targetPort })),
          },
        }
      : {}),
    ...(scheduling ? { schedulingMessage: scheduling } : {}),
    ...(claim?.volumeName && claim.volumeNodeRequirements
      ? {
          volume: {
            claim: claim.name,
            volume: claim.volumeName,
            nodeAffinity: claim.volumeNodeRequirements.flatMap(nodeRequirement),
          },
        }
      : {}),
    logLines,
    ...(status ? { logContainer: status.name } : {}),
    listeningPorts: listeningPortsIn([
      ...(gathered.logs?.head ?? []),
      ...(gathered.logs?.listening ?? []),
      ...(gathered.logs?.lines ?? []),
    ]),
    refusedProbePorts: refusedProbePorts(
      pod.events.filter((event) => event.reason === 'Unhealthy').map((event) => event.message),
    ),
    ...(image?.from && image.to && change
      ? { imageChange: { from: image.from, to: image.to, revision: change.toRevision } }
      : {}),
  };
  return explainMismatches(facts)
    .flatMap((mismatch) => mismatch.evidence)
    .slice(0, MAX_LINES);
}

const OPERATORS = new Set<string>(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']);

function nodeRequirement(requirement: { key: string; operator: string; values?: string[] }): NodeRequirement[] {
  return OPERATORS.has(requirement.operator)
    ? [
        {
          key: requirement.key,
          operator: requirement.operator as NodeRequirement['operator'],
          ...(requirement.values ? { values: requirement.values } : {}),
        },
      ]
    : [];
}

/** A node as the explainers read it: its labels, with the zone and architecture the listing reads out of them put back. */
function nodeFacts(node: NodeSummaryData): NodeFacts {
  const labels: Record<string, string> = { ...(node.labels ?? {}), 'kubernetes.io/hostname': node.name };
  if (node.zone) labels['topology.kubernetes.io/zone'] = node.zone;
  if (node.arch) labels['kubernetes.io/arch'] = node.arch;
  if (node.instanceType) labels['node.kubernetes.io/instance-type'] = node.instanceType;
  return {
    name: node.name,
    labels,
    taints: node.taints,
    allocatable: node.allocatable,
    ...(node.requested ? { requested: node.requested } : {}),
    ...(node.unschedulable ? { unschedulable: true } : {}),
  };
}
