/**
 * Rule `probe-kills-container`: the kubelet kills or unreadies a container for a failed
 * probe. What the probe message says went wrong, and whether the probe gives the app less
 * time than its log shows it needs to start or to answer.
 */
import type { ProbeData } from '../../../tools/format/pod-template.ts';
import type { CaseView, Finding } from '../case.ts';
import { eventLine } from '../evidence.ts';
import { PROBE_FAILURE } from '../probe-events.ts';

/** The last run ended with the process's own exit code, not the kubelet's kill (SIGKILL 137, SIGTERM 143) nor a clean 0. */
export function exitedOnItsOwn({ termination }: CaseView): boolean {
  const code = termination?.exitCode;
  return code !== undefined && termination?.reason !== 'OOMKilled' && ![0, 137, 143].includes(code);
}

/** The probe reached the app, which answered 404: the probed path is not one it serves, whatever else its log says. */
export function answersNotFound(message: string): boolean {
  return /statuscode: 404\b/i.test(message);
}

/** What the kubelet's probe message says went wrong, in a sentence. */
function describeProbeFailure(message: string): string {
  const kind = (/(Liveness|Readiness|Startup) probe/i.exec(message)?.[1] ?? 'a').toLowerCase();
  const target = /"(https?:\/\/[^"]+)"/.exec(message)?.[1];
  const where = target ? ` (${target})` : '';
  if (/context deadline exceeded|timeout|timed out/i.test(message))
    return `the ${kind} probe times out${where}: the endpoint answers slower than the probe's timeoutSeconds`;
  if (/connection refused/i.test(message))
    return `the ${kind} probe is refused${where}: nothing listens on the probed port`;
  const status = /statuscode: (\d+)/i.exec(message)?.[1];
  if (status) return `the ${kind} probe gets HTTP ${status}${where}: the probed path does not answer healthy`;
  return `the ${kind} probe fails: ${message.replace(/\s+/g, ' ').slice(0, 200)}`;
}

export function probeFinding(view: CaseView): Finding {
  const probe = view.probe!;
  const containers = view.pod?.spec.containers ?? [];
  const spec = containers.flatMap((container) =>
    container.probes.map((item) => `${container.name} ${item.kind} probe: ${item.summary}`),
  );
  const ports = containers.flatMap((container) =>
    container.ports.map((port) => `${container.name} port ${port.containerPort}`),
  );
  const slowStart = slowStartEvidence(view);
  const slowHealth = /context deadline exceeded|Client\.Timeout|timed? ?out/i.test(probe.message)
    ? slowHealthEvidence(view)
    : [];
  return {
    category: 'probe-failure',
    cause: slowStart
      ? `the liveness probe kills the app before it has started: ${slowStart.sentence}`
      : describeProbeFailure(probe.message),
    evidence: [
      eventLine(probe),
      ...(view.pod?.events ?? [])
        .filter((event) => event !== probe && PROBE_FAILURE.test(event.message))
        .slice(0, 1)
        .map(eventLine),
      ...(slowStart ? [slowStart.evidence] : []),
      ...slowHealth,
      ...spec.slice(0, 3),
      ...(ports.length ? [`declared ports: ${ports.join(', ')}`] : []),
    ],
    confidence: 'high',
  };
}

/** A health check reporting how long it took: "Health contributor fxRates took 2759ms to respond", "readiness check took 3.2s". */
export const SLOW_HEALTH =
  /\b(health|readiness|liveness|probe)\b[^\n]*?\b(took|in|after|exceeded)\s+\d+(\.\d+)?\s?(ms|milliseconds|s|sec|seconds)\b/i;

/** A probe that times out against an endpoint that says, in the log, how long its checks take: the slow check is the fact. */
function slowHealthEvidence(view: CaseView): string[] {
  const lines = [...(view.gathered.logs?.errorLines ?? []), ...(view.gathered.logs?.lines ?? [])].filter((line) =>
    SLOW_HEALTH.test(line),
  );
  const timeouts = (view.pod?.spec.containers ?? []).flatMap((container) =>
    container.probes.map((probe) => `${container.name} ${probe.kind} timeoutSeconds=${probe.timeoutSeconds ?? 1}`),
  );
  return lines.length
    ? [
        `the probed endpoint's own checks are slower than the probe waits (${timeouts.slice(0, 2).join(', ')}): log: ${[...new Set(lines)].slice(-2).join(' | ').slice(0, 400)}`,
      ]
    : [];
}

/** "Started Application in 47.3 seconds", "Server startup in 52000 ms", "ready in 61s": how long the app needs to start. */
export const STARTUP_TIME =
  /\b(?:started|startup|start(?:ed)? up|ready|initiali[sz]ed|listening)\b[^\n]*?\bin (\d+(?:\.\d+)?) ?(ms|milliseconds|s|sec|secs|seconds)\b/i;

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
  const probes = (view.pod?.spec.containers ?? []).flatMap((container) =>
    container.probes
      .filter((probe) => probe.kind === 'liveness')
      .map((probe) => ({ container: container.name, probe, all: container.probes })),
  );
  const chosen = probes.find((entry) => entry.container === view.container?.name) ?? probes[0];
  if (!chosen || chosen.all.some((probe) => probe.kind === 'startup')) return undefined;
  const allowed = probeWindow(chosen.probe);
  if (seconds < allowed.seconds * 0.8) return undefined;
  const sentence = `the log shows it needs ${amount} ${unit} to start, and the liveness probe allows ${allowed.text}`;
  return {
    sentence,
    evidence: `${sentence}; add a startupProbe (or raise initialDelaySeconds) so the app can finish starting. Log: ${startLine.trim().slice(0, 200)}`,
  };
}

function probeWindow(probe: ProbeData): { seconds: number; text: string } {
  const delay = probe.initialDelaySeconds ?? 0;
  const period = probe.periodSeconds ?? 10;
  const threshold = probe.failureThreshold ?? 3;
  return {
    seconds: delay + period * threshold,
    text: `initialDelaySeconds ${delay} + failureThreshold ${threshold} × periodSeconds ${period} = ${delay + period * threshold} s`,
  };
}
