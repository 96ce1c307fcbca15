/**
 * Rule `pod-recovered`: a pod running and ready, its last crash long ago, no recent
 * warnings, and no pace of restarts that says it will crash again.
 */
import type { Case, Finding } from '../case.ts';
import { restartHistoryOf } from '../containers.ts';
import { describeRestartHistory } from '../history/restart-history.ts';
import { readFailingValues } from '../trace/failing-values.ts';
import { isRecent, revisionEvidence, secondsAgo } from '../evidence.ts';

const RECOVERED_AFTER_SECONDS = 30 * 60;

/** Running and ready, its last crash long ago, and no recent warnings. */
export function isRecovered(gathered: Case): boolean {
  const pod = gathered.pod;
  if (!pod || pod.phase !== 'Running') return false;
  if (pod.containers.some((container) => !container.init && !container.ready)) return false;
  if (pod.events.some((event) => event.type === 'Warning' && isRecent(event))) return false;
  for (const container of pod.containers) {
    const finished = container.lastState?.finishedAt;
    if (finished && (secondsAgo(finished, gathered) ?? 0) < RECOVERED_AFTER_SECONDS) return false;
    // Recovered means the pace stopped: restarts at a steady pace (a slow leak) go on however quiet it is right now.
    const history = restartHistoryOf(container, gathered);
    if (history?.ongoing) return false;
    // Killed for memory again and again with no pace to read (or one too slow to call a pace): the limit is still too low.
    if (!history && container.lastState?.reason === 'OOMKilled' && container.restartCount >= RECURRING_OOM_RESTARTS)
      return false;
  }
  return true;
}

const RECURRING_OOM_RESTARTS = 3;

export function recoveredFinding(gathered: Case): Finding {
  const pod = gathered.pod!;
  const restarted = pod.containers.filter((container) => container.restartCount > 0);
  const last = restarted.map((container) => container.lastState).find((state) => state?.finishedAt);
  const ago = last?.finishedAt ? secondsAgo(last.finishedAt, gathered) : undefined;
  return {
    category: 'no-issue',
    cause: `pod ${pod.name} has recovered: it is Running and ready`,
    evidence: [
      `pod ${pod.name} is ${pod.status}, ready ${pod.ready}, restarts ${pod.restarts}`,
      ...(last
        ? [
            `its last restart ended ${ago !== undefined ? `${Math.round(ago / 60)} minutes ago` : 'a while ago'} (${last.reason ?? 'terminated'}, exit code ${last.exitCode ?? '?'}); no warning events since`,
          ]
        : []),
      ...restarted.flatMap((container) => {
        const history = restartHistoryOf(container, gathered);
        return history ? [`container ${container.name}: ${describeRestartHistory(history)}`] : [];
      }),
      ...pastFailure(gathered),
      // Which revision runs now and what it replaced: a fix rolled out is often why it recovered.
      ...revisionEvidence(gathered),
    ],
    confidence: 'medium',
  };
}

/** What the runs before the recovery logged: the dependency it lost, by name, when its errors name one. */
function pastFailure(gathered: Case): string[] {
  const errors = gathered.logs?.errorLines ?? [];
  const current = new Set(gathered.currentLogLines ?? []);
  const earlier = errors.filter((line) => !current.has(line));
  const namesHost = (line: string): boolean =>
    readFailingValues(line).some((value) => value.kind === 'host' || value.kind === 'url');
  const named = earlier.find(namesHost);
  const line = named ?? earlier[earlier.length - 1];
  if (!line) return [];
  const hostsOf = (text: string): string[] =>
    readFailingValues(text)
      .filter((value) => value.kind === 'host')
      .map((value) => value.value);
  const hosts = hostsOf(line);
  if (hosts.length === 0) {
    // The failing line names no dependency ("session store unavailable"): the line before it that names the host it was reaching does.
    const reaching = (gathered.logs?.lines ?? [])
      .filter((logLine) => !current.has(logLine) && namesHost(logLine))
      .at(-1);
    const reached = reaching ? hostsOf(reaching) : [];
    if (reaching && reached.length)
      return [
        `before it recovered, its earlier run failed while reaching ${reached.join(', ')} ("${reaching.trim().slice(0, 200)}"): ${line.trim().slice(0, 300)}`,
      ];
  }
  return [
    `before it recovered, its earlier run logged${hosts.length ? ` a failure of ${hosts.join(', ')}` : ''}: ${line.trim().slice(0, 300)}`,
  ];
}
