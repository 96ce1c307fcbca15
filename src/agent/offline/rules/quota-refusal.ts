/**
 * Rule `quota-refuses-pods`: pods that were never created, because a ResourceQuota or
 * LimitRange refused them (their controller's FailedCreate events say so).
 */
import type { EventData } from '../../../tools/format/events.ts';
import type { Case, Finding } from '../case.ts';
import { eventLine } from '../evidence.ts';
import { isQuotaRefusal } from '../signals/index.ts';

/** A ResourceQuota or LimitRange refusal among the workload's events: pods that were never created. */
export function quotaRefusalOf(gathered: Case): EventData | undefined {
  return (gathered.workloadEvents ?? []).find((event) => isQuotaRefusal(event.message));
}

export function quotaFinding(gathered: Case): Finding {
  return {
    category: 'quota-exceeded',
    cause: 'pod creation is rejected by a ResourceQuota or LimitRange',
    evidence: [eventLine(quotaRefusalOf(gathered)!)],
    confidence: 'high',
  };
}
