/**
 * Rule `oom-killed`: the kernel killed the container for exceeding its memory limit; the
 * runtime's own memory ceiling (JVM heap, Node's old space, GOMEMLIMIT) set against that
 * limit says why.
 */
import type { CaseView, Finding } from '../case.ts';
import { logEvidence } from '../evidence.ts';
import { restartHistoryOf } from '../containers.ts';
import { describeRestartHistory } from '../history/restart-history.ts';
import { containerPlace } from './view.ts';

export function oomFinding(view: CaseView): Finding {
  const container = view.container!;
  const termination = view.termination!;
  const limit = view.pod?.spec.containers.find((spec) => spec.name === container.name && spec.init === container.init)
    ?.resources.limits?.memory;
  return {
    category: 'oom-killed',
    cause: `${containerPlace(view)} is killed for exceeding its memory limit${limit ? ` of ${limit}` : ''}`,
    evidence: [
      `${containerPlace(view)} last terminated: OOMKilled (exit code ${termination.exitCode ?? 137}), restarts ${container.restartCount}${limit ? `; memory limit ${limit}` : ''}`,
      ...restartHistoryEvidence(view, limit),
      ...siblingRestartEvidence(view),
      ...logEvidence(view.gathered).slice(0, 2),
      ...memorySettingEvidence(view),
    ],
    confidence: 'high',
  };
}

/** A container that runs now but is killed again and again at a steady pace (a slow leak) has not recovered: its count and pace say so. */
function restartHistoryEvidence(view: CaseView, limit: string | undefined): string[] {
  const history = view.container ? restartHistoryOf(view.container, view.gathered) : undefined;
  return history ? [`${containerPlace(view)}: ${describeRestartHistory(history, limit)}`] : [];
}

/** The workload's other pods that restarted too: a leak every replica has, with each one's count. */
function siblingRestartEvidence(view: CaseView): string[] {
  const others = (view.gathered.workloadPods ?? [])
    .filter((pod) => pod.name !== view.pod?.name && pod.restarts > 0)
    .sort((left, right) => right.restarts - left.restarts);
  if (others.length === 0) return [];
  return [
    `other pods of the workload restarted too: ${others
      .slice(0, 5)
      .map((pod) => `${pod.name} ${pod.restarts} restarts`)
      .join(', ')}`,
  ];
}

/** A runtime's own memory ceiling (JVM heap, Node's old space, Go's soft limit), set in env or args: compared with the container's limit it says why. */
export const MEMORY_SETTING =
  /-Xmx\d+[kmgKMG]?|-XX:MaxRAMPercentage=[\d.]+|--max-old-space-size=\d+|^GOMEMLIMIT$|^NODE_OPTIONS$|^JAVA_(TOOL_)?OPTS$|^JAVA_TOOL_OPTIONS$|^_JAVA_OPTIONS$|^JVM_OPTS$|HEAP/i;

function memorySettingEvidence(view: CaseView): string[] {
  const spec = view.pod?.spec.containers.find(
    (candidate) => candidate.name === view.container?.name && candidate.init === view.container?.init,
  );
  if (!spec) return [];
  const fromEnv = spec.env
    .filter(
      (variable) =>
        variable.value !== undefined && (MEMORY_SETTING.test(variable.name) || MEMORY_SETTING.test(variable.value)),
    )
    .map((variable) => `${variable.name}=${variable.value}`);
  const fromArgs = [...(spec.command ?? []), ...(spec.args ?? [])].filter((argument) => MEMORY_SETTING.test(argument));
  const settings = [...fromEnv, ...fromArgs].slice(0, 4);
  return settings.length
    ? [
        `container ${spec.name} sets its runtime's memory: ${settings.join('; ')} (memory limit ${spec.resources.limits?.memory ?? 'none'})`,
      ]
    : [];
}
