/**
 * States a person chose: a workload at 0 replicas by a recorded change, a suspended
 * CronJob, a paused rollout. What looks like an outage (a Service with no endpoints, a
 * CronJob that never runs) is then what someone meant, and the answer is `no-issue` with
 * the workload named and its note quoted. A state is deliberate only on record: 0 replicas
 * with nothing that says why is not (a scale-down by mistake looks the same).
 */

export interface WorkloadIntent {
  kind: string;
  namespace: string;
  name: string;
  /** Replicas the workload asks for (a CronJob: undefined). */
  desired?: number;
  /** CronJob `spec.suspend`. */
  suspended?: boolean;
  /** Deployment `spec.paused`. */
  paused?: boolean;
  /** StatefulSet rollingUpdate partition above 0, and how many pods run the newest revision. */
  partition?: number;
  updated?: number;
  /** The annotations a person wrote on it, `kubernetes.io/change-cause` included (the tools' notes: what tools and controllers write is left out there). */
  notes: Record<string, string>;
}

export interface Deliberate {
  row: string;
  /** `Deployment shop/ledger is scaled to 0 on purpose` */
  state: string;
  /** The annotation that says why, quoted (`key: value`), when one does. */
  note?: string;
}

export interface IntentRow {
  id: string;
  means: string;
  read(workload: WorkloadIntent): Deliberate | undefined;
  examples: { match: Array<{ workload: WorkloadIntent; says: RegExp }>; noMatch: WorkloadIntent[] };
}

/** Words that record a decision, in an annotation's key or value. */
const DECISION =
  /decommission|retir(ed|e)\b|sunset|deprecat|replaced by|migrat(ed|ing) to|scaled? (down )?to (0|zero)|--replicas[= ]0\b|\bpaused?\b|do not (scale|start|restart)|don'?t (scale|start)|keep (it )?(off|down|at 0)|disabled?\b|maintenance|freeze|on hold|suspend|\b(CHG|CR|RFC|CHANGE|TICKET|OPS|INC)[-_ ]?\d+|change (request|ticket)/i;

/** The annotation that records a decision, as `key: value`: one whose value says it first ("paused for the migration, CHG-2291"), then one whose key does ("suspended-by"). */
function decisionNote(notes: Record<string, string>): string | undefined {
  const entries = Object.entries(notes);
  const found = entries.find(([, value]) => DECISION.test(value)) ?? entries.find(([key]) => DECISION.test(key));
  return found ? `${found[0]}: ${found[1]}` : undefined;
}

function label(workload: WorkloadIntent): string {
  return `${workload.kind} ${workload.namespace}/${workload.name}`;
}

export const INTENT_ROWS: readonly IntentRow[] = [
  {
    id: 'scaled-to-zero-on-record',
    means: 'the workload asks for 0 replicas and an annotation or change-cause says why',
    read(workload) {
      if (workload.desired !== 0) return undefined;
      const note = decisionNote(workload.notes);
      return note
        ? { row: 'scaled-to-zero-on-record', state: `${label(workload)} is scaled to 0 replicas on purpose`, note }
        : undefined;
    },
    examples: {
      match: [
        {
          workload: intent({
            desired: 0,
            notes: { 'kubernetes.io/change-cause': 'scaled to 0: decommissioned per CHG-4471' },
          }),
          says: /scaled to 0 .*CHG-4471/,
        },
        {
          workload: intent({
            desired: 0,
            notes: { 'ops.example.com/decommissioned': '2026-11-20, replaced by ledger-v2' },
          }),
          says: /decommissioned: 2026-11-20, replaced by ledger-v2/,
        },
      ],
      noMatch: [
        intent({ desired: 0, notes: {} }),
        intent({ desired: 0, notes: { 'kubernetes.io/change-cause': 'bump image to 2.4.1' } }),
        intent({ desired: 3, notes: { 'ops.example.com/note': 'do not scale' } }),
      ],
    },
  },
  {
    id: 'suspended-cronjob',
    means: 'a CronJob with spec.suspend: true schedules nothing, by design',
    read(workload) {
      if (workload.kind !== 'CronJob' || !workload.suspended) return undefined;
      const note = decisionNote(workload.notes);
      return {
        row: 'suspended-cronjob',
        state: `${label(workload)} is suspended (spec.suspend: true), so it schedules no Job`,
        ...(note ? { note } : {}),
      };
    },
    examples: {
      match: [
        {
          workload: intent({
            kind: 'CronJob',
            suspended: true,
            notes: { 'team.example.com/why': 'paused during the warehouse migration, OPS-812' },
          }),
          says: /suspended .*OPS-812/,
        },
        {
          workload: intent({
            kind: 'CronJob',
            suspended: true,
            notes: {
              'team.example.com/suspended-by': 'j.doe',
              'team.example.com/suspended-reason': 'on hold until the cutover, CHG-41',
            },
          }),
          says: /suspended-reason: on hold until the cutover, CHG-41/,
        },
      ],
      noMatch: [intent({ kind: 'CronJob', suspended: false, notes: {} })],
    },
  },
  {
    id: 'paused-rollout',
    means: 'a Deployment whose rollout is paused (spec.paused: true) holds its new revision back, by design',
    read(workload) {
      if (workload.kind !== 'Deployment' || !workload.paused) return undefined;
      const note = decisionNote(workload.notes);
      return {
        row: 'paused-rollout',
        state: `${label(workload)} has its rollout paused (spec.paused: true)`,
        ...(note ? { note } : {}),
      };
    },
    examples: {
      match: [{ workload: intent({ paused: true, desired: 3, notes: {} }), says: /rollout paused/ }],
      noMatch: [intent({ paused: false, desired: 3, notes: {} })],
    },
  },
  {
    id: 'partitioned-rollout',
    means:
      'a StatefulSet whose rolling update has a partition keeps the pods below that ordinal on the old revision: a staged (canary) rollout, held by design',
    read(workload) {
      if (workload.kind !== 'StatefulSet' || !workload.partition || workload.desired === undefined) return undefined;
      const note =
        decisionNote(workload.notes) ?? Object.entries(workload.notes).map(([key, value]) => `${key}: ${value}`)[0];
      const held = `${label(workload)} rolls out in stages: its update strategy's partition is ${workload.partition}, so pods with an ordinal below ${workload.partition} stay on the old revision${workload.updated !== undefined ? ` (${workload.updated} of ${workload.desired} updated)` : ''}`;
      return { row: 'partitioned-rollout', state: held, ...(note ? { note } : {}) };
    },
    examples: {
      match: [
        {
          workload: intent({
            kind: 'StatefulSet',
            name: 'nats',
            desired: 3,
            partition: 2,
            updated: 1,
            notes: { 'eventbus.example.com/rollout-note': 'nats-2 soaks 72h on 2.10.22 before the rest, CHG-7712' },
          }),
          says: /partition is 2, so pods with an ordinal below 2 stay on the old revision \(1 of 3 updated\).*CHG-7712/,
        },
        {
          workload: intent({ kind: 'StatefulSet', name: 'kafka', desired: 5, partition: 4, notes: {} }),
          says: /partition is 4/,
        },
      ],
      noMatch: [
        intent({ kind: 'StatefulSet', desired: 3, notes: {} }),
        intent({ kind: 'StatefulSet', desired: 3, partition: 0, notes: {} }),
        intent({ kind: 'Deployment', desired: 3, partition: 2, notes: {} }),
      ],
    },
  },
];

/** The decision the workload's spec and annotations record, if any. */
export function readDeliberateState(workload: WorkloadIntent): Deliberate | undefined {
  for (const row of INTENT_ROWS) {
    const found = row.read(workload);
    if (found) return found;
  }
  return undefined;
}

/** `Deployment shop/ledger is scaled to 0 replicas on purpose (ops.example.com/decommissioned: ...)`. */
export function describeDeliberate(deliberate: Deliberate): string {
  return deliberate.note ? `${deliberate.state} (${deliberate.note})` : deliberate.state;
}

function intent(fields: Partial<WorkloadIntent>): WorkloadIntent {
  return { kind: 'Deployment', namespace: 'ledger', name: 'ledger-api', notes: {}, ...fields };
}
