/**
 * Findings about the container in trouble: an image that cannot be pulled, a Secret or
 * ConfigMap it references that does not exist, a memory kill, an init container that
 * never ends, and a process that keeps exiting (with what its log says about why).
 */
import type { Category } from '../../diagnosis.ts';
import { isImagePullReason, readMissingReference, type MissingReference } from '../container-signals.ts';
import { eventLine, findMissingInEvents, logEvidence, restartPace, secondsAgo, stateLine, stripLogPrefix } from '../evidence.ts';
import type { Finding } from '../classify.ts';
import { tellingScore } from '../log-signals.ts';
import { containerPlace, type CaseView } from './view.ts';

export function isImagePullWait(view: CaseView): boolean {
  return isImagePullReason(view.waiting?.reason);
}

export function imagePullFinding(view: CaseView): Finding {
  const container = view.container!;
  const events = view.pod?.events ?? [];
  // The kubelet's "Failed to pull image ...: <registry's answer>" says why; "Error: ErrImagePull" only that.
  const pullEvents = events
    .filter((event) => event.type === 'Warning' && /Failed to pull image|ErrImagePull|not found|manifest unknown|unauthorized|denied/i.test(event.message))
    .sort((left, right) => Number(/Failed to pull image/i.test(right.message)) - Number(/Failed to pull image/i.test(left.message)) || right.message.length - left.message.length);
  const pullSecrets = view.pod?.spec.imagePullSecrets ?? [];
  const unauthorized = pullEvents.some((event) => /unauthori[sz]ed|denied|401|403|authentication required/i.test(event.message));
  return {
    category: 'image-pull',
    cause: `the image ${container.image} cannot be pulled${unauthorized ? ' (the registry refuses the pull)' : ''}`,
    evidence: [
      `${containerPlace(view)} is waiting: ${stateLine(view.waiting!)}`,
      ...pullEvents.slice(0, 2).map(eventLine),
      `image: ${container.image}`,
      ...(unauthorized ? [`pod imagePullSecrets: ${pullSecrets.length ? pullSecrets.join(', ') : 'none'}`] : []),
    ],
    confidence: 'high',
  };
}

/** The Secret or ConfigMap (or key of one) a waiting container references and cannot find. */
export function missingReferenceOf(view: CaseView): MissingReference | undefined {
  // A pod stuck in ContainerCreating may show no container state at all: the kubelet's FailedMount event names the object.
  const mount = view.pod?.events.find((event) => (event.reason === 'FailedMount' || event.reason === 'FailedAttachVolume') && readMissingReference(event.message));
  if (view.container?.state.state !== 'waiting') return mount ? readMissingReference(mount.message) : undefined;
  const reason = view.waiting?.reason;
  const message = reason === 'CreateContainerConfigError' || reason === 'CreateContainerError' ? (view.waiting?.message ?? '') : '';
  return readMissingReference(message) ?? findMissingInEvents(view.pod?.events ?? []);
}

export function missingReferenceFinding(view: CaseView): Finding {
  const missing = { ...missingReferenceOf(view)! };
  const object = missing.verdict === 'missing-secret' ? 'Secret' : 'ConfigMap';
  if (missing.volume) missing.name = view.pod?.spec.volumes.find((volume) => volume.name === missing.volume)?.sourceName ?? missing.name;
  const what = missing.key ? `the key "${missing.key}" of ${object} "${missing.name}"` : `${object} "${missing.name}"`;
  return {
    category: missing.verdict,
    cause: `${what} that the pod references does not exist`,
    evidence: [`${view.container ? containerPlace(view) : `pod ${view.pod?.name}`} is waiting: ${view.waiting ? stateLine(view.waiting) : 'not started'}`, ...(view.pod?.events ?? []).filter((event) => readMissingReference(event.message)).slice(0, 2).map(eventLine)],
    confidence: 'high',
  };
}

export function oomFinding(view: CaseView): Finding {
  const container = view.container!;
  const termination = view.termination!;
  const limit = view.pod?.spec.containers.find((spec) => spec.name === container.name && spec.init === container.init)?.resources.limits?.memory;
  return {
    category: 'oom-killed',
    cause: `${containerPlace(view)} is killed for exceeding its memory limit${limit ? ` of ${limit}` : ''}`,
    evidence: [
      `${containerPlace(view)} last terminated: OOMKilled (exit code ${termination.exitCode ?? 137}), restarts ${container.restartCount}${limit ? `; memory limit ${limit}` : ''}`,
      ...logEvidence(view.gathered).slice(0, 2),
      ...memorySettingEvidence(view),
    ],
    confidence: 'high',
  };
}

/** A runtime's own memory ceiling (JVM heap, Node's old space, Go's soft limit), set in env or args: compared with the container's limit it says why. */
export const MEMORY_SETTING = /-Xmx\d+[kmgKMG]?|-XX:MaxRAMPercentage=[\d.]+|--max-old-space-size=\d+|^GOMEMLIMIT$|^NODE_OPTIONS$|^JAVA_(TOOL_)?OPTS$|^JAVA_TOOL_OPTIONS$|^_JAVA_OPTIONS$|^JVM_OPTS$|HEAP/i;

function memorySettingEvidence(view: CaseView): string[] {
  const spec = view.pod?.spec.containers.find((candidate) => candidate.name === view.container?.name && candidate.init === view.container?.init);
  if (!spec) return [];
  const fromEnv = spec.env.filter((variable) => variable.value !== undefined && (MEMORY_SETTING.test(variable.name) || MEMORY_SETTING.test(variable.value))).map((variable) => `${variable.name}=${variable.value}`);
  const fromArgs = [...(spec.command ?? []), ...(spec.args ?? [])].filter((argument) => MEMORY_SETTING.test(argument));
  const settings = [...fromEnv, ...fromArgs].slice(0, 4);
  return settings.length ? [`container ${spec.name} sets its runtime's memory: ${settings.join('; ')} (memory limit ${spec.resources.limits?.memory ?? 'none'})`] : [];
}

/** An init container that never finishes (waiting for something that does not come) keeps the pod in Init. */
export function initStuckFinding(view: CaseView): Finding {
  const container = view.container!;
  const logLines = view.reading?.evidence ?? [];
  const started = container.state.startedAt ? secondsAgo(container.state.startedAt, view.gathered) : undefined;
  const command = view.pod?.spec.containers.find((spec) => spec.init && spec.name === container.name)?.command;
  return {
    category: 'init-failure',
    cause: `init container ${container.name} has been running${started !== undefined ? ` for ${Math.round(started / 60)} minutes` : ''} without finishing, so the pod never starts`,
    evidence: [
      `pod ${view.pod?.name} is ${view.pod?.status}: init container ${container.name} still running${started !== undefined ? ` after ${Math.round(started / 60)} minutes` : ''}`,
      ...(command?.length ? [`init container ${container.name} command: ${command.join(' ').slice(0, 300)}`] : []),
      ...(logLines.length ? logLines.map((line) => `log: ${line}`) : logEvidence(view.gathered).slice(0, 2)),
    ],
    confidence: logLines.length ? 'high' : 'medium',
  };
}

/** The container keeps exiting, or cannot start, or is unready while its log names a dependency's failure. */
export function isFailingProcess(view: CaseView): boolean {
  const { container, waiting, termination, reading } = view;
  if (!container) return false;
  const crashed = termination !== undefined && (termination.exitCode ?? 0) !== 0;
  // The runtime could not start the process at all (bad command, bad mount path, bad security context).
  const cannotStart = waiting?.reason !== undefined && /^(RunContainerError|CreateContainerError|StartError|ContainerCannotRun)$/.test(waiting.reason);
  if (waiting?.reason === 'CrashLoopBackOff' || cannotStart || crashed) return true;
  return reading?.verdict !== undefined && reading.verdict !== 'app-crash' && !container.ready;
}

const PROCESS_CAUSES: Record<string, string> = {
  'bad-credentials': 'a dependency refuses the credentials the app presents',
  'dependency-unreachable': 'the app cannot reach a dependency',
  'app-crash': 'the process exits with its own error',
};

export function failingProcessFinding(view: CaseView): Finding {
  const { container, waiting, termination, reading } = view;
  const stateText = waiting ? stateLine(waiting) : termination ? stateLine(termination) : container!.ready ? 'running and ready' : 'running, not ready';
  const terminationText = termination ? `; last terminated ${termination.reason ?? ''} (exit code ${termination.exitCode ?? '?'})` : '';
  const header = `${containerPlace(view)}: ${stateText}${terminationText}, restarts ${container!.restartCount}`;
  const verdict = reading?.verdict === 'oom' ? 'app-crash' : reading?.verdict;
  // An init container that fails holds the pod back whatever its reason: that is the category; its log says why.
  const category: Category = container!.init ? 'init-failure' : (verdict ?? 'app-crash');
  const cause = container!.init ? `init container ${container!.name} fails, so the pod never starts` : (PROCESS_CAUSES[category] ?? 'the container keeps failing');
  // The line that says the most heads the summary.
  const telling = [...(reading?.evidence ?? [])].sort((left, right) => tellingScore(right) - tellingScore(left) || right.length - left.length)[0];
  const headline = telling ? stripLogPrefix(telling) : undefined;
  const pace = restartPace(container!, view.gathered);
  const paceLine = pace?.recurring
    ? [`${containerPlace(view)} has restarted ${container!.restartCount} times, about every ${Math.round(pace.intervalSeconds / 60)} minutes; its current run has been up ${Math.round(pace.uptimeSeconds / 60)} minutes, so it has not recovered`]
    : [];
  return {
    category,
    cause: `${cause}${headline ? `: "${headline}"` : ''}`,
    evidence: [
      header,
      ...paceLine,
      ...(reading?.evidence.length ? reading.evidence.map((line) => `log: ${line}`) : lastWords(view)),
      // Refused credentials: say where the app takes them from, which is what to check.
      ...(category === 'bad-credentials' ? credentialEvidence(view) : []),
      ...filledVolumeEvidence(view),
      ...(category === 'app-crash' || category === 'init-failure' ? configEvidence(view) : []),
    ],
    confidence: reading?.verdict ? 'high' : 'medium',
  };
}

/**
 * What a process printed last before it exited, when no known signal names its error: a
 * config parser's complaint ("plugin/forward: not an IP address"), an unknown message.
 */
function lastWords(view: CaseView): string[] {
  const errors = logEvidence(view.gathered).slice(0, 2);
  if (errors.length > 0) return errors;
  const lines = (view.gathered.logs?.lines ?? []).map((line) => line.trim()).filter((line) => line.length > 0);
  return [...new Set(lines.slice(-LAST_WORDS))].map((line) => `log (last lines before it exited): ${line.slice(0, 300)}`);
}

const LAST_WORDS = 2;

/** The ConfigMaps a crashing container reads its configuration from: a crash at start is often a bad edit there. */
function configEvidence(view: CaseView): string[] {
  const spec = view.pod?.spec;
  const container = spec?.containers.find((candidate) => candidate.name === view.container?.name && candidate.init === view.container?.init);
  if (!spec || !container) return [];
  const mounted = container.volumeMounts.flatMap((mount) => {
    const volume = spec.volumes.find((candidate) => candidate.name === mount.name && candidate.kind === 'configMap');
    return volume ? [`ConfigMap ${volume.sourceName} mounted at ${mount.mountPath}${volume.keys?.length ? ` (keys ${volume.keys.join(', ')})` : ''}`] : [];
  });
  const fromEnv = container.envFrom.filter((source) => source.kind === 'configMapRef').map((source) => `ConfigMap ${source.name} as environment`);
  const sources = [...mounted, ...fromEnv];
  return sources.length ? [`container ${container.name} reads its configuration from: ${sources.slice(0, 4).join('; ')}`] : [];
}

/** The container's credential-looking env vars and secret volumes, with the Secrets they come from. */
function credentialEvidence(view: CaseView): string[] {
  const spec = view.pod?.spec;
  const container = spec?.containers.find((candidate) => candidate.name === view.container?.name && !candidate.init);
  if (!spec || !container) return [];
  const fromSecrets = container.env.filter((variable) => variable.source?.kind === 'secretKeyRef').map((variable) => `${variable.name} from Secret ${variable.source?.name}/${variable.source?.key}`);
  const secretSources = [
    ...container.envFrom.filter((source) => source.kind === 'secretRef').map((source) => `all of Secret ${source.name}`),
    ...spec.volumes.filter((volume) => volume.kind === 'secret').map((volume) => `volume ${volume.name} from Secret ${volume.sourceName}`),
  ];
  const sources = [...fromSecrets, ...secretSources];
  return sources.length ? [`container ${container.name} takes its credentials from: ${sources.slice(0, 6).join('; ')}`] : [];
}

/**
 * "No space left on device" names a path, not a volume: the container's mount that holds
 * the path says which volume, and the volume which claim, is full.
 */
function filledVolumeEvidence(view: CaseView): string[] {
  const line = (view.reading?.evidence ?? []).find((candidate) => /No space left on device|ENOSPC|disk (is )?full/i.test(candidate));
  if (!line) return [];
  const spec = view.pod?.spec.containers.find((candidate) => candidate.name === view.container?.name && candidate.init === view.container?.init);
  const mounts = [...(spec?.volumeMounts ?? [])].sort((left, right) => right.mountPath.length - left.mountPath.length);
  const mount = mounts.find((candidate) => line.includes(candidate.mountPath)) ?? mounts.find((candidate) => !candidate.readOnly && !/serviceaccount|secrets|config/i.test(candidate.mountPath));
  if (!mount) return [];
  const volume = view.pod?.spec.volumes.find((candidate) => candidate.name === mount.name);
  const source = volume?.kind === 'persistentVolumeClaim' ? `PersistentVolumeClaim ${view.pod?.namespace}/${volume.sourceName}` : `${volume?.kind ?? 'volume'} ${volume?.sourceName ?? mount.name}`;
  return [`the full filesystem is mounted at ${mount.mountPath}: volume ${mount.name} from ${source}`];
}
