/**
 * One attempt of one run: claim it (queued → running, so no other start can take it),
 * run the agent with the run's own abort signal, follow its actions into the run's
 * status, and store the outcome. A run stopped by the service shutting down is left
 * as it is: the next start resumes or fails it (see recover-runs.ts).
 */
import type { Logger } from 'pino';
import { runAgent, type RunAgentInput, type RunOutcome } from '../agent/loop.ts';
import type { Model } from '../agent/model.ts';
import { auditFor } from '../agent/run-audit.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { Config } from '../config.ts';
import type { LadderPolicy } from '../gate/rung.ts';
import { createMetricsObserver, type Metrics } from '../metrics.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { ensureRunCreated } from './run-created.ts';
import type { ServiceApprovalBroker } from './service-approvals.ts';

/** What a run needs to diagnose: the model, the tools, the cluster and the ladder policy. */
export interface AgentDependencies {
  model: Model;
  registry: ToolRegistry;
  cluster: Cluster;
  policy: LadderPolicy;
  limits: Config['limits'];
  /** The loop; a seam for tests. Default `runAgent`. */
  runAgent?: (input: RunAgentInput) => Promise<RunOutcome>;
}

export interface ExecuteRunInput {
  id: string;
  store: RunStore;
  audit: AuditStore;
  approvals: ServiceApprovalBroker;
  metrics: Metrics;
  logger: Logger;
  agent: AgentDependencies;
  /** Aborts when the service shuts down. */
  shutdown: AbortSignal;
  /** Called once the run has ended and its outcome is stored. */
  onFinished(run: RunRecord): void;
}

/** How long past its deadline a run may take to stop before it is failed without it. */
const DEADLINE_GRACE_MS = 30_000;

export async function executeRun(input: ExecuteRunInput): Promise<void> {
  const { id, store, metrics, agent } = input;
  const run = store.claim(id);
  if (!run) return;
  const logger = input.logger.child({ runId: id });
  const controller = new AbortController();
  const onShutdown = (): void => controller.abort(new Error('the service is shutting down; the run resumes at its next start'));
  input.shutdown.addEventListener('abort', onShutdown, { once: true });
  if (input.shutdown.aborted) onShutdown();

  const knownTools = new Set(agent.registry.list().map((tool) => tool.name));
  const observer = {
    ...createMetricsObserver(metrics, knownTools),
    actionsChanged(actions: readonly { status: string }[]) {
      const awaiting = actions.some((action) => action.status === 'awaiting_approval');
      store.updateProgress(id, { status: awaiting ? 'awaiting_approval' : 'running', actions: actions as RunRecord['actions'] });
    },
  };
  const started = performance.now();
  logger.info({ attempt: run.attempts, trigger: run.trigger.kind }, 'run started');
  let outcome: RunOutcome;
  let watchdog: NodeJS.Timeout | undefined;
  try {
    ensureRunCreated(input.audit, run);
    const deadlineMs = agent.limits.runTimeoutMs + DEADLINE_GRACE_MS;
    const stalled = new Promise<RunOutcome>((resolve) => {
      watchdog = setTimeout(() => {
        const reason = `the run did not stop within ${Math.round(deadlineMs / 1000)} s (its deadline plus ${DEADLINE_GRACE_MS / 1000} s)`;
        controller.abort(new Error(reason));
        tryRecordError(input.audit, id, reason);
        resolve(failedOutcome(reason));
      }, deadlineMs);
    });
    outcome = await Promise.race([
      (agent.runAgent ?? runAgent)({
        runId: id,
        trigger: run.trigger,
        rung: run.rung,
        model: agent.model,
        registry: agent.registry,
        cluster: agent.cluster,
        policy: agent.policy,
        approvals: input.approvals,
        audit: auditFor(input.audit, id),
        limits: {
          maxSteps: agent.limits.maxSteps,
          tokenBudget: agent.limits.tokenBudget,
          timeoutMs: agent.limits.runTimeoutMs,
          approvalTtlMs: agent.limits.approvalTtlMs,
          toolOutputBytes: agent.limits.toolOutputBytes,
        },
        signal: controller.signal,
        observer,
      }),
      stalled,
    ]);
  } catch (error) {
    // The loop returns model and tool failures as outcomes; reaching here is a defect (a store failure, say).
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ err: error }, 'run attempt threw');
    tryRecordError(input.audit, id, `internal error: ${message}`);
    outcome = failedOutcome(`internal error: ${message}`);
  } finally {
    clearTimeout(watchdog);
    input.shutdown.removeEventListener('abort', onShutdown);
  }
  const durationSeconds = (performance.now() - started) / 1000;
  metrics.runDuration.observe(durationSeconds);

  if (input.shutdown.aborted && outcome.status === 'failed') {
    logger.warn({ reason: outcome.reason }, 'run interrupted by shutdown; it resumes at the next start');
    return;
  }
  const finished = store.finish(id, {
    status: outcome.status,
    ...(outcome.diagnosis ? { diagnosis: outcome.diagnosis } : {}),
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    usage: outcome.usage,
    steps: outcome.steps,
    // An outcome made here (not by the loop) has no actions: keep the ones stored.
    ...(outcome.actions.length > 0 ? { actions: outcome.actions } : {}),
  });
  if (!finished) return;
  metrics.runs.inc({ trigger: run.trigger.kind, outcome: outcome.status });
  if (outcome.diagnosis) metrics.diagnoses.inc({ category: outcome.diagnosis.category });
  // The audit head in the service log anchors the run's hash chain outside the database.
  const auditHead = input.audit.head(id);
  logger.info({ status: outcome.status, reason: outcome.reason, category: outcome.diagnosis?.category, steps: outcome.steps, durationSeconds, ...(auditHead ? { auditHead: `${auditHead.seq}:${auditHead.hash}` } : {}) }, 'run finished');
  const stored = store.get(id);
  if (stored) input.onFinished(stored);
}

function failedOutcome(reason: string): RunOutcome {
  return { status: 'failed', reason, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, steps: 0, toolCalls: [], actions: [] };
}

function tryRecordError(audit: AuditStore, runId: string, message: string): void {
  try {
    audit.append({ runId, type: 'error', payload: { message } });
  } catch {
    // The store that failed the run may fail this too; the log line above has it.
  }
}
