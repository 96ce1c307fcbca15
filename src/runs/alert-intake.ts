/**
 * What each alert of an Alertmanager notification does. An alert firing is identified
 * by its fingerprint and startsAt (Alertmanager resends both unchanged on every repeat);
 * an incident by its culprit key (correlate.ts: the workload, or the node, volume claim,
 * Service or quota, the alert is about). One incident, one run:
 * - firing, a repeat of an alert already attached to a run that is queued, running,
 *   awaiting approval, or completed within the dedup window: nothing starts; the
 *   answer names that run and its repeats count up;
 * - firing, a new alert of an incident whose run is open (as above): attached to it;
 * - firing, and the incident's (or the alert's) last run failed: a new run only once
 *   the failure backoff has passed (1 min × 2^(failures−1), at most 1 h, by default);
 *   until then it counts as a repeat of the failed run;
 * - firing otherwise: a new run, with the alert attached;
 * - resolved: recorded on its run; once every alert of a run still queued is resolved,
 *   the run is cancelled.
 * A notification is taken whole or not at all: when it needs a new run and the queue has
 * no room, every alert of it is refused (Alertmanager then retries the whole group).
 * Quota alerts are taken after the others of their notification, so that they find the
 * workload-level run their namespace's alerts start (correlate.ts); answers keep the
 * order sent.
 */
import type { AlertTrigger } from '../agent/trigger.ts';
import type { AlertKey, AlertRunMatch, RunRecord, RunStore } from '../store/ports.ts';
import { culpritOf, takeOrderOf, type Culprit } from './correlate.ts';

export interface IncomingAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt?: string;
  fingerprint?: string;
  generatorURL?: string;
}

export type AlertOutcome =
  | 'created'
  /** Firing, a new alert of an incident whose run is open: attached to that run. */
  | 'attached'
  /** Firing, a repeat of an alert already attached to a run, or held back after its run failed. */
  | 'duplicate'
  | 'resolved'
  | 'cancelled'
  /** A resolved alert no run was started for. */
  | 'unmatched'
  /** The notification needed a new run and the queue had no room: Alertmanager retries all of it. */
  | 'queue-full';

export interface AlertResult {
  fingerprint: string;
  status: 'firing' | 'resolved';
  outcome: AlertOutcome;
  runId?: string;
}

/**
 * What happened to each alert, for the metrics: the outcomes above, with `backoff` told
 * apart from a plain duplicate (a failed run's incident waiting for its backoff to pass).
 */
export type AlertDecision = Exclude<AlertOutcome, 'queue-full'> | 'backoff' | 'refused';

export interface IntakeSettings {
  dedupWindowMs: number;
  /** The wait after a run's first failure before its incident starts another; doubled per failure after it. */
  failureBackoffMs: number;
  failureBackoffMaxMs: number;
}

export interface NotificationIntake {
  store: RunStore;
  now: Date;
  settings: IntakeSettings;
  /** Whether the queue takes new runs; decided once, for the whole notification. */
  hasRoom: boolean;
  /** Stores a run and reserves its place in the queue. */
  createRun(input: {
    trigger: AlertTrigger;
    alert: AlertKey;
    culpritKeys?: readonly string[];
    earlierFailures: number;
  }): Promise<RunRecord>;
}

export interface IntakeReport {
  results: AlertResult[];
  created: RunRecord[];
  /** Runs cancelled because every alert of theirs resolved before they started. */
  cancelled: string[];
  /** Runs (started already) whose every alert resolved with this notification. */
  resolved: string[];
  decisions: AlertDecision[];
}

/** Thrown inside the notification's transaction so that nothing of it is kept: the queue has no room for a run it needs. */
export class NotificationRefused extends Error {
  override name = 'NotificationRefused';
}

/**
 * Takes one notification, alert by alert in order, inside the caller's transaction.
 * Throws NotificationRefused when a new run is needed and `hasRoom` is false.
 */
export async function takeNotification(
  alerts: readonly IncomingAlert[],
  intake: NotificationIntake,
): Promise<IntakeReport> {
  const results: AlertResult[] = [];
  const decisions: AlertDecision[] = [];
  const report: IntakeReport = { results, created: [], cancelled: [], resolved: [], decisions };
  const notification = { ...intake, fresh: new Map<string, TriggerRank>() };
  for (const { alert, culprit, index } of inTakeOrder(alerts)) {
    const key = alertKeyOf(alert);
    const taken =
      alert.status === 'resolved'
        ? await takeResolved(alert, key, notification)
        : await takeFiring(alert, key, culprit, notification);
    results[index] = {
      fingerprint: key.fingerprint,
      status: alert.status,
      outcome: taken.outcome,
      ...(taken.runId ? { runId: taken.runId } : {}),
    };
    decisions[index] = taken.decision;
    if (taken.created) report.created.push(taken.created);
    if (taken.cancelled) report.cancelled.push(taken.cancelled);
    if (taken.allResolved) report.resolved.push(taken.allResolved);
  }
  return report;
}

/** The alerts with their culprits, in the order they are taken (correlate.ts `takeOrderOf`; as sent, otherwise); results keep the order sent. */
function inTakeOrder(
  alerts: readonly IncomingAlert[],
): { alert: IncomingAlert; culprit: Culprit | undefined; index: number }[] {
  const entries = alerts.map((alert, index) => ({
    alert,
    culprit: alert.status === 'firing' ? culpritOf(alert.labels) : undefined,
    index,
  }));
  const order = entries.map((entry) => takeOrderOf(entry.culprit));
  // Sorted only when some alert waits for the others (a stable sort: the order sent otherwise).
  return order.some((value) => value > 0)
    ? entries.sort((left, right) => order[left.index]! - order[right.index]!)
    : entries;
}

/** Every alert of a refused notification, answered as refused. */
export function refusedResults(alerts: readonly IncomingAlert[]): AlertResult[] {
  return alerts.map((alert) => ({
    fingerprint: alertKeyOf(alert).fingerprint,
    status: alert.status,
    outcome: 'queue-full',
  }));
}

interface Taken {
  outcome: AlertOutcome;
  decision: AlertDecision;
  runId?: string;
  created?: RunRecord;
  cancelled?: string;
  /** The run whose last firing alert this was. */
  allResolved?: string;
}

/** How well an alert speaks for its incident (correlate.ts): the broader the better; as broad, the latest CronJob's Job. */
interface TriggerRank {
  breadth: number;
  scheduledMinute: number;
}

function rankOf(culprit: Culprit | undefined): TriggerRank {
  return { breadth: culprit?.breadth ?? 0, scheduledMinute: culprit?.scheduledMinute ?? 0 };
}

function outranks(candidate: TriggerRank, current: TriggerRank): boolean {
  return (
    candidate.breadth > current.breadth ||
    (candidate.breadth === current.breadth && candidate.scheduledMinute > current.scheduledMinute)
  );
}

/**
 * `fresh`: the rank of the trigger of each run this notification created. An alert of
 * the same incident later in the notification that outranks it becomes that run's
 * trigger: a Deployment's alert shows the agent more than one pod's.
 */
async function takeFiring(
  alert: IncomingAlert,
  key: AlertKey,
  culprit: Culprit | undefined,
  intake: NotificationIntake & { fresh: Map<string, TriggerRank> },
): Promise<Taken> {
  const { store } = intake;
  const existing = await store.findByAlert(key);
  if (existing && !existing.cancelled) {
    const held = isRepeatOf(existing, intake) ? 'duplicate' : isHeldBack(existing, intake) ? 'backoff' : undefined;
    if (held) {
      await store.recordAlertRepeat(existing.id, key);
      await store.recordRepeat(existing.id);
      return { outcome: 'duplicate', decision: held, runId: existing.id };
    }
  }
  const incident = culprit ? await store.findByCulprit(culprit.findKeys) : undefined;
  if (incident && !incident.cancelled) {
    const held = isRepeatOf(incident, intake) ? 'attached' : isHeldBack(incident, intake) ? 'backoff' : undefined;
    if (held) {
      await store.attachAlert({ runId: incident.id, alert: key, labels: alert.labels, now: intake.now });
      const current = intake.fresh.get(incident.id);
      if (
        current &&
        outranks(rankOf(culprit), current) &&
        (await store.retargetQueued(incident.id, { trigger: alertTrigger(alert, key), alert: key }))
      ) {
        intake.fresh.set(incident.id, rankOf(culprit));
        // Now a run of a workload short of pods: a quota alert of its namespace may join it.
        if (culprit?.namespaceKey) await store.addCulpritKeys(incident.id, [culprit.namespaceKey]);
      }
      return { outcome: held === 'attached' ? 'attached' : 'duplicate', decision: held, runId: incident.id };
    }
  }
  if (!intake.hasRoom) throw new NotificationRefused('the run queue is full');
  const failed = [incident, existing].find((run) => run !== undefined && isFailure(run));
  const run = await intake.createRun({
    trigger: alertTrigger(alert, key),
    alert: key,
    ...(culprit ? { culpritKeys: culprit.namespaceKey ? [...culprit.keys, culprit.namespaceKey] : culprit.keys } : {}),
    earlierFailures: failed ? failed.earlierFailures + 1 : 0,
  });
  await store.attachAlert({ runId: run.id, alert: key, labels: alert.labels, now: intake.now });
  intake.fresh.set(run.id, rankOf(culprit));
  return { outcome: 'created', decision: 'created', runId: run.id, created: run };
}

async function takeResolved(alert: IncomingAlert, key: AlertKey, intake: NotificationIntake): Promise<Taken> {
  const { store } = intake;
  const existing = await store.findByAlert(key);
  if (!existing) return { outcome: 'unmatched', decision: 'unmatched' };
  const endsAt = resolvedTime(alert, intake.now);
  const stillFiring = await store.recordAlertResolved(existing.id, key, endsAt);
  if (stillFiring > 0) return { outcome: 'resolved', decision: 'resolved', runId: existing.id };
  // Every alert of the run has resolved: so has its incident.
  await store.recordResolved(existing.id, endsAt);
  const cancelled =
    existing.status === 'queued' && (await store.cancelQueued(existing.id, CANCELLED_REASON, intake.now));
  if (cancelled) return { outcome: 'cancelled', decision: 'cancelled', runId: existing.id, cancelled: existing.id };
  return { outcome: 'resolved', decision: 'resolved', runId: existing.id, allResolved: existing.id };
}

/** Why a queued run ends unstarted; the store tells a cancelled run from a failed one by this prefix. */
export const CANCELLED_REASON = 'cancelled: the alert was resolved before the run started';

/** The alert's identity across repeats; the fingerprint is derived from the labels, as Alertmanager does, when a sender leaves it out. */
export function alertKeyOf(alert: IncomingAlert): AlertKey {
  const fingerprint =
    alert.fingerprint && alert.fingerprint.length > 0 ? alert.fingerprint : labelsFingerprint(alert.labels);
  return { fingerprint, startsAt: normaliseTime(alert.startsAt) ?? alert.startsAt };
}

/** True when a firing alert matching `run` must not start another run: the run is open, or completed within the dedup window. */
export function isRepeatOf(
  run: AlertRunMatch,
  input: { now: Date; settings: Pick<IntakeSettings, 'dedupWindowMs'> },
): boolean {
  if (run.status === 'failed') return false;
  if (run.status !== 'completed') return true;
  const ended = Date.parse(run.finishedAt ?? run.createdAt);
  return input.now.getTime() - ended <= input.settings.dedupWindowMs;
}

/** True when `run` failed (not cancelled) less than its backoff ago: its incident waits before another run. */
export function isHeldBack(run: AlertRunMatch, input: { now: Date; settings: IntakeSettings }): boolean {
  if (!isFailure(run)) return false;
  const ended = Date.parse(run.finishedAt ?? run.createdAt);
  return input.now.getTime() - ended < failureBackoffMs(run.earlierFailures + 1, input.settings);
}

/** The wait after the `failures`-th failure in a row: the base doubled per failure after the first, capped. */
export function failureBackoffMs(
  failures: number,
  settings: Pick<IntakeSettings, 'failureBackoffMs' | 'failureBackoffMaxMs'>,
): number {
  const doublings = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(settings.failureBackoffMs * 2 ** doublings, settings.failureBackoffMaxMs);
}

function isFailure(run: AlertRunMatch): boolean {
  return run.status === 'failed' && !run.cancelled;
}

export function alertTrigger(alert: IncomingAlert, key: AlertKey): AlertTrigger {
  return {
    kind: 'alert',
    alert: {
      labels: alert.labels,
      annotations: alert.annotations,
      startsAt: key.startsAt,
      fingerprint: key.fingerprint,
      ...(alert.generatorURL ? { generatorURL: alert.generatorURL } : {}),
    },
  };
}

/** When a resolved alert ended: its endsAt when it carries one, else now. */
export function resolvedTime(alert: IncomingAlert, now: Date): string {
  const ends = alert.endsAt ? normaliseTime(alert.endsAt) : undefined;
  // Alertmanager's zero time (0001-01-01) means "not set".
  return ends && Date.parse(ends) > 0 ? ends : now.toISOString();
}

/** ISO 8601 with milliseconds in UTC; undefined when the text is no time. */
export function normaliseTime(text: string): string | undefined {
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

const SEPARATOR_BYTE = 0xff;

/**
 * A label set's fingerprint exactly as Alertmanager reports it (prometheus/common
 * `model.LabelSet.Fingerprint()`): FNV-1a 64-bit over each label name and value, in
 * byte order of the names, each followed by the byte 0xff, as 16 hex digits. A label
 * with an empty value is no label (Alertmanager drops it before hashing).
 */
export function labelsFingerprint(labels: Readonly<Record<string, string>>): string {
  const names = Object.keys(labels).filter((name) => labels[name] !== '');
  // Go sorts the names by their UTF-8 bytes; for ASCII names that is JavaScript's order too.
  names.sort((left, right) =>
    isAscii(left) && isAscii(right) ? compareText(left, right) : Buffer.compare(Buffer.from(left), Buffer.from(right)),
  );
  let length = 0;
  for (const name of names) length += Buffer.byteLength(name) + Buffer.byteLength(labels[name]!) + 2;
  const bytes = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const name of names) {
    offset += bytes.write(name, offset, 'utf8');
    bytes[offset++] = SEPARATOR_BYTE;
    offset += bytes.write(labels[name]!, offset, 'utf8');
    bytes[offset++] = SEPARATOR_BYTE;
  }
  return fnv1a64(bytes);
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * FNV-1a 64-bit, with the hash held as two 32-bit halves: each step xors a byte in, then
 * multiplies by the FNV prime 2^40 + 0x1b3 modulo 2^64 (× 0x1b3 on both halves, plus the
 * low half shifted 40 bits, which lands 8 bits into the high half).
 */
function fnv1a64(bytes: Uint8Array): string {
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (const byte of bytes) {
    low = (low ^ byte) >>> 0;
    const lowProduct = low * 0x1b3;
    const carry = Math.floor(lowProduct / 0x1_0000_0000);
    high = (Math.imul(high, 0x1b3) + (low << 8) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}
