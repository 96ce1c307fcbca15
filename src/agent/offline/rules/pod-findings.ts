/**
 * Findings about the pod as a whole: it completed, the scheduler places it nowhere, a
 * probe fails (and whether the probe gives the app less time than its log shows it needs
 * to start), a volume's Secret or ConfigMap is missing, or nothing known explains it.
 */
import type { EventData } from '../../../tools/format/events.ts';
import type { ProbeData } from '../../../tools/format/pod-template.ts';
import type { Finding } from '../classify.ts';
import { eventLine, isRecent, logEvidence } from '../evidence.ts';
import { readSchedulingMessage, type SchedulingVerdict } from '../scheduling-signals.ts';
import type { CaseView } from './view.ts';

const PROBE_FAILURE = /(Liveness|Readiness|Startup) probe (failed|errored)|failed (liveness|readiness|startup) probe/i;

/** A pod that ran to completion: whatever fired while it was pending or running, it is done now. */
export function completedFinding(view: CaseView): Finding {
  const pod = view.pod!;
  const exits = pod.containers
    .filter((container) => !container.init && container.state.state === 'terminated')
    .map((container) => `container ${container.name} ${container.state.reason ?? 'terminated'} with exit code ${container.state.exitCode ?? '?'}`);
  const finished = view.gathered.job?.jobs.find((job) => job.state === 'Complete');
  return {
    category: 'no-issue',
    cause: `pod ${pod.name} has Completed (phase Succeeded): its work is done and nothing is failing now`,
    evidence: [
      `pod ${pod.name} is ${pod.status}, phase Succeeded${exits.length ? `; ${exits.join('; ')}` : ''}`,
      ...(finished ? [`Job ${finished.namespace}/${finished.name} is Complete (${finished.succeeded}/${finished.completions} succeeded)`] : []),
      ...logEvidence(view.gathered).slice(0, 1),
    ],
    confidence: 'high',
  };
}

/** The scheduler's message for a Pending pod, when it names a reason. */
export function schedulingOf(view: CaseView): { verdict: SchedulingVerdict; message: string } | undefined {
  const pod = view.pod;
  if (pod?.phase !== 'Pending') return undefined;
  const scheduling = pod.conditions.find((condition) => condition.type === 'PodScheduled' && condition.status === 'False');
  // The condition holds the latest word; when it names no reason (a PreBind timeout), an event may.
  const messages = [scheduling?.message, ...pod.events.filter((event) => event.reason === 'FailedScheduling').map((event) => event.message)].filter((message): message is string => Boolean(message));
  for (const message of messages) {
    const verdict = readSchedulingMessage(message).verdict;
    if (verdict) return { verdict, message };
  }
  return undefined;
}

export function schedulingFinding(view: CaseView): Finding {
  const { verdict, message } = schedulingOf(view)!;
  const podName = view.pod!.name;
  return {
    category: verdict,
    cause: schedulingCause(verdict, podName, message),
    evidence: [`pod ${podName} is Pending: ${message}`, ...placementEvidence(view, verdict)],
    confidence: 'high',
  };
}

function schedulingCause(verdict: SchedulingVerdict, podName: string, message: string): string {
  if (verdict === 'pvc-unbound') return `pod ${podName} cannot be scheduled: its PersistentVolumeClaim is not bound`;
  if (verdict === 'unschedulable-resources') {
    const resources = [...new Set([...message.matchAll(/Insufficient ([\w/-]+(?:\.[\w/-]+)*)/g)].map((match) => match[1]))];
    return `pod ${podName} cannot be scheduled: no node has enough free ${resources.join(' or ') || 'resources'} for its requests`;
  }
  return `pod ${podName} cannot be scheduled: no node satisfies its placement rules (node selector, affinity, taints)`;
}

/** The pod's own placement rules and requests: what the scheduler could not satisfy. */
function placementEvidence(view: CaseView, verdict: SchedulingVerdict): string[] {
  const spec = view.pod?.spec;
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

/** The kubelet's Unhealthy event says why the probe failed; its Killing event only that it did. */
export function findProbeFailure(events: readonly EventData[]): EventData | undefined {
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

export function probeFinding(view: CaseView): Finding {
  const probe = view.probe!;
  const containers = view.pod?.spec.containers ?? [];
  const spec = containers.flatMap((container) => container.probes.map((item) => `${container.name} ${item.kind} probe: ${item.summary}`));
  const ports = containers.flatMap((container) => container.ports.map((port) => `${container.name} port ${port.containerPort}`));
  const slowStart = slowStartEvidence(view);
  const slowHealth = /context deadline exceeded|Client\.Timeout|timed? ?out/i.test(probe.message) ? slowHealthEvidence(view) : [];
  return {
    category: 'probe-failure',
    cause: slowStart ? `the liveness probe kills the app before it has started: ${slowStart.sentence}` : describeProbeFailure(probe.message),
    evidence: [
      eventLine(probe),
      ...(view.pod?.events ?? []).filter((event) => event !== probe && PROBE_FAILURE.test(event.message)).slice(0, 1).map(eventLine),
      ...(slowStart ? [slowStart.evidence] : []),
      ...slowHealth,
      ...spec.slice(0, 3),
      ...(ports.length ? [`declared ports: ${ports.join(', ')}`] : []),
    ],
    confidence: 'high',
  };
}

/** A health check reporting how long it took: "Health contributor fxRates took 2759ms to respond", "readiness check took 3.2s". */
export const SLOW_HEALTH = /\b(health|readiness|liveness|probe)\b[^\n]*?\b(took|in|after|exceeded)\s+\d+(\.\d+)?\s?(ms|milliseconds|s|sec|seconds)\b/i;

/** A probe that times out against an endpoint that says, in the log, how long its checks take: the slow check is the fact. */
function slowHealthEvidence(view: CaseView): string[] {
  const lines = [...(view.gathered.logs?.errorLines ?? []), ...(view.gathered.logs?.lines ?? [])].filter((line) => SLOW_HEALTH.test(line));
  const timeouts = (view.pod?.spec.containers ?? []).flatMap((container) => container.probes.map((probe) => `${container.name} ${probe.kind} timeoutSeconds=${probe.timeoutSeconds ?? 1}`));
  return lines.length ? [`the probed endpoint's own checks are slower than the probe waits (${timeouts.slice(0, 2).join(', ')}): log: ${[...new Set(lines)].slice(-2).join(' | ').slice(0, 400)}`] : [];
}

/** "Started Application in 47.3 seconds", "Server startup in 52000 ms", "ready in 61s": how long the app needs to start. */
export const STARTUP_TIME = /\b(?:started|startup|start(?:ed)? up|ready|initiali[sz]ed|listening)\b[^\n]*?\bin (\d+(?:\.\d+)?) ?(ms|milliseconds|s|sec|secs|seconds)\b/i;

/**
 * The start time the log shows against the time the liveness probe allows
 * (initialDelaySeconds + failureThreshold × periodSeconds): an app that needs longer is
 * killed before it is up, however healthy it would be.
 */
function slowStartEvidence(view: CaseView): { sentence: string; evidence: string } | undefined {
  const lines = [...(view.gathered.logs?.lines ?? []), ...(view.gathered.logs?.errorLines ?? [])];
  const startLine = lines.find((line) => STARTUP_TIME.test(line));
  if (!startLine) return undefined;
  const [, amount = '0', unit = 's'] = STARTUP_TIME.exec(startLine)!;
  const seconds = /^m/i.test(unit) ? Number(amount) / 1000 : Number(amount);
  const probes = (view.pod?.spec.containers ?? []).flatMap((container) => container.probes.filter((probe) => probe.kind === 'liveness').map((probe) => ({ container: container.name, probe, all: container.probes })));
  const chosen = probes.find((entry) => entry.container === view.container?.name) ?? probes[0];
  if (!chosen || chosen.all.some((probe) => probe.kind === 'startup')) return undefined;
  const allowed = probeWindow(chosen.probe);
  if (seconds < allowed.seconds * 0.8) return undefined;
  const sentence = `the log shows it needs ${amount} ${unit} to start, and the liveness probe allows ${allowed.text}`;
  return { sentence, evidence: `${sentence}; add a startupProbe (or raise initialDelaySeconds) so the app can finish starting. Log: ${startLine.trim().slice(0, 200)}` };
}

function probeWindow(probe: ProbeData): { seconds: number; text: string } {
  const delay = probe.initialDelaySeconds ?? 0;
  const period = probe.periodSeconds ?? 10;
  const threshold = probe.failureThreshold ?? 3;
  return { seconds: delay + period * threshold, text: `initialDelaySeconds ${delay} + failureThreshold ${threshold} × periodSeconds ${period} = ${delay + period * threshold} s` };
}

/** A pod in trouble that no rule explains: say what is seen, with low confidence, rather than "nothing wrong". */
export function unexplainedFinding(view: CaseView): Finding | undefined {
  const pod = view.pod;
  if (!pod) return undefined;
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
