/**
 * What became of the actions a run held for a person, in sentences for the diagnosis
 * summary: "Rolled back Deployment staging/checkout-api to revision 3 (approved by alice)."
 * They come from the actions' recorded statuses and the write tools' data, never from
 * the model: what was done is a fact kubewhy knows, not something the model claims.
 */
import type { Action } from './diagnosis.ts';

/** The parts of a write tool's data the sentences use (see WriteActionData and the tools' own data). */
interface WriteFacts {
  kind?: string;
  namespace?: string;
  name?: string;
  toRevision?: number;
  previousReplicas?: number;
  replicas?: number;
  willBeReplaced?: boolean;
}

/** Room the sentences may take in a summary (the schema allows 4000 characters in all). */
const SUMMARY_LIMIT = 4000;
const OUTCOMES_LIMIT = 1500;

function factsOf(data: unknown): WriteFacts {
  return typeof data === 'object' && data !== null ? (data as WriteFacts) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `Deployment staging/checkout-api`, from the tool's data or else its arguments. */
function targetOf(action: Action, facts: WriteFacts): string {
  const kind = facts.kind ?? text(action.args.kind) ?? (action.tool === 'delete_pod' ? 'Pod' : 'Deployment');
  const namespace = facts.namespace ?? text(action.args.namespace);
  const name = facts.name ?? text(action.args.name) ?? '?';
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

/** What the action would do, as a phrase: "rolling back Deployment staging/checkout-api to revision 3". */
function intended(action: Action, facts: WriteFacts): string {
  const target = targetOf(action, facts);
  switch (action.tool) {
    case 'rollout_undo':
      return `rolling back ${target}${facts.toRevision !== undefined ? ` to revision ${facts.toRevision}` : ' to its previous revision'}`;
    case 'scale': {
      const replicas = facts.replicas ?? (typeof action.args.replicas === 'number' ? action.args.replicas : undefined);
      return `scaling ${target}${replicas !== undefined ? ` to ${replicas} replica(s)` : ''}`;
    }
    case 'rollout_restart':
      return `restarting ${target}`;
    case 'delete_pod':
      return `deleting ${target}`;
    default:
      return `${action.tool} ${JSON.stringify(action.args)}`;
  }
}

/** What was done, as a clause: "Rolled back Deployment staging/checkout-api to revision 3". */
function done(action: Action, facts: WriteFacts): string {
  const target = targetOf(action, facts);
  switch (action.tool) {
    case 'rollout_undo':
      return `Rolled back ${target}${facts.toRevision !== undefined ? ` to revision ${facts.toRevision}` : ''}`;
    case 'scale':
      return `Scaled ${target}${facts.previousReplicas !== undefined ? ` from ${facts.previousReplicas}` : ''}${facts.replicas !== undefined ? ` to ${facts.replicas} replica(s)` : ''}`;
    case 'rollout_restart':
      return `Restarted ${target} (a rolling restart)`;
    case 'delete_pod':
      return `Deleted ${target}${facts.willBeReplaced === true ? '; its controller creates a replacement' : facts.willBeReplaced === false ? '; nothing recreates it' : ''}`;
    default:
      return `Ran ${action.tool} ${JSON.stringify(action.args)}`;
  }
}

function firstLine(value: string | undefined): string {
  const line = (value ?? '').split('\n')[0]?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/**
 * One sentence for an action a person was (or is being) asked about; undefined for a
 * proposal (OBSERVE), which the diagnosis itself describes. `data` is the write tool's
 * data from its dry run or its real call, when this process has it.
 */
export function describeActionOutcome(action: Action, data?: unknown): string | undefined {
  const facts = factsOf(data);
  const by = action.decidedBy ?? 'a person';
  const because = action.decisionReason ? `: ${action.decisionReason}` : '';
  switch (action.status) {
    case 'proposed':
      return undefined;
    case 'awaiting_approval':
      return `Awaiting a person's approval: ${intended(action, facts)} (action ${action.id}).`;
    case 'approved':
      return `Approved by ${by}, not yet run: ${intended(action, facts)}.`;
    case 'executed':
      return `${done(action, facts)} (approved by ${by}).`;
    case 'rejected':
      return `Not done: ${intended(action, facts)} was rejected by ${by}${because}.`;
    case 'expired':
      return `Not done: ${intended(action, facts)} expired without a decision${because}.`;
    case 'failed':
      return `Not done: ${intended(action, facts)} failed${action.result ? `: ${firstLine(action.result)}` : ''}.`;
  }
}

/** The model's summary followed by what became of each held action, within the summary's limit. */
export function summaryWithOutcomes(
  summary: string,
  actions: readonly Action[],
  dataOf: (actionId: string) => unknown,
): string {
  const sentences = actions
    .map((action) => describeActionOutcome(action, dataOf(action.id)))
    .filter((sentence): sentence is string => sentence !== undefined);
  if (sentences.length === 0) return summary;
  let outcomes = sentences.join(' ');
  if (outcomes.length > OUTCOMES_LIMIT) outcomes = `${outcomes.slice(0, OUTCOMES_LIMIT - 3)}...`;
  const room = SUMMARY_LIMIT - outcomes.length - 1;
  const kept = summary.length > room ? `${summary.slice(0, room - 3)}...` : summary;
  return `${kept} ${outcomes}`;
}
