/**
 * The engine's rules: from the gathered case to a category, with the evidence lines that
 * prove it, quoted from what the tools returned. Rules go from what Kubernetes states
 * itself (node conditions, scheduler messages, waiting and termination reasons) to what
 * the process says (its log), and only then to weaker signals.
 */
import type { ContainerStatusData } from '../../tools/format/pod-status.ts';
import type { EventData } from '../../tools/format/events.ts';
import type { Category } from '../diagnosis.ts';
import type { Case } from './gather.ts';
import { troubledContainer } from './gather.ts';
import { isImagePullReason, readMissingReference } from './container-signals.ts';
import { readLogSignals, tellingScore } from './log-signals.ts';
import { readSchedulingMessage } from './scheduling-signals.ts';
import { eventLine, findMissingInEvents, isRecent, isRecovered, lastTermination, logEvidence, podSuffersFromNode, secondsAgo, stateLine, stripLogPrefix } from './evidence.ts';
import { evictionFinding, nodeFinding, recoveredFinding, serviceFinding, workloadFinding } from './findings.ts';

export interface Finding {
  category: Category;
  /** Evidence lines, strongest first. */
  evidence: string[];
  /** One sentence: what is wrong. */
  cause: string;
  confidence: 'high' | 'medium' | 'low';
  /** For node-failure: the node to name as culprit, when it is not the case's node. */
  nodeName?: string;
}

const PROBE_FAILURE = /(Liveness|Readiness|Startup) probe (failed|errored)|failed (liveness|readiness|startup) probe/i;

export function classifyCase(gathered: Case): Finding | undefined {
  const { pod, node } = gathered;
  if (node && !node.healthy && (!pod || podSuffersFromNode(gathered))) return nodeFinding(gathered);
  if (gathered.service && (!pod || gathered.service.pods.total === 0)) return serviceFinding(gathered);
  if (!pod) return workloadFinding(gathered);

  if (pod.reason === 'Evicted') return evictionFinding(gathered);
  if (pod.phase === 'Succeeded') return completedFinding(gathered);
  const events = pod.events;
  const scheduling = pod.conditions.find((condition) => condition.type === 'PodScheduled' && condition.status === 'False');
  const schedulingMessage = scheduling?.message ?? events.find((event) => event.reason === 'FailedScheduling')?.message;
  if (pod.phase === 'Pending' && schedulingMessage) {
    const reading = readSchedulingMessage(schedulingMessage);
    if (reading.verdict) {
      return {
        category: reading.verdict,
        cause: schedulingCause(reading.verdict, pod.name, schedulingMessage),
        evidence: [`pod ${pod.name} is Pending: ${schedulingMessage}`, ...placementEvidence(gathered, reading.verdict)],
        confidence: 'high',
      };
    }
  }

  if (isRecovered(gathered)) return recoveredFinding(gathered);
  const container = troubledContainer(pod.containers);
  if (container) {
    const finding = containerFinding(gathered, container, events);
    if (finding) return finding;
  }
  const mountFailure = events.find((event) => event.reason === 'FailedMount' || event.reason === 'FailedAttachVolume');
  if (mountFailure) {
    const missing = readMissingReference(mountFailure.message);
    if (missing) return { category: missing.verdict, cause: `the ${missing.verdict === 'missing-secret' ? 'Secret' : 'ConfigMap'} "${missing.name}" the pod mounts does not exist`, evidence: [eventLine(mountFailure)], confidence: 'high' };
  }
  const probe = findProbeFailure(events);
  if (probe) return probeFinding(gathered, probe);
  return workloadFinding(gathered) ?? unexplainedFinding(gathered);
}

/** A pod in trouble that no rule explains: say what is seen, with low confidence, rather than "nothing wrong". */
function unexplainedFinding(gathered: Case): Finding | undefined {
  const pod = gathered.pod!;
  const ready = pod.conditions.find((condition) => condition.type === 'Ready');
  if (pod.phase === 'Succeeded' || (pod.phase === 'Running' && ready?.status === 'True')) return undefined;
  const warnings = pod.events.filter((event) => event.type === 'Warning').slice(0, 2).map(eventLine);
  return {
    category: pod.status.startsWith('Init') ? 'init-failure' : 'app-crash',
    cause: `pod ${pod.name} is ${pod.status} and no known failure explains it`,
    evidence: [`pod ${pod.name} is ${pod.status} (phase ${pod.phase}), ready ${pod.ready}, restarts ${pod.restarts}`, ...warnings],
    confidence: 'low',
  };
}

function containerFinding(gathered: Case, container: ContainerStatusData, events: EventData[]): Finding | undefined {
  const where = `${container.init ? 'init container' : 'container'} ${container.name} of pod ${gathered.pod?.name}`;
  const waiting = container.state.state === 'waiting' ? container.state : undefined;
  if (waiting && isImagePullReason(waiting.reason)) {
    // The kubelet's "Failed to pull image ...: <registry's answer>" says why; "Error: ErrImagePull" only that.
    const pullEvents = events
      .filter((event) => event.type === 'Warning' && /Failed to pull image|ErrImagePull|not found|manifest unknown|unauthorized|denied/i.test(event.message))
      .sort((left, right) => Number(/Failed to pull image/i.test(right.message)) - Number(/Failed to pull image/i.test(left.message)) || right.message.length - left.message.length);
    const pullSecrets = gathered.pod?.spec.imagePullSecrets ?? [];
    const unauthorized = pullEvents.some((event) => /unauthori[sz]ed|denied|401|403|authentication required/i.test(event.message));
    return {
      category: 'image-pull',
      cause: `the image ${container.image} cannot be pulled${unauthorized ? ' (the registry refuses the pull)' : ''}`,
      evidence: [
        `${where} is waiting: ${stateLine(waiting)}`,
        ...pullEvents.slice(0, 2).map(eventLine),
        `image: ${container.image}`,
        ...(unauthorized ? [`pod imagePullSecrets: ${pullSecrets.length ? pullSecrets.join(', ') : 'none'}`] : []),
      ],
      confidence: 'high',
    };
  }
  const configMessage = waiting?.reason === 'CreateContainerConfigError' || waiting?.reason === 'CreateContainerError' ? waiting.message ?? '' : '';
  const missing = readMissingReference(configMessage) ?? findMissingInEvents(events);
  if (missing && (waiting?.reason?.startsWith('CreateContainer') || waiting?.reason === 'ContainerCreating' || container.state.state === 'waiting')) {
    const object = missing.verdict === 'missing-secret' ? 'Secret' : 'ConfigMap';
    if (missing.volume) missing.name = gathered.pod?.spec.volumes.find((volume) => volume.name === missing.volume)?.sourceName ?? missing.name;
    const what = missing.key ? `the key "${missing.key}" of ${object} "${missing.name}"` : `${object} "${missing.name}"`;
    return {
      category: missing.verdict,
      cause: `${what} that the pod references does not exist`,
      evidence: [`${where} is waiting: ${waiting ? stateLine(waiting) : 'not started'}`, ...events.filter((event) => readMissingReference(event.message)).slice(0, 2).map(eventLine)],
      confidence: 'high',
    };
  }
  const termination = lastTermination(container);
  if (termination?.reason === 'OOMKilled') {
    const limit = gathered.pod?.spec.containers.find((spec) => spec.name === container.name && spec.init === container.init)?.resources.limits?.memory;
    return {
      category: 'oom-killed',
      cause: `${where} is killed for exceeding its memory limit${limit ? ` of ${limit}` : ''}`,
      evidence: [
        `${where} last terminated: OOMKilled (exit code ${termination.exitCode ?? 137}), restarts ${container.restartCount}${limit ? `; memory limit ${limit}` : ''}`,
        ...logEvidence(gathered).slice(0, 2),
      ],
      confidence: 'high',
    };
  }
  const reading = gathered.logs ? readLogSignals([...gathered.logs.errorLines, ...gathered.logs.lines]) : undefined;
  const probe = findProbeFailure(events);
  if (probe && reading?.verdict !== 'bad-credentials' && reading?.verdict !== 'dependency-unreachable') {
    if (!container.init) return probeFinding(gathered, probe);
  }
  if (container.init && container.state.state === 'running') return initStuckFinding(gathered, container, reading?.evidence ?? []);
  const crashed = termination !== undefined && (termination.exitCode ?? 0) !== 0;
  // The runtime could not start the process at all (bad command, bad mount path, bad security context).
  const cannotStart = waiting?.reason !== undefined && /^(RunContainerError|CreateContainerError|StartError|ContainerCannotRun)$/.test(waiting.reason);
  const crashLooping = waiting?.reason === 'CrashLoopBackOff' || cannotStart || crashed;
  if (!crashLooping && !(reading?.verdict && reading.verdict !== 'app-crash' && !container.ready)) return undefined;

  const stateText = waiting ? stateLine(waiting) : termination ? stateLine(termination) : 'not ready';
  const terminationText = termination ? `; last terminated ${termination.reason ?? ''} (exit code ${termination.exitCode ?? '?'})` : '';
  const header = `${where}: ${stateText}${terminationText}, restarts ${container.restartCount}`;
  const verdict = reading?.verdict === 'oom' ? 'app-crash' : reading?.verdict;
  // An init container that fails holds the pod back whatever its reason: that is the category; its log says why.
  const category: Category = container.init ? 'init-failure' : (verdict ?? 'app-crash');
  const causes: Record<string, string> = {
    'bad-credentials': 'a dependency refuses the credentials the app presents',
    'dependency-unreachable': 'the app cannot reach a dependency',
    'app-crash': 'the process exits with its own error',
    'init-failure': `init container ${container.name} fails, so the pod never starts`,
  };
  // The line that says the most (the longest of the evidence) heads the summary.
  const telling = [...(reading?.evidence ?? [])].sort((left, right) => tellingScore(right) - tellingScore(left) || right.length - left.length)[0];
  const headline = telling ? stripLogPrefix(telling) : undefined;
  // Refused credentials: say where the app takes them from, which is what to check.
  const credentialSources = category === 'bad-credentials' ? credentialEvidence(gathered, container.name) : [];
  return {
    category,
    cause: `${causes[category] ?? 'the container keeps failing'}${headline ? `: "${headline}"` : ''}`,
    evidence: [header, ...(reading?.evidence.length ? reading.evidence.map((line) => `log: ${line}`) : logEvidence(gathered).slice(0, 2)), ...credentialSources],
    confidence: reading?.verdict ? 'high' : 'medium',
  };
}

/** A pod that ran to completion: whatever fired while it was pending or running, it is done now. */
function completedFinding(gathered: Case): Finding {
  const pod = gathered.pod!;
  const exits = pod.containers
    .filter((container) => !container.init && container.state.state === 'terminated')
    .map((container) => `container ${container.name} ${container.state.reason ?? 'terminated'} with exit code ${container.state.exitCode ?? '?'}`);
  const finished = gathered.job?.jobs.find((job) => job.state === 'Complete');
  return {
    category: 'no-issue',
    cause: `pod ${pod.name} has Completed (phase Succeeded): its work is done and nothing is failing now`,
    evidence: [`pod ${pod.name} is ${pod.status}, phase Succeeded${exits.length ? `; ${exits.join('; ')}` : ''}`, ...(finished ? [`Job ${finished.namespace}/${finished.name} is Complete (${finished.succeeded}/${finished.completions} succeeded)`] : []), ...logEvidence(gathered).slice(0, 1)],
    confidence: 'high',
  };
}

/** The container's credential-looking env vars and secret volumes, with the Secrets they come from. */
function credentialEvidence(gathered: Case, containerName: string): string[] {
  const spec = gathered.pod?.spec;
  const container = spec?.containers.find((candidate) => candidate.name === containerName && !candidate.init);
  if (!spec || !container) return [];
  const fromSecrets = container.env
    .filter((variable) => variable.source?.kind === 'secretKeyRef')
    .map((variable) => `${variable.name} from Secret ${variable.source?.name}/${variable.source?.key}`);
  const secretSources = [...container.envFrom.filter((source) => source.kind === 'secretRef').map((source) => `all of Secret ${source.name}`), ...spec.volumes.filter((volume) => volume.kind === 'secret').map((volume) => `volume ${volume.name} from Secret ${volume.sourceName}`)];
  const sources = [...fromSecrets, ...secretSources];
  return sources.length ? [`container ${containerName} takes its credentials from: ${sources.slice(0, 6).join('; ')}`] : [];
}

/** Why the scheduler places the pod nowhere, in a sentence. */
function schedulingCause(verdict: string, podName: string, message: string): string {
  if (verdict === 'pvc-unbound') return `pod ${podName} cannot be scheduled: its PersistentVolumeClaim is not bound`;
  if (verdict === 'unschedulable-resources') {
    const resources = [...new Set([...message.matchAll(/Insufficient ([\w/-]+(?:\.[\w/-]+)*)/g)].map((match) => match[1]))];
    return `pod ${podName} cannot be scheduled: no node has enough free ${resources.join(' or ') || 'resources'} for its requests`;
  }
  return `pod ${podName} cannot be scheduled: no node satisfies its placement rules (node selector, affinity, taints)`;
}

/** The pod's own placement rules and requests: what the scheduler could not satisfy. */
function placementEvidence(gathered: Case, verdict: string): string[] {
  const spec = gathered.pod?.spec;
  if (!spec) return [];
  if (verdict === 'unschedulable-placement') {
    const selector = Object.entries(spec.nodeSelector ?? {}).map(([key, value]) => `${key}=${value}`);
    return [
      ...(selector.length ? [`pod nodeSelector: ${selector.join(', ')}`] : []),
      ...(spec.affinity?.length ? [`pod affinity: ${spec.affinity.join('; ')}`] : []),
      ...(spec.tolerations.length ? [`pod tolerations: ${spec.tolerations.join(', ')}`] : []),
    ];
  }
  if (verdict === 'unschedulable-resources') {
    return spec.containers
      .filter((container) => container.resources.requests || container.resources.limits)
      .map((container) => `container ${container.name} requests ${formatQuantities(container.resources.requests)}; limits ${formatQuantities(container.resources.limits)}`);
  }
  return [];
}

function formatQuantities(values: Record<string, string> | undefined): string {
  return values && Object.keys(values).length ? Object.entries(values).map(([key, value]) => `${key}=${value}`).join(', ') : 'none';
}

/** An init container that never finishes (waiting for something that does not come) keeps the pod in Init. */
function initStuckFinding(gathered: Case, container: ContainerStatusData, logLines: string[]): Finding {
  const started = container.state.startedAt ? secondsAgo(container.state.startedAt, gathered) : undefined;
  const command = gathered.pod?.spec.containers.find((spec) => spec.init && spec.name === container.name)?.command;
  return {
    category: 'init-failure',
    cause: `init container ${container.name} has been running${started !== undefined ? ` for ${Math.round(started / 60)} minutes` : ''} without finishing, so the pod never starts`,
    evidence: [
      `pod ${gathered.pod?.name} is ${gathered.pod?.status}: init container ${container.name} still running${started !== undefined ? ` after ${Math.round(started / 60)} minutes` : ''}`,
      ...(command?.length ? [`init container ${container.name} command: ${command.join(' ').slice(0, 300)}`] : []),
      ...(logLines.length ? logLines.map((line) => `log: ${line}`) : logEvidence(gathered).slice(0, 2)),
    ],
    confidence: logLines.length ? 'high' : 'medium',
  };
}

/** The kubelet's Unhealthy event says why the probe failed; its Killing event only that it did. */
function findProbeFailure(events: readonly EventData[]): EventData | undefined {
  const failures = events.filter((event) => PROBE_FAILURE.test(event.message) && isRecent(event));
  return failures.find((event) => event.reason === 'Unhealthy') ?? failures[0];
}

/** What the kubelet's probe message says went wrong, in a sentence. */
function describeProbeFailure(message: string): string {
  const kind = (/(Liveness|Readiness|Startup) probe/i.exec(message)?.[1] ?? 'a').toLowerCase();
  const target = /"(https?:\/\/[^"]+)"/.exec(message)?.[1];
  const where = target ? ` (${target})` : '';
  if (/context deadline exceeded|timeout|timed out/i.test(message)) return `the ${kind} probe times out${where}: the endpoint answers slower than the probe's timeoutSeconds`;
  if (/connection refused/i.test(message)) return `the ${kind} probe is refused${where}: nothing listens on the probed port`;
  const status = /statuscode: (\d+)/i.exec(message)?.[1];
  if (status) return `the ${kind} probe gets HTTP ${status}${where}: the probed path does not answer healthy`;
  return `the ${kind} probe fails: ${message.replace(/\s+/g, ' ').slice(0, 200)}`;
}

function probeFinding(gathered: Case, probe: EventData): Finding {
  const spec = gathered.pod?.spec.containers.flatMap((container) => container.probes.map((item) => `${container.name} ${item.kind} probe: ${item.summary}`)) ?? [];
  const ports = gathered.pod?.spec.containers.flatMap((container) => container.ports.map((port) => `${container.name} port ${port.containerPort}`)) ?? [];
  return {
    category: 'probe-failure',
    cause: describeProbeFailure(probe.message),
    evidence: [
      eventLine(probe),
      ...(gathered.pod?.events ?? []).filter((event) => event !== probe && PROBE_FAILURE.test(event.message)).slice(0, 1).map(eventLine),
      ...spec.slice(0, 3),
      ...(ports.length ? [`declared ports: ${ports.join(', ')}`] : []),
    ],
    confidence: 'high',
  };
}

