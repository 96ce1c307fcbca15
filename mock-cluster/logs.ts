/**
 * `pods/{name}/log`: a container's log from the scenario's `logs/` tree, with the options
 * the kubelet honours (`container`, `previous`, `tailLines`, `sinceSeconds`, `sinceTime`,
 * `limitBytes`, `timestamps`) and its refusals, as the 400s kubectl shows ("previous
 * terminated container ... not found", "is waiting to start", "a container name must be
 * specified").
 *
 * Each line has a time: its own leading RFC 3339 timestamp when it has one, otherwise one
 * spread over the container's run (startedAt .. finishedAt, or .. now while running).
 */
import { badRequest } from './api-error.ts';
import type { ContainerStatus, PodShape } from './pod-status.ts';
import type { ScenarioLog } from './types.ts';

export interface LogQuery {
  container?: string | null;
  previous?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  limitBytes?: number;
  timestamps?: boolean;
}

const LEADING_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)/;

function parseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

export function chooseContainer(pod: PodShape, requested: string | null | undefined): string {
  const containers = (pod.spec?.containers ?? []).map((container) => container.name);
  const initContainers = (pod.spec?.initContainers ?? []).map((container) => container.name);
  if (requested) {
    if (![...containers, ...initContainers].includes(requested))
      throw badRequest(`container ${requested} is not valid for pod ${pod.metadata.name}`);
    return requested;
  }
  const annotated = pod.metadata.annotations?.['kubectl.kubernetes.io/default-container'];
  if (annotated && containers.includes(annotated)) return annotated;
  if (containers.length === 1 && containers[0]) return containers[0];
  const initText = initContainers.length > 0 ? ` or one of the init containers: [${initContainers.join(' ')}]` : '';
  throw badRequest(
    `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${containers.join(' ')}]${initText}`,
  );
}

function statusOf(pod: PodShape, container: string): ContainerStatus | undefined {
  return [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].find(
    (status) => status.name === container,
  );
}

const WAITING_MESSAGES: Record<string, string> = {
  ImagePullBackOff: 'trying and failing to pull image',
  ErrImagePull: 'trying and failing to pull image',
};

interface TimedLine {
  time: number;
  text: string;
}

function timeLines(text: string, window: { start?: number; end: number }): TimedLine[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const own = lines.map((line) => parseTime(LEADING_TIMESTAMP.exec(line)?.[1]?.replace(' ', 'T')));
  const end = window.end;
  const start = window.start ?? end - lines.length * 1000;
  // A line without its own time takes the nearest earlier line's, else the nearest later one's.
  const nextOwn: (number | undefined)[] = new Array(lines.length);
  for (let index = lines.length - 1, next: number | undefined; index >= 0; index--) {
    next = own[index] ?? next;
    nextOwn[index] = next;
  }
  let previous: number | undefined;
  return lines.map((line, index) => {
    previous = own[index] ?? previous;
    const time = previous ?? nextOwn[index] ?? start + ((end - start) * (index + 1)) / lines.length;
    return { time, text: line };
  });
}

function formatTimestamp(time: number): string {
  return new Date(time).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** The log text the API server would stream for this request. Throws ApiError (400) for what the kubelet refuses. */
export function readPodLog(options: { pod: PodShape; logs: ScenarioLog[]; query: LogQuery; now: number }): string {
  const { pod, query, now } = options;
  const container = chooseContainer(pod, query.container);
  const status = statusOf(pod, container);
  const podName = pod.metadata.name;
  if (!pod.spec?.nodeName && !status) throw badRequest(`pod ${podName} does not have a host assigned`);
  const find = (previous: boolean): ScenarioLog | undefined =>
    options.logs.find(
      (log) =>
        log.namespace === pod.metadata.namespace &&
        log.pod === podName &&
        log.container === container &&
        log.previous === previous,
    );

  let text: string;
  let window: { start?: number; end: number };
  const lastTerminated = status?.lastState?.terminated;
  if (query.previous) {
    if (!lastTerminated) throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    text = find(true)?.text ?? '';
    window = {
      ...(parseTime(lastTerminated.startedAt) !== undefined ? { start: parseTime(lastTerminated.startedAt) } : {}),
      end: parseTime(lastTerminated.finishedAt) ?? now,
    };
  } else {
    const state = status?.state ?? {};
    const waiting = state.waiting;
    if (waiting && !lastTerminated && !find(false)) {
      const reason = waiting.reason ?? 'ContainerCreating';
      throw badRequest(
        `container "${container}" in pod "${podName}" is waiting to start: ${WAITING_MESSAGES[reason] ?? reason}`,
      );
    }
    // A container waiting to restart has no new run yet: the kubelet serves the last one.
    const current = find(false) ?? (waiting && lastTerminated ? find(true) : undefined);
    text = current?.text ?? '';
    const run = state.running ?? state.terminated ?? (waiting ? lastTerminated : undefined);
    const finished = state.terminated?.finishedAt ?? (waiting ? lastTerminated?.finishedAt : undefined);
    window = {
      ...(parseTime(run?.startedAt) !== undefined ? { start: parseTime(run?.startedAt) } : {}),
      end: parseTime(finished) ?? now,
    };
  }

  let lines = timeLines(text, window);
  if (query.tailLines !== undefined && query.tailLines >= 0)
    lines = query.tailLines === 0 ? [] : lines.slice(-query.tailLines);
  const since = query.sinceSeconds !== undefined ? now - query.sinceSeconds * 1000 : parseTime(query.sinceTime);
  if (since !== undefined) lines = lines.filter((line) => line.time >= since);
  let output = lines
    .map((line) => (query.timestamps ? `${formatTimestamp(line.time)} ${line.text}\n` : `${line.text}\n`))
    .join('');
  if (query.limitBytes !== undefined && query.limitBytes > 0) {
    const bytes = Buffer.from(output, 'utf8');
    if (bytes.length > query.limitBytes) output = bytes.subarray(0, query.limitBytes).toString('utf8');
  }
  return output;
}
