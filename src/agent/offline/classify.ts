/**
 * From the gathered case to a category, with the evidence lines that prove it, quoted
 * from what the tools returned. The knowledge is the rule table (rules/table.ts): rules
 * are tried by their declared priority and the first that explains the case decides.
 */
import type { Case, Finding } from './case.ts';
import { RULES } from './rules/table.ts';
import { unexplainedFinding } from './rules/unexplained.ts';
import { viewCase } from './rules/view.ts';

// Kept for modules written against the old layout (enrich/).

const BY_PRIORITY = [...RULES].sort((left, right) => right.priority - left.priority);

export function classifyCase(gathered: Case): Finding | undefined {
  // What the alert or the person named does not exist: nothing else is judged in its place.
  if (gathered.notFound && !gathered.pod && !gathered.node && !gathered.service) return undefined;
  const view = viewCase(gathered);
  for (const rule of BY_PRIORITY) {
    if (!rule.applies(view)) continue;
    const finding = rule.explain(view);
    if (finding) return { ...finding, rule: rule.id };
  }
  // No rule explains it: a pod in trouble is reported as seen, with low confidence, rather than as healthy.
  const seen = unexplainedFinding(view);
  return seen ? { ...seen, rule: 'unexplained' } : undefined;
}
