/**
 * Where a run ends, the only place: `endRun` makes the store's transition, appends the one
 * `run-finished` event of the run's audit chain, counts the end in `kubewhy_runs_total`,
 * logs the line with the chain's (signed) head that anchors it outside the database, and
 * tells the run's listeners (run-events.ts). Each cause keeps the order that is safe for it:
 *
 * - `finished`: the run's own outcome. The chain says it ended before the store does, so a
 *   process killed in between leaves a run a start ends as its chain says (recover-runs.ts).
 * - `merged`: joined to its node's run. The store decides first, in the service's write
 *   batch (the merge is conditional: the run may have changed); only a merged run's chain
 *   says so.
 * - `cancelled`: its alert resolved before it started; the intake ended it in the store.
 *   For these two the caller's batch made the transition and it committed.
 * - `recovered`: a start (or a takeover) found it interrupted, or ended in its chain only.
 *
 * `recordRunFinished` is the event itself, for runs outside the service (`kubewhy
 * diagnose`, an MCP client's write).
 */
import type { Logger } from 'pino';
import type { Diagnosis, Action } from '../agent/diagnosis.ts';
import type { TokenUsage } from '../agent/model.ts';
import { anchorLogFields, unsignedAnchors, type AnchorSigner } from '../audit/anchors.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Metrics } from '../metrics.ts';
import type { RunRecord, RunStore } from '../store/ports.ts';
import { ensureRunCreated } from './run-created.ts';
import type { RunEndCause, RunEvents } from './run-events.ts';

export interface RunFinishedPayload {
  status: 'completed' | 'failed';
  reason?: string;
  steps: number;
  usage?: TokenUsage;
  /** A merged run: the run it joined. */
  mergedInto?: string;
  /** A run cancelled before it started. */
  cancelled?: true;
}

/** Appends the run's `run-finished` event: the last of its chain. */
export async function recordRunFinished(
  audit: Pick<AuditStore, 'append'>,
  runId: string,
  payload: RunFinishedPayload,
): Promise<void> {
  await audit.append({ runId, type: 'run-finished', payload: { ...payload } });
}

/** The `run-finished` payload of an agent's outcome, for a run whose audit records events in order (`kubewhy diagnose`, an MCP hold). */
export function runFinishedOf(outcome: {
  status: 'completed' | 'failed' | 'parked';
  reason?: string;
  steps: number;
  usage?: TokenUsage;
}): RunFinishedPayload {
  return {
    status: outcome.status === 'completed' ? 'completed' : 'failed',
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    steps: outcome.steps,
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  };
}

export interface EndRunInput {
  run: RunRecord;
  cause: RunEndCause;
  status: 'completed' | 'failed';
  reason?: string;
  diagnosis?: Diagnosis;
  usage?: TokenUsage;
  steps?: number;
  /** The actions to store with the end; absent: the ones stored stay. */
  actions?: readonly Action[];
  /** `merged`: the run it joins, and what to log about it. */
  mergedInto?: { runId: string; node?: string };
  /** `recovered`: the chain ends with `run-finished` already (only the store missed it). */
  endedInChain?: boolean;
  /** How long the attempt ran, for the log line. */
  durationSeconds?: number;
  /** The run's own logger (with its run id); default the lifecycle's. */
  logger?: Logger;
}

export interface RunLifecycle {
  /** Ends the run; resolves with it as stored, or undefined when it was no longer the service's to end (the store refused the transition). */
  endRun(input: EndRunInput): Promise<RunRecord | undefined>;
}

export interface RunLifecycleDependencies {
  store: RunStore;
  audit: AuditStore;
  /** Absent (a recovery run alone, in a test): the end is stored and audited, not counted, logged or told. */
  metrics?: Metrics;
  logger?: Logger;
  events?: RunEvents;
  /** Signs the audit head each ended run logs (default: logged unsigned). */
  anchors?: AnchorSigner;
}

export function createRunLifecycle(dependencies: RunLifecycleDependencies): RunLifecycle {
  const { store, audit, metrics, events } = dependencies;
  const anchors = dependencies.anchors ?? unsignedAnchors;

  /** The store's transition for the cause; false when the store refused it. */
  const transition = async (input: EndRunInput): Promise<boolean> => {
    const { run } = input;
    switch (input.cause) {
      case 'merged':
      case 'cancelled':
        // The service's write batch merged it, or the intake ended it with the resolution: committed already.
        return true;
      case 'finished':
      case 'recovered':
        return store.finish(run.id, {
          status: input.status,
          ...(input.diagnosis ? { diagnosis: input.diagnosis } : {}),
          ...(input.reason ? { reason: input.reason } : {}),
          ...(input.usage ? { usage: input.usage } : {}),
          ...(input.steps !== undefined ? { steps: input.steps } : {}),
          ...(input.actions && input.actions.length > 0 ? { actions: [...input.actions] } : {}),
        });
    }
  };

  const payloadOf = (input: EndRunInput): RunFinishedPayload => ({
    status: input.status,
    ...(input.reason ? { reason: input.reason } : {}),
    steps: input.steps ?? input.run.steps ?? 0,
    ...(input.usage ? { usage: input.usage } : {}),
    ...(input.mergedInto ? { mergedInto: input.mergedInto.runId } : {}),
    ...(input.cause === 'cancelled' ? { cancelled: true as const } : {}),
  });

  return {
    async endRun(input) {
      const { run } = input;
      const logger = input.logger ?? dependencies.logger;
      const chainFirst = input.cause === 'finished' || input.cause === 'recovered';
      if (chainFirst) {
        if (!input.endedInChain) await recordRunFinished(audit, run.id, payloadOf(input));
        if (!(await transition(input))) return undefined;
      } else {
        if (!(await transition(input))) return undefined;
        await ensureRunCreated(audit, run);
        await recordRunFinished(audit, run.id, payloadOf(input));
      }
      const outcome = input.cause === 'merged' || input.cause === 'cancelled' ? input.cause : input.status;
      metrics?.runs.inc({ trigger: run.trigger.kind, outcome });
      if (input.cause === 'finished' && input.diagnosis) metrics?.diagnoses.inc({ category: input.diagnosis.category });
      if (!logger && !events) return store.get(run.id);
      const anchor = await anchorLogFields({ audit, runId: run.id, signer: anchors });
      logger?.info(
        {
          runId: run.id,
          status: input.status,
          ...(input.reason ? { reason: input.reason } : {}),
          ...(input.diagnosis ? { category: input.diagnosis.category } : {}),
          ...(input.steps !== undefined ? { steps: input.steps } : {}),
          ...(input.durationSeconds !== undefined ? { durationSeconds: input.durationSeconds } : {}),
          ...(input.mergedInto
            ? { joined: input.mergedInto.runId, ...(input.mergedInto.node ? { node: input.mergedInto.node } : {}) }
            : {}),
          ...(input.cause === 'cancelled' ? { cancelled: true } : {}),
          ...anchor,
        },
        'run finished',
      );
      const ended = await store.get(run.id);
      if (ended) events?.emit('ended', { run: ended, cause: input.cause });
      return ended;
    },
  };
}
