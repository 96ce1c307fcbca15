/**
 * Rule `failing-process`: a process that keeps exiting, cannot start, or stays unready
 * naming a dependency, judged by what its log says: refused credentials, an unreachable
 * dependency, or its own crash; with where it takes its credentials and configuration
 * from, and which volume filled up.
 */
import type { Category } from '../../diagnosis.ts';
import type { CaseView, Finding } from '../case.ts';
import { restartHistoryOf } from '../containers.ts';
import { describeRestartHistory } from '../history/restart-history.ts';
import { logEvidence, stateLine, stripLogPrefix } from '../evidence.ts';
import { tellingScore } from '../log-signals.ts';
import { containerPlace } from './view.ts';

/** The container keeps exiting, or cannot start, or is unready while its log names a dependency's failure. */
export function isFailingProcess(view: CaseView): boolean {
  const { container, waiting, termination, reading } = view;
  if (!container) return false;
  const crashed = termination !== undefined && (termination.exitCode ?? 0) !== 0;
  // The runtime could not start the process at all (bad command, bad mount path, bad security context).
  const cannotStart =
    waiting?.reason !== undefined &&
    /^(RunContainerError|CreateContainerError|StartError|ContainerCannotRun)$/.test(waiting.reason);
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
  const stateText = waiting
    ? stateLine(waiting)
    : termination
      ? stateLine(termination)
      : container!.ready
        ? 'running and ready'
        : 'running, not ready';
  const terminationText = termination
    ? `; last terminated ${termination.reason ?? ''} (exit code ${termination.exitCode ?? '?'})`
    : '';
  const header = `${containerPlace(view)}: ${stateText}${terminationText}, restarts ${container!.restartCount}`;
  const verdict = reading?.verdict === 'oom' ? 'app-crash' : reading?.verdict;
  // An init container that fails holds the pod back whatever its reason: that is the category; its log says why.
  const category: Category = container!.init ? 'init-failure' : (verdict ?? 'app-crash');
  const cause = container!.init
    ? `init container ${container!.name} fails, so the pod never starts`
    : (PROCESS_CAUSES[category] ?? 'the container keeps failing');
  // The line that says the most heads the summary.
  const telling = [...(reading?.evidence ?? [])].sort(
    (left, right) => tellingScore(right) - tellingScore(left) || right.length - left.length,
  )[0];
  const headline = telling ? stripLogPrefix(telling) : undefined;
  const history = restartHistoryOf(container!, view.gathered);
  const paceLine = history?.ongoing ? [`${containerPlace(view)}: ${describeRestartHistory(history)}`] : [];
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
  return [...new Set(lines.slice(-LAST_WORDS))].map(
    (line) => `log (last lines before it exited): ${line.slice(0, 300)}`,
  );
}

const LAST_WORDS = 2;

/** The ConfigMaps (and Secrets loaded as environment) a crashing container reads its configuration from: a crash at start is often a bad edit there. */
function configEvidence(view: CaseView): string[] {
  const spec = view.pod?.spec;
  const container = spec?.containers.find(
    (candidate) => candidate.name === view.container?.name && candidate.init === view.container?.init,
  );
  if (!spec || !container) return [];
  const mounted = container.volumeMounts.flatMap((mount) => {
    const volume = spec.volumes.find((candidate) => candidate.name === mount.name && candidate.kind === 'configMap');
    return volume
      ? [
          `ConfigMap ${volume.sourceName} mounted at ${mount.mountPath}${volume.keys?.length ? ` (keys ${volume.keys.join(', ')})` : ''}`,
        ]
      : [];
  });
  // A Secret loaded whole with envFrom sets variables too (a missing one is often a renamed key there); its values stay unread.
  const fromEnv = container.envFrom.map(
    (source) => `${source.kind === 'configMapRef' ? 'ConfigMap' : 'Secret'} ${source.name} as environment`,
  );
  const sources = [...mounted, ...fromEnv];
  return sources.length
    ? [`container ${container.name} reads its configuration from: ${sources.slice(0, 4).join('; ')}`]
    : [];
}

/** The container's credential-looking env vars and secret volumes, with the Secrets they come from. */
function credentialEvidence(view: CaseView): string[] {
  const spec = view.pod?.spec;
  const container = spec?.containers.find((candidate) => candidate.name === view.container?.name && !candidate.init);
  if (!spec || !container) return [];
  const fromSecrets = container.env
    .filter((variable) => variable.source?.kind === 'secretKeyRef')
    .map((variable) => `${variable.name} from Secret ${variable.source?.name}/${variable.source?.key}`);
  const secretSources = [
    ...container.envFrom
      .filter((source) => source.kind === 'secretRef')
      .map((source) => `all of Secret ${source.name}`),
    ...spec.volumes
      .filter((volume) => volume.kind === 'secret')
      .map((volume) => `volume ${volume.name} from Secret ${volume.sourceName}`),
  ];
  const sources = [...fromSecrets, ...secretSources];
  return sources.length
    ? [`container ${container.name} takes its credentials from: ${sources.slice(0, 6).join('; ')}`]
    : [];
}

/**
 * "No space left on device" names a path, not a volume: the container's mount that holds
 * the path says which volume, and the volume which claim, is full.
 */
function filledVolumeEvidence(view: CaseView): string[] {
  const line = (view.reading?.evidence ?? []).find((candidate) =>
    /No space left on device|ENOSPC|disk (is )?full/i.test(candidate),
  );
  if (!line) return [];
  const spec = view.pod?.spec.containers.find(
    (candidate) => candidate.name === view.container?.name && candidate.init === view.container?.init,
  );
  const mounts = [...(spec?.volumeMounts ?? [])].sort((left, right) => right.mountPath.length - left.mountPath.length);
  const mount =
    mounts.find((candidate) => line.includes(candidate.mountPath)) ??
    mounts.find((candidate) => !candidate.readOnly && !/serviceaccount|secrets|config/i.test(candidate.mountPath));
  if (!mount) return [];
  const volume = view.pod?.spec.volumes.find((candidate) => candidate.name === mount.name);
  const source =
    volume?.kind === 'persistentVolumeClaim'
      ? `PersistentVolumeClaim ${view.pod?.namespace}/${volume.sourceName}`
      : `${volume?.kind ?? 'volume'} ${volume?.sourceName ?? mount.name}`;
  return [`the full filesystem is mounted at ${mount.mountPath}: volume ${mount.name} from ${source}`];
}
