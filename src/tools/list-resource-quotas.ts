/**
 * `list_resource_quotas`: a namespace's ResourceQuotas (used against hard, exhausted ones
 * flagged) and LimitRanges (defaults, minimums and maximums pods must fit).
 */
import { z } from 'zod';
import { namespaceName } from './names.ts';
import { BudgetedText } from './format/budget.ts';
import { parseQuantity } from './format/quantity.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface QuotaResourceData {
  resource: string;
  used: string;
  hard: string;
  /** used / hard, when both parse. */
  ratio?: number;
  exhausted: boolean;
}

export interface ResourceQuotasData {
  namespace: string;
  quotas: Array<{ name: string; resources: QuotaResourceData[] }>;
  limitRanges: Array<{
    name: string;
    limits: Array<{
      type: string;
      min?: Record<string, string>;
      max?: Record<string, string>;
      default?: Record<string, string>;
      defaultRequest?: Record<string, string>;
      maxLimitRequestRatio?: Record<string, string>;
    }>;
  }>;
}

const input = z.object({ namespace: namespaceName().describe('Namespace') });

function stringify(values: Record<string, unknown> | undefined): Record<string, string> | undefined {
  return values && Object.keys(values).length
    ? Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]))
    : undefined;
}

export const listResourceQuotasTool: ReadTool<typeof input, ResourceQuotasData, 'list_resource_quotas'> = {
  name: 'list_resource_quotas',
  description:
    "Shows a namespace's ResourceQuotas (used against hard for cpu, memory, pods, PVCs..., exhausted ones flagged) and LimitRanges " +
    '(min, max and default requests and limits). Use it when pods are not created (FailedCreate: "exceeded quota") or are rejected by a LimitRange.',
  input,
  risk: 'read',
  async run(args, context) {
    const [quotas, limitRanges] = await Promise.all([
      context.cluster.list('ResourceQuota', { namespace: args.namespace, maxItems: 200, signal: context.signal }),
      context.cluster.list('LimitRange', { namespace: args.namespace, maxItems: 200, signal: context.signal }),
    ]);
    if (!quotas.ok) return failureFrom(quotas.error);
    const data: ResourceQuotasData = {
      namespace: args.namespace,
      quotas: quotas.value.items.map((quota) => ({
        name: quota.metadata?.name ?? '',
        resources: Object.entries(quota.status?.hard ?? quota.spec?.hard ?? {})
          .map(([resource, hard]): QuotaResourceData => {
            const used = String(quota.status?.used?.[resource] ?? '0');
            const ratio = parseQuantity(used) / parseQuantity(String(hard));
            return {
              resource,
              used,
              hard: String(hard),
              ...(Number.isFinite(ratio) ? { ratio: Math.round(ratio * 1000) / 1000 } : {}),
              exhausted: Number.isFinite(ratio) && ratio >= 1,
            };
          })
          .sort((left, right) => (right.ratio ?? 0) - (left.ratio ?? 0)),
      })),
      limitRanges: limitRanges.ok
        ? limitRanges.value.items.map((range) => ({
            name: range.metadata?.name ?? '',
            limits: (range.spec?.limits ?? []).map((limit) => {
              const min = stringify(limit.min);
              const max = stringify(limit.max);
              const defaults = stringify(limit._default);
              const defaultRequest = stringify(limit.defaultRequest);
              const maxLimitRequestRatio = stringify(limit.maxLimitRequestRatio);
              return {
                type: limit.type,
                ...(min ? { min } : {}),
                ...(max ? { max } : {}),
                ...(defaults ? { default: defaults } : {}),
                ...(defaultRequest ? { defaultRequest } : {}),
                ...(maxLimitRequestRatio ? { maxLimitRequestRatio } : {}),
              };
            }),
          }))
        : [],
    };
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(
      `${data.quotas.length} ResourceQuota(s) and ${data.limitRanges.length} LimitRange(s) in ${args.namespace}.`,
    );
    for (const quota of data.quotas) {
      text.add(
        `quota ${quota.name}: ${quota.resources.map((item) => `${item.resource} ${item.used}/${item.hard}${item.exhausted ? ' (EXHAUSTED)' : ''}`).join(', ')}`,
      );
    }
    const format = (values: Record<string, string> | undefined): string =>
      values
        ? Object.entries(values)
            .map(([key, value]) => `${key}=${value}`)
            .join(',')
        : '';
    for (const range of data.limitRanges) {
      for (const limit of range.limits) {
        const parts = [
          limit.min && `min ${format(limit.min)}`,
          limit.max && `max ${format(limit.max)}`,
          limit.defaultRequest && `defaultRequest ${format(limit.defaultRequest)}`,
          limit.default && `default limit ${format(limit.default)}`,
          limit.maxLimitRequestRatio && `maxLimitRequestRatio ${format(limit.maxLimitRequestRatio)}`,
        ].filter(Boolean);
        text.add(`limitrange ${range.name} (${limit.type}): ${parts.join('; ')}`);
      }
    }
    return success(text.finish('the namespace has unusually many quotas.'), data, text.truncated);
  },
};
