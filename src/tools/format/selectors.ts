/** Label selectors: API objects to the query-string form, and matching labels locally. */
import type { V1LabelSelector } from '@kubernetes/client-node';

/** `app=web,tier in (a,b),!canary`: the form `labelSelector` takes. Empty selector: empty string. */
export function formatLabelSelector(selector: V1LabelSelector | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const expression of selector?.matchExpressions ?? []) {
    const values = (expression.values ?? []).join(',');
    if (expression.operator === 'In') parts.push(`${expression.key} in (${values})`);
    else if (expression.operator === 'NotIn') parts.push(`${expression.key} notin (${values})`);
    else if (expression.operator === 'Exists') parts.push(expression.key);
    else if (expression.operator === 'DoesNotExist') parts.push(`!${expression.key}`);
  }
  return parts.join(',');
}

/** `app=web,tier=api` for a Service's plain map selector. */
export function formatLabelMap(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** Whether `labels` satisfy a plain map selector (a Service's); an empty selector matches nothing, as for Services. */
export function matchesLabelMap(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => labels?.[key] === value);
}
