/**
 * Which destinations a notice goes to. Routes are read from the notifications file: each
 * names what it matches (events, namespaces, severities, categories; a field left out
 * matches anything) and where matching notices go. Every route that matches adds its
 * destinations; a destination gets a notice once, however many routes name it.
 *
 * What a run offers to match: its namespace, the `severity` label of its alerts (the
 * highest when they differ; an incident typed by a person has none), and the category of
 * its diagnosis (`failed` for a run that ended without one). A value the run lacks never
 * matches a non-empty list. Namespaces may end in `*` to match a prefix.
 */
import { z } from 'zod';
import { CATEGORIES } from '../agent/diagnosis.ts';
import type { RunView } from '../runs/run-view.ts';
import { NOTICE_EVENTS, type NoticeEvent } from './notice.ts';

/** A run that ended without a diagnosis is routed as this category. */
export const FAILED_CATEGORY = 'failed';

/** Severity labels from the most to the least urgent, as kube-prometheus-stack and most rule sets use them. */
const SEVERITY_ORDER = ['critical', 'error', 'high', 'warning', 'medium', 'low', 'info', 'none'];

export const routeSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  match: z
    .strictObject({
      events: z.array(z.enum(NOTICE_EVENTS)).min(1).optional(),
      namespaces: z
        .array(
          z
            .string()
            .regex(
              /^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?|[a-z0-9][-a-z0-9]*\*|\*)$/,
              'a namespace name, or a prefix ending in *',
            ),
        )
        .min(1)
        .optional(),
      severities: z.array(z.string().min(1)).min(1).optional(),
      categories: z
        .array(z.enum([...CATEGORIES, FAILED_CATEGORY]))
        .min(1)
        .optional(),
    })
    .default({}),
  to: z.array(z.string().min(1)).min(1),
});

export type Route = z.infer<typeof routeSchema>;

/** What a notice offers the routes to match. */
export interface RouteSubject {
  event: NoticeEvent;
  namespace?: string;
  severity?: string;
  category?: string;
}

export function subjectOf(event: NoticeEvent, run: RunView): RouteSubject {
  const severity = severityOf(run);
  const category = run.diagnosis?.category ?? (run.status === 'failed' ? FAILED_CATEGORY : undefined);
  return {
    event,
    ...(run.namespace ? { namespace: run.namespace } : {}),
    ...(severity ? { severity } : {}),
    ...(category ? { category } : {}),
  };
}

/** The destinations of every route that matches, each once, in the order the routes name them. */
export function routeNotice(routes: readonly Route[], subject: RouteSubject): string[] {
  const destinations = new Set<string>();
  for (const route of routes) {
    if (!matches(route, subject)) continue;
    for (const destination of route.to) destinations.add(destination);
  }
  return [...destinations];
}

function matches(route: Route, subject: RouteSubject): boolean {
  const { events, namespaces, severities, categories } = route.match;
  if (events && !events.includes(subject.event)) return false;
  if (
    namespaces &&
    !(subject.namespace !== undefined && namespaces.some((pattern) => namespaceMatches(pattern, subject.namespace!)))
  )
    return false;
  if (severities && !(subject.severity !== undefined && severities.includes(subject.severity))) return false;
  if (categories && !(subject.category !== undefined && (categories as readonly string[]).includes(subject.category)))
    return false;
  return true;
}

function namespaceMatches(pattern: string, namespace: string): boolean {
  return pattern.endsWith('*') ? namespace.startsWith(pattern.slice(0, -1)) : namespace === pattern;
}

/** The most urgent `severity` among the run's alerts (the trigger's, then the attached ones). */
function severityOf(run: RunView): string | undefined {
  const found = [
    run.trigger.kind === 'alert' ? run.trigger.alert.labels.severity : undefined,
    ...(run.alerts ?? []).map((alert) => alert.labels.severity),
  ].filter((severity): severity is string => typeof severity === 'string' && severity.length > 0);
  if (found.length === 0) return undefined;
  const rank = (severity: string): number => {
    const index = SEVERITY_ORDER.indexOf(severity.toLowerCase());
    return index === -1 ? SEVERITY_ORDER.length : index;
  };
  return found.reduce((most, severity) => (rank(severity) < rank(most) ? severity : most));
}
