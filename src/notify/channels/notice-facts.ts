/**
 * The words every channel says about a notice, so Slack, Teams and any later renderer
 * name a run, its cluster, its actions and its alerts the same way. Plain text only: each
 * renderer escapes and shapes it for its own markup. Pure.
 */
import { formatCulprit } from '../../agent/diagnosis.ts';
import type { RunView } from '../../runs/run-view.ts';
import type { Notice } from '../notice.ts';

type Action = RunView['actions'][number];

/** Evidence lines shown in a message: the first few, which the model lists strongest first. */
export const SHOWN_EVIDENCE = 5;
/** Diff lines shown per held action; the console shows the rest. */
export const SHOWN_DIFF_LINES = 8;

/** The one line that heads a message: what the notice is about. */
export function describeTitle(notice: Notice): string {
  const { run } = notice;
  if (notice.event === 'approval') {
    const waiting = listWaitingActions(run);
    const [only] = waiting;
    if (waiting.length === 1 && only) return `Approval needed: ${only.tool} on ${describeTarget(only)}`;
    if (waiting.length === 0) return `No approval needed any more: ${describeSubject(run)}`;
    return `Approval needed: ${waiting.length} actions on ${describeSubject(run)}`;
  }
  if (notice.event === 'resolved') return `Resolved: ${describeSubject(run)}`;
  if (!run.diagnosis) return `Run failed: ${describeSubject(run)}`;
  const { category, culprit } = run.diagnosis;
  return culprit ? `${category}: ${formatCulprit(culprit)}` : category;
}

/** What the run is about when there is no diagnosis to name it: its alert names, or the incident's words. */
export function describeSubject(run: RunView): string {
  const names = listAlertNames(run);
  if (names.length > 0) return names.join(', ');
  if (run.trigger.kind === 'incident') return run.trigger.text;
  return run.id;
}

/** The run's alert names, each once, in the order the alerts came. */
export function listAlertNames(run: RunView): string[] {
  const names = (run.alerts ?? [])
    .map((alert) => alert.alertname ?? alert.labels.alertname)
    .filter((name): name is string => Boolean(name));
  if (names.length === 0 && run.trigger.kind === 'alert' && run.trigger.alert.labels.alertname)
    names.push(run.trigger.alert.labels.alertname);
  return [...new Set(names)];
}

/** The kubeconfig context, `mock cluster, scenario X`, `in-cluster` or the API server; undefined when the run read no cluster. */
export function describeCluster(run: RunView): string | undefined {
  const cluster = run.cluster;
  if (!cluster) return undefined;
  if (cluster.source === 'mock')
    return cluster.scenario ? `mock cluster, scenario ${cluster.scenario}` : 'mock cluster';
  if (cluster.context) return cluster.context;
  return cluster.source === 'in-cluster' ? `in-cluster (${cluster.server})` : cluster.server;
}

/** An alert run's `severity` label, when it has one. */
export function readSeverity(run: RunView): string | undefined {
  return run.trigger.kind === 'alert' ? run.trigger.alert.labels.severity : undefined;
}

/** The namespace the run is about: the run's own, else its culprit's. */
export function readNamespace(run: RunView): string | undefined {
  return run.namespace ?? run.diagnosis?.culprit?.namespace;
}

/** `namespace/name` (with `kind` in front when the arguments give one) from an action's arguments, or `the cluster`. */
export function describeTarget(action: Action): string {
  const { kind, namespace, name } = action.args;
  const path = [namespace, name].filter((part): part is string => typeof part === 'string' && part !== '').join('/');
  if (path === '') return 'the cluster';
  return typeof kind === 'string' && kind !== '' ? `${kind} ${path}` : path;
}

/** The actions a person is asked to decide, in the order the run proposed them. */
export function listWaitingActions(run: RunView): Action[] {
  return run.actions.filter((action) => action.status === 'awaiting_approval');
}

/** The actions worth telling about: proposed ones and those waiting for approval. */
export function listShownActions(run: RunView): Action[] {
  // Every action: what was proposed, what waits, and what a person decided and what came of it.
  return run.actions;
}

/** How an action stands, in a few words: `waits for approval until <time>` for a held one, who decided a decided one. */
export function describeActionStatus(action: Action): string {
  if (action.status === 'awaiting_approval')
    return action.expiresAt ? `waits for approval until ${action.expiresAt}` : 'waits for approval';
  if (action.status === 'proposed') return 'proposed, not run';
  const by = action.decidedBy
    ? ` (${action.status === 'rejected' ? 'rejected' : 'approved'} by ${action.decidedBy})`
    : '';
  if (action.status === 'executed') return `executed${by}`;
  if (action.status === 'rejected')
    return action.decidedBy ? `rejected by ${action.decidedBy}, not run` : 'rejected, not run';
  if (action.status === 'expired') return 'expired without a decision, not run';
  if (action.status === 'failed') return `failed${by}${action.result ? `: ${action.result.split('\n')[0]}` : ''}`;
  return action.status.replaceAll('_', ' ');
}

/**
 * The sentence that opens an approval: how many actions wait, for which diagnosis, until
 * when. A notice sent after every held action was decided or expired says so instead.
 */
export function describeHold(run: RunView): string {
  const waiting = listWaitingActions(run);
  if (waiting.length === 0)
    return 'The actions this run held were decided or expired before this message was sent; the console shows what happened.';
  const expiry = readEarliestExpiry(run);
  const about = run.diagnosis
    ? `${run.diagnosis.category}: ${formatCulprit(run.diagnosis.culprit)}`
    : describeSubject(run);
  const one = waiting.length === 1;
  return `kubewhy holds ${one ? 'an action' : `${waiting.length} actions`} for ${about}${expiry ? ` until ${expiry}` : ''}. Approve or reject ${one ? 'it' : 'them'} in the console.`;
}

/** The earliest expiry among the held actions: when the decision is due. */
export function readEarliestExpiry(run: RunView): string | undefined {
  const times = listWaitingActions(run)
    .map((action) => action.expiresAt)
    .filter((time): time is string => time !== undefined)
    .sort((left, right) => Date.parse(left) - Date.parse(right));
  return times[0];
}

/** What the alert or person named that the cluster does not have, one `Kind namespace/name` each. */
export function listNotFound(run: RunView): string[] {
  return (run.diagnosis?.notFound ?? []).map(
    (missing) => `${missing.kind} ${missing.namespace ? `${missing.namespace}/` : ''}${missing.name}`,
  );
}

/** Cuts `text` to at most `limit` characters, ending with `…` when it was cut. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // Cut on a code point boundary: half a surrogate pair is not valid text.
  const characters = Array.from(text.slice(0, limit));
  let cut = '';
  for (const character of characters) {
    if (cut.length + character.length > limit - 1) break;
    cut += character;
  }
  return `${cut}…`;
}
