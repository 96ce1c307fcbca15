/**
 * The served clock. A scenario is a moment in the past (or future); kubectl describe computes
 * ages from the local clock while kubectl get and kubewhy's tools use the server's, so the
 * mock serves the scenario moved to now: every time in its objects and logs shifted by
 * (real now − scenario `now`), rounded down to whole seconds as metav1.Time is, and a clock
 * (`Date` header, new objects' times) that is the real clock. Ages, event recency and
 * `sinceSeconds` are then the same whoever computes them.
 */
import { shiftLogTimes, shiftObjectTimes } from './background-times.ts';
import type { KubeObject, ScenarioLog } from './types.ts';

export interface ServedClock {
  /** Milliseconds added to every scenario time. */
  shiftMs: number;
  /** The cluster's clock, in epoch milliseconds. */
  now(): number;
}

/** The clock that serves a scenario whose snapshot was taken at `scenarioNow`, from `realNow` on. */
export function servedClock(scenarioNow: number, realNow: number = Date.now()): ServedClock {
  const shiftMs = Math.floor((realNow - scenarioNow) / 1000) * 1000;
  return { shiftMs, now: () => Date.now() };
}

/** The scenario's objects and logs on the served clock (copies; the inputs are not modified). */
export function shiftScenario(input: {
  objects: KubeObject[];
  logs: ScenarioLog[];
  scenarioNow: number;
  shiftMs: number;
}): { objects: KubeObject[]; logs: ScenarioLog[] } {
  return {
    objects: input.objects.map((object) => shiftObjectTimes(object, input.shiftMs)),
    logs: input.logs.map((log) => shiftLogTimes(log, input.shiftMs, input.scenarioNow)),
  };
}
