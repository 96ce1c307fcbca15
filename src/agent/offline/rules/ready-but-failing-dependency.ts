/**
 * Rule `ready-but-failing-dependency`: a pod running and ready whose current log says, last,
 * that a dependency refuses it or cannot be reached. Its finding is the failing process's
 * (failing-process.ts).
 */
import { matchLogSignal } from '../signals/index.ts';

export function saysLastThatDependencyFails(lines: readonly string[]): boolean {
  return lines.slice(-RECENT_LINES).some((line) => {
    const verdict = matchLogSignal(line)?.verdict;
    return verdict === 'dependency-unreachable' || verdict === 'bad-credentials';
  });
}

const RECENT_LINES = 15;
