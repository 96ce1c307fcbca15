/**
 * One attempt of one run: claim it (queued → running, so no other start can take it),
 * run the agent with the run's own abort signal (from its checkpoint when it was parked),
 * follow its actions into the run's status, and say what became of it: ended (through the
 * lifecycle, lifecycle.ts), parked awaiting approval (the worker is freed), or queued again
 * for a retry. A run stopped by the service shutting down is left as it is: the next start
 * resumes or fails it (see recover-runs.ts).
 */
import { runLimitsOf } from '../agent/run-limits.ts';
import type { ClusterIdentity } from '../cluster/kubeconfig.ts';
import type { Logger } from 'pino';
import { runAgent, type RunAgentInput, type RunOutcome } from '../agent/loop.ts';
import type { Action, Diagnosis } from '../agent/diagnosis.ts';
import type { Model } from '../agent/model.ts';
import { chooseModel, countModelFailures, noteFallback, type ModelChoice } from '../agent/models/model-fallback.ts';
import { CheckpointError, parseCheckpoint, serializeCheckpoint, type RunCheckpoint } from '../agent/checkpoint.ts';
import { auditFor } from '../agent/run-audit.ts';
import { anchorLogFields, unsignedAnchors, type AnchorSigner } from '../audit/anchors.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { Config } from '../config.ts';
import type { LadderPolicy } from '../gate/rung.ts';
import { createMetricsObserver, type Metrics } from '../metrics.ts';
import type { RunRecord, RunStore } from '../store/ports.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { createOrderedWrites } from '../audit/ordered-writes.ts';
import type { RunLifecycle } from './lifecycle.ts';
import { ensureRunCreated } from './run-created.ts';

/** What a run needs to diagnose: the model, the tools, the cluster and the ladder policy. */
export interface AgentDependencies {
  model: Model;
  registry: ToolRegistry;
  cluster: Cluster;
  /** Which cluster `cluster` reads: recorded with every run it starts. */
  clusterIdentity?: ClusterIdentity;
  policy: LadderPolicy;
  limits: Config['limits'];
  /** The loop; a seam for tests. Default `runAgent`. */
  runAgent?: (input: RunAgentInput) => Promise<RunOutcome>;
  /** Diagnoses a run instead of `model` from its `fallbackAfterAttempts`-th start on (the offline engine). */
  fallbackModel?: Model;
  fallbackAfterAttempts?: number;
}

export interface ExecuteRunInput {
  id: string;
  /** The run, claimed already (the shared queue claims as it takes); otherwise it is claimed here. */
  claimed?: RunRecord;
  store: RunStore;
  audit: AuditStore;
  metrics: Metrics;
  logger: Logger;
  agent: AgentDependencies;
  /** Aborts when the service shuts down. */
  shutdown: AbortSignal;
  /** Ends the run (lifecycle.ts): the only code that does. */
  lifecycle: RunLifecycle;
  /** Signs the audit head logged when a run is interrupted (default: logged unsigned). */
  anchors?: AnchorSigner;
  /** Asked once the run is claimed: true when it ended there, joined to another run's incident, and must not run. */
  joinIncident?(run: RunRecord): Promise<boolean>;
}

/**
 * What became of the attempt: the run ended (its end stored and told), parked awaiting a
 * decision (its checkpoint stored), queued again to retry at `run.notBefore`, stopped
 * unfinished by a shutdown (a start resumes it), or not run here at all (another start
 * claimed it, it joined its node's run, or its end was no longer the service's to store).
 */
export type ExecuteResult =
  | { kind: 'ended'; run: RunRecord }
  | { kind: 'parked'; run: RunRecord }
  | { kind: 'retry'; run: RunRecord }
  | { kind: 'interrupted' }
  | { kind: 'not-run' };

/** How long past its deadline a run may take to stop before it is failed without it. */
const DEADLINE_GRACE_MS = 30_000;

export async function executeRun(input: ExecuteRunInput): Promise<ExecuteResult> {
  const { id, store, metrics, agent } = input;
  const run = input.claimed ?? (await store.claim(id, agent.clusterIdentity ? { cluster: agent.clusterIdentity } : {}));
  if (!run) return { kind: 'not-run' };
  if (input.joinIncident && (await input.joinIncident(run))) return { kind: 'not-run' };
  const logger = input.logger.child({ runId: id });
  const controller = new AbortController();
  const onShutdown = (): void =>
    controller.abort(new Error('the service is shutting down; the run resumes at its next start'));
  input.shutdown.addEventListener('abort', onShutdown, { once: true });
  if (input.shutdown.aborted) onShutdown();

  const knownTools = new Set(agent.registry.list().map((tool) => tool.name));
  // The run's actions are stored in the order they change, one write after another.
  const progress = createOrderedWrites();
  const observer = {
    ...createMetricsObserver(metrics, knownTools),
    actionsChanged(actions: readonly { status: string }[]) {
      const snapshot = actions.map((action) => ({ ...action })) as RunRecord['actions'];
      // The run shows awaiting_approval once it parks, with its checkpoint stored: a decision can reach it from then on.
      progress.add(() => store.updateProgress(id, { status: 'running', actions: snapshot }));
    },
  };
  const runAudit = auditFor(input.audit, id, { alsoFlush: () => progress.flush() });
  const started = performance.now();
  logger.info({ attempt: run.attempts, trigger: run.trigger.kind }, 'run started');
  let outcome: RunOutcome;
  let watchdog: NodeJS.Timeout | undefined;
  let choice: ModelChoice = { model: agent.model };
  try {
    await ensureRunCreated(input.audit, run);
    const resume = run.parked ? resumeFrom(run, await store.checkpointOf(id)) : undefined;
    choice = chooseModel({
      model: agent.model,
      ...(agent.fallbackModel ? { fallbackModel: agent.fallbackModel } : {}),
      ...(agent.fallbackAfterAttempts ? { fallbackAfterAttempts: agent.fallbackAfterAttempts } : {}),
      attempt: run.attempts,
      modelFailures: agent.fallbackModel ? countModelFailures(await input.audit.list(id)) : 0,
      resuming: resume !== undefined,
    });
    if (choice.fallbackNote) {
      logger.warn({ attempt: run.attempts }, choice.fallbackNote);
      await tryRecordError(input.audit, id, choice.fallbackNote);
    }
    const deadlineMs = agent.limits.runTimeoutMs + DEADLINE_GRACE_MS;
    const stalled = new Promise<RunOutcome>((resolve) => {
      watchdog = setTimeout(() => {
        const reason = `the run did not stop within ${Math.round(deadlineMs / 1000)} s (its deadline plus ${DEADLINE_GRACE_MS / 1000} s)`;
        controller.abort(new Error(reason));
        void tryRecordError(input.audit, id, reason);
        resolve(failedOutcome(reason));
      }, deadlineMs);
    });
    outcome = await Promise.race([
      (agent.runAgent ?? runAgent)({
        runId: id,
        trigger: run.trigger,
        rung: run.rung,
        model: choice.model,
        attempt: run.attempts,
        retriesModelFailures: run.attempts < MAX_MODEL_ATTEMPTS,
        registry: agent.registry,
        cluster: agent.cluster,
        policy: agent.policy,
        audit: runAudit,
        ...(resume ? { resume } : {}),
        limits: runLimitsOf(agent.limits),
        signal: controller.signal,
        observer,
      }),
      stalled,
    ]);
    // Every step the loop recorded is stored before its outcome is.
    await runAudit.flush();
  } catch (error) {
    // The loop returns model and tool failures as outcomes; reaching here is a defect (a store failure, say).
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ err: error }, 'run attempt threw');
    await tryRecordError(input.audit, id, `internal error: ${message}`);
    outcome = failedOutcome(`internal error: ${message}`);
  } finally {
    clearTimeout(watchdog);
    input.shutdown.removeEventListener('abort', onShutdown);
  }
  if (choice.fallbackNote) outcome = noteFallback(outcome, choice.fallbackNote);
  const durationSeconds = (performance.now() - started) / 1000;
  metrics.runDuration.observe(durationSeconds);

  // Settled before the run's end is stored; a failure of theirs failed the run already (runAudit.flush).
  await progress.flush().catch(() => undefined);
  if (outcome.status === 'parked') {
    if (outcome.checkpoint) return park(input, run, outcome, outcome.checkpoint, logger);
    outcome = failedOutcome('internal error: the run parked without a checkpoint');
  }
  if (outcome.retry && !input.shutdown.aborted && run.attempts < MAX_MODEL_ATTEMPTS) {
    const notBefore = new Date(Date.now() + outcome.retry.afterMs);
    if (await store.retryLater(id, notBefore)) {
      logger.warn(
        { reason: outcome.reason, attempt: run.attempts, retryAt: notBefore.toISOString() },
        'run queued again: the model failed in a way that may pass',
      );
      const queued = await store.get(id);
      return queued ? { kind: 'retry', run: queued } : { kind: 'not-run' };
    }
  }
  if (input.shutdown.aborted && outcome.status === 'failed') {
    // No run-finished: the chain says the run goes on, so a start resumes it (recover-runs.ts).
    await tryRecordError(
      input.audit,
      id,
      `interrupted (${outcome.reason ?? 'stopped'}): the run is not over, and resumes at its next start`,
    );
    logger.warn(
      {
        reason: outcome.reason,
        ...(await anchorLogFields({ audit: input.audit, runId: id, signer: input.anchors ?? unsignedAnchors })),
      },
      'run interrupted by shutdown; it resumes at the next start',
    );
    return { kind: 'interrupted' };
  }
  const ended = await input.lifecycle.endRun({
    run,
    cause: 'finished',
    status: outcome.status === 'completed' ? 'completed' : 'failed',
    ...(outcome.diagnosis ? { diagnosis: outcome.diagnosis } : {}),
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    usage: outcome.usage,
    steps: outcome.steps,
    // An outcome made here (not by the loop) has no actions: keep the ones stored.
    actions: outcome.actions,
    durationSeconds,
    logger,
  });
  return ended ? { kind: 'ended', run: ended } : { kind: 'not-run' };
}

/** How many starts a run whose model keeps failing gets before it fails for good. */
const MAX_MODEL_ATTEMPTS = 5;

/** The checkpoint a parked run resumes from, with its decided actions; a broken one fails the run with what is wrong. */
function resumeFrom(
  run: RunRecord,
  stored: string | undefined,
): { checkpoint: RunCheckpoint; actions: RunRecord['actions'] } | undefined {
  if (stored === undefined) return undefined;
  try {
    return { checkpoint: parseCheckpoint(stored), actions: run.actions };
  } catch (error) {
    if (error instanceof CheckpointError) throw new Error(`cannot resume the run: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Stores the checkpoint and frees the worker: the run waits in the store for a person's decision. */
async function park(
  input: ExecuteRunInput,
  run: RunRecord,
  outcome: RunOutcome,
  checkpoint: RunCheckpoint,
  logger: Logger,
): Promise<ExecuteResult> {
  const held = outcome.actions.filter((action) => checkpoint.turn.heldActionIds.includes(action.id));
  if (
    !(await storeParked({
      store: input.store,
      audit: input.audit,
      runId: run.id,
      checkpoint,
      actions: outcome.actions,
      ...(outcome.diagnosis ? { diagnosis: outcome.diagnosis } : {}),
    }))
  ) {
    logger.error('the run could not be parked: it is no longer running');
    return { kind: 'not-run' };
  }
  logger.info({ step: checkpoint.step, held: held.map((action) => action.id) }, 'run parked awaiting approval');
  const parked = await input.store.get(run.id);
  return parked ? { kind: 'parked', run: parked } : { kind: 'not-run' };
}

/**
 * A run parked: its `run-parked` audit event (with the actions the checkpoint holds) and
 * its checkpoint stored; false when it was no longer running. The loop's parked runs and
 * the writes an MCP client asks for (src/mcp/hold-run.ts) park alike.
 */
export async function storeParked(input: {
  store: RunStore;
  audit: AuditStore;
  runId: string;
  checkpoint: RunCheckpoint;
  actions: readonly Action[];
  diagnosis?: Diagnosis;
}): Promise<boolean> {
  const { checkpoint } = input;
  const held = input.actions.filter((action) => checkpoint.turn.heldActionIds.includes(action.id));
  await input.audit.append({
    runId: input.runId,
    type: 'run-parked',
    payload: {
      step: checkpoint.step,
      activeMs: Math.round(checkpoint.activeMs),
      ...(checkpoint.diagnosed ? { diagnosed: true } : {}),
      held: held.map((action) => ({ id: action.id, tool: action.tool, expiresAt: action.expiresAt })),
    },
  });
  return input.store.park(input.runId, {
    checkpoint: serializeCheckpoint(checkpoint),
    actions: input.actions,
    ...(input.diagnosis ? { diagnosis: input.diagnosis } : {}),
  });
}

function failedOutcome(reason: string): RunOutcome {
  return {
    status: 'failed',
    reason,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    steps: 0,
    toolCalls: [],
    actions: [],
  };
}

async function tryRecordError(audit: AuditStore, runId: string, message: string): Promise<void> {
  try {
    await audit.append({ runId, type: 'error', payload: { message } });
  } catch {
    // The store that failed the run may fail this too; the log line above has it.
  }
}
