/**
 * The kubelet's probe failures among a pod's events: which event says why a probe failed.
 */
import type { EventData } from '../../tools/format/events.ts';
import { isRecent } from './evidence.ts';

export const PROBE_FAILURE =
  /(Liveness|Readiness|Startup) probe (failed|errored)|failed (liveness|readiness|startup) probe/i;

/** The kubelet's Unhealthy event says why the probe failed; its Killing event only that it did. */
export function findProbeFailure(events: readonly EventData[]): EventData | undefined {
  const failures = events.filter((event) => PROBE_FAILURE.test(event.message) && isRecent(event));
  return failures.find((event) => event.reason === 'Unhealthy') ?? failures[0];
}
