/**
 * Rule `init-container-stuck`: an init container still running, waiting for something that
 * does not come, keeps the pod in Init.
 */
import type { CaseView, Finding } from '../case.ts';
import { logEvidence, secondsAgo } from '../evidence.ts';

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
