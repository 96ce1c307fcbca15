/**
 * A LimitRange refusal names the bound it broke but not the object that sets it
 * ("maximum memory usage per Container is 2Gi, but limit is 4Gi"): the namespace's
 * LimitRanges are read (list_resource_quotas) and the one whose bound for that resource and
 * type is the stated value is named, with how far the pod is past it. A person then knows
 * which object to change, or that the pod's own numbers are what changed.
 */
import { formatQuantity, parseQuantity } from '../../../tools/format/quantity.ts';
import type { ResourceQuotasData } from '../../../tools/list-resource-quotas.ts';
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';

/** One bound a LimitRange admission message says the pod broke. */
export interface LimitBreach {
  bound: 'max' | 'min' | 'maxLimitRequestRatio';
  resource: string;
  type: string;
  allowed: string;
  /** What the pod has: `limit is 4Gi`, `request is 50m`, `provided ratio is 4.000000`. */
  actual: string;
  of: 'limit' | 'request' | 'ratio';
}

const BOUND =
  /\b(maximum|minimum) ([\w./-]+) usage per (Container|Pod|PersistentVolumeClaim) is ([\w.]+), but (limit|request) is ([\w.]+)/gi;
const RATIO =
  /\b([\w./-]+) max limit to request ratio per (Container|Pod) is ([\d.]+), but provided ratio is ([\d.]+)/gi;

/** Every bound the message says was broken, as the LimitRanger admission plugin words them. */
export function readLimitBreaches(message: string): LimitBreach[] {
  const breaches: LimitBreach[] = [];
  for (const [, word, resource, type, allowed, of, actual] of message.matchAll(BOUND)) {
    breaches.push({
      bound: word!.toLowerCase() === 'maximum' ? 'max' : 'min',
      resource: resource!,
      type: type!,
      allowed: allowed!,
      actual: actual!,
      of: of!.toLowerCase() as 'limit' | 'request',
    });
  }
  for (const [, resource, type, allowed, actual] of message.matchAll(RATIO)) {
    breaches.push({
      bound: 'maxLimitRequestRatio',
      resource: resource!,
      type: type!,
      allowed: allowed!,
      actual: String(Number(actual)),
      of: 'ratio',
    });
  }
  return breaches;
}

/** The LimitRanges whose bound is the one broken (same type, resource and value), named with both numbers. */
export function describeBreach(
  breach: LimitBreach,
  ranges: ResourceQuotasData['limitRanges'],
  namespace: string,
): string | undefined {
  const setting = ranges.flatMap((range) =>
    range.limits
      .filter((limit) => limit.type.toLowerCase() === breach.type.toLowerCase())
      .map((limit) => ({ range: range.name, value: limit[breach.bound]?.[breach.resource] }))
      .filter(
        (found): found is { range: string; value: string } =>
          found.value !== undefined && sameQuantity(found.value, breach.allowed),
      ),
  );
  const first = setting[0];
  if (!first) return undefined;
  const bound =
    breach.bound === 'maxLimitRequestRatio'
      ? `largest ${breach.resource} limit/request ratio`
      : `${breach.bound === 'max' ? 'maximum' : 'minimum'} ${breach.resource}`;
  const gap = breach.of === 'ratio' ? '' : gapText(breach);
  return `LimitRange ${namespace}/${first.range} sets the ${bound} per ${breach.type} to ${breach.allowed}; the pod's ${breach.of} is ${breach.actual}${gap}`;
}

export function limitRangeEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  if (finding.category !== 'quota-exceeded') return [];
  const namespace = gathered.workload?.namespace;
  const breaches = finding.evidence.flatMap(readLimitBreaches);
  if (!namespace || breaches.length === 0) return [];
  const quotas = query.data('list_resource_quotas', { namespace });
  query.barrier();
  if (!quotas) return [];
  return breaches
    .map((breach) => describeBreach(breach, quotas.limitRanges, namespace))
    .filter((line): line is string => line !== undefined);
}

function sameQuantity(left: string, right: string): boolean {
  const [a, b] = [parseQuantity(left), parseQuantity(right)];
  return Number.isFinite(a) && Number.isFinite(b) ? Math.abs(a - b) <= Math.abs(b) * 1e-9 : left === right;
}

function gapText(breach: LimitBreach): string {
  const [allowed, actual] = [parseQuantity(breach.allowed), parseQuantity(breach.actual)];
  if (!Number.isFinite(allowed) || !Number.isFinite(actual) || allowed === actual) return '';
  return breach.bound === 'max'
    ? ` (${formatQuantity(breach.resource, actual - allowed)} over)`
    : ` (${formatQuantity(breach.resource, allowed - actual)} under)`;
}
