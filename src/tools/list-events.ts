/**
 * `list_events`: the events of a namespace, or of one object and (by default) the objects
 * named after it (its ReplicaSets and pods), newest first, repeats folded with counts,
 * warnings before normal events.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { BudgetedText } from './format/budget.ts';
import { foldEvents, formatEvent, formatRoutineEvents, isRoutineEvent, type EventData } from './format/events.ts';
import { describeIncomplete, failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface EventsData {
  namespace: string;
  filter: { kind?: string; name?: string; includeRelated: boolean; type?: string };
  /** Occurrences by type, summed over the folded events. */
  counts: Record<string, number>;
  /** Folded, newest first (at most 200). */
  events: EventData[];
  incomplete: boolean;
}

const input = z.object({
  namespace: namespaceName().describe('Namespace to read events from'),
  name: objectName()
    .optional()
    .describe('Only events about this object, e.g. a pod, a Deployment, a Service or a PVC name'),
  kind: z
    .string()
    .min(1)
    .optional()
    .describe('Only events about objects of this kind, e.g. "Pod", "Deployment", "PersistentVolumeClaim"'),
  includeRelated: z
    .boolean()
    .default(true)
    .describe(
      'With name: also objects whose name starts with "<name>-" (a Deployment\'s ReplicaSets and pods, a StatefulSet\'s pods)',
    ),
  type: z.enum(['Warning', 'Normal']).optional().describe('Only Warning or only Normal events'),
});

export const listEventsTool: ReadTool<typeof input, EventsData, 'list_events'> = {
  name: 'list_events',
  description:
    'Lists Kubernetes events newest first, with repeats folded into one line with a count (x42 over 20m): scheduling failures, ' +
    'image pull errors, probe failures (Unhealthy), back-offs, OOM kills, volume mount and quota errors. ' +
    'Give name to focus on one object and the objects named after it (a Deployment and its pods); omit it for the whole namespace.',
  input,
  risk: 'read',
  async run(args, context) {
    const exactOnly = args.name !== undefined && !args.includeRelated;
    const listed = await context.cluster.list('Event', {
      namespace: args.namespace,
      ...(exactOnly ? { fieldSelector: `involvedObject.name=${args.name}` } : {}),
      maxItems: 5000,
      signal: context.signal,
    });
    if (!listed.ok) return failureFrom(listed.error);
    const matches = listed.value.items.filter((event) => {
      const object = event.involvedObject;
      if (args.kind && object.kind?.toLowerCase() !== args.kind.toLowerCase()) return false;
      if (args.type && event.type !== args.type) return false;
      if (args.name === undefined) return true;
      return object.name === args.name || (args.includeRelated && (object.name ?? '').startsWith(`${args.name}-`));
    });
    const now = context.cluster.now();
    const folded = foldEvents(matches, now);
    const counts: Record<string, number> = {};
    for (const event of folded) counts[event.type] = (counts[event.type] ?? 0) + event.count;
    const data: EventsData = {
      namespace: args.namespace,
      filter: {
        ...(args.kind ? { kind: args.kind } : {}),
        ...(args.name ? { name: args.name } : {}),
        includeRelated: args.includeRelated,
        ...(args.type ? { type: args.type } : {}),
      },
      counts,
      events: folded.slice(0, 200),
      incomplete: listed.value.incomplete,
    };

    const text = new BudgetedText(context.outputBudgetBytes);
    const about = args.name
      ? ` about ${args.kind ? `${args.kind} ` : ''}${args.name}${args.includeRelated ? ' and objects named after it' : ''}`
      : args.kind
        ? ` about ${args.kind} objects`
        : '';
    const countText =
      Object.entries(counts)
        .map(([type, count]) => `${count} ${type}`)
        .join(', ') || 'none';
    text.add(`Events in ${args.namespace}${about}: ${folded.length} distinct (${countText} occurrences).`);
    const note = describeIncomplete({ ...listed.value, read: listed.value.items.length });
    if (note) text.add(note);
    if (folded.length === 0)
      text.add('No events match. Events expire after about an hour; an old incident may have none left.');
    const withObject = !(args.name && !args.includeRelated);
    let written = 0;
    const routine = folded.filter(isRoutineEvent);
    for (const type of ['Warning', 'Normal']) {
      const ofType = folded.filter(
        (event) => !isRoutineEvent(event) && (type === 'Warning' ? event.type === 'Warning' : event.type !== 'Warning'),
      );
      if (ofType.length === 0) continue;
      if (!text.add(`${type}, newest first:`)) break;
      for (const event of ofType) {
        if (!text.add(`  ${formatEvent(event, now, { withObject, withType: false })}`)) break;
        written += 1;
      }
    }
    const routineLine = formatRoutineEvents(routine, now);
    if (
      routineLine &&
      text.add(
        `${routineLine}${withObject && new Set(routine.map((event) => event.object.name)).size > 1 ? ` across ${new Set(routine.map((event) => event.object.name)).size} objects` : ''}`,
      )
    )
      written += routine.length;
    const content = text.finish(
      `${folded.length - written} event line(s) were left out; narrow with name, kind or type="Warning".`,
    );
    return success(content, data, text.truncated);
  },
};
