/**
 * An agent worker thread (pool.ts): builds its own model, tools, cluster client
 * and database connection from the setup it is started with, then runs the agent loop
 * for each run it is sent, many at once, and answers with each run's outcome. The loop's
 * hooks and the primary model's health go back as messages; the run's audit events are
 * appended here, on this thread's connection.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createFallback, createModel } from '../../agent/models/create-model.ts';
import { runAgent } from '../../agent/loop.ts';
import type { Model } from '../../agent/model.ts';
import { trackModelHealth } from '../../agent/models/model-health.ts';
import type { AgentObserver } from '../../agent/observer.ts';
import { auditFor } from '../../agent/run-audit.ts';
import { createAuditStore, type AuditStore } from '../../audit/audit-store.ts';
import { createKubeCluster } from '../../cluster/kube-adapter.ts';
import { createLogger } from '../../logger.ts';
import { openDatabase } from '../../store/database.ts';
import { asAsync } from '../../store/sqlite-stores.ts';
import { toolRegistryFor } from '../../tools/registry.ts';
import type { AgentWorkerSetup, ObserverEvent, WorkerReply, WorkerRequest, WorkerRunRequest } from './pool.ts';

/** The nice value of an agent worker thread: below the HTTP thread's (0). */
const WORKER_NICE = 10;
const CHECKPOINT_INTERVAL_MS = 1000;

const port = parentPort;
if (!port) throw new Error('agent-worker.ts runs as a worker thread (see pool.ts)');
const setup = workerData as AgentWorkerSetup;
const send = (reply: WorkerReply): void => port.postMessage(reply);

const logger = createLogger({ level: setup.logLevel }).child({ worker: 'agent' });
yieldToIngest();
const audit = await openAudit(setup.database);
const cluster = createKubeCluster(setup.cluster);
const registry = toolRegistryFor({ scenario: false, secretKeys: setup.secretKeys });
const primary = reportHealth(await createModel(setup.model, { logger }));
const fallback = createFallback(setup.model).fallbackModel;
const running = new Map<string, AbortController>();

/**
 * Diagnosis is background work beside ingest: this thread runs at a lower priority (nice
 * +10), so that on a busy machine the HTTP thread answers Alertmanager first and the
 * diagnoses take the CPU left over. On Linux a thread's nice value is its own (its id
 * from /proc/thread-self); elsewhere, or when not allowed, the thread keeps its priority.
 */
function yieldToIngest(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), WORKER_NICE);
  } catch {
    // Not Linux, or not allowed: same priority as the HTTP thread.
  }
}

/** This worker's own connection to the run's audit log. */
async function openAudit(database: AgentWorkerSetup['database']): Promise<AuditStore> {
  if (database.kind === 'postgresql') {
    const [{ createPool }, { createPgAuditStore }] = await Promise.all([
      import('../../store/postgres/queryable.ts'),
      import('../../store/postgres/audit-store.ts'),
    ]);
    const pool = createPool(database.url, {
      max: 2,
      name: 'kubewhy-agent',
      onError: (error) =>
        logger.warn({ err: error }, 'an idle database connection failed; the next append opens another'),
    });
    return createPgAuditStore(pool);
  }
  const sqlite = openDatabase(database.path);
  // The HTTP thread leaves checkpoints to the workers (serve.ts): this one copies the log into the database every second, without blocking writers.
  setInterval(() => sqlite.exec('PRAGMA wal_checkpoint(PASSIVE)'), CHECKPOINT_INTERVAL_MS).unref();
  return asAsync(createAuditStore(sqlite));
}

/** The primary model, with every call's outcome told to the HTTP thread's health (for /readyz). */
function reportHealth(model: Model): Model {
  return trackModelHealth(model, {
    recordSuccess: () => send({ type: 'model-health', ok: true }),
    recordFailure: (error) =>
      send({ type: 'model-health', ok: false, error: error instanceof Error ? error.message : String(error) }),
  });
}

function observerFor(runId: string): AgentObserver {
  const observe = (observed: ObserverEvent): void => send({ type: 'observe', runId, observed });
  return {
    modelCall: (event) => observe({ hook: 'modelCall', event }),
    toolCall: (event) => observe({ hook: 'toolCall', event }),
    gateDecision: (event) => observe({ hook: 'gateDecision', event }),
    actionsChanged: (event) => observe({ hook: 'actionsChanged', event: event.map((action) => ({ ...action })) }),
  };
}

async function diagnose(request: WorkerRunRequest): Promise<void> {
  const controller = new AbortController();
  running.set(request.runId, controller);
  try {
    const model = fallback && request.model === fallback.name && request.model !== primary.name ? fallback : primary;
    const runAudit = auditFor(audit, request.runId);
    const outcome = await runAgent({
      ...request.input,
      runId: request.runId,
      model,
      registry,
      cluster,
      audit: runAudit,
      signal: controller.signal,
      observer: observerFor(request.runId),
    });
    // The outcome goes back once every step is in the audit log.
    await runAudit.flush();
    // The records stay here: the audit log holds them, and a parked run's checkpoint carries its own.
    send({ type: 'outcome', runId: request.runId, outcome: { ...outcome, toolCalls: [] } });
  } catch (error) {
    logger.error({ err: error, runId: request.runId }, 'the agent loop threw');
    send({ type: 'failed', runId: request.runId, message: error instanceof Error ? error.message : String(error) });
  } finally {
    running.delete(request.runId);
  }
}

port.on('message', (request: WorkerRequest) => {
  if (request.type === 'run') void diagnose(request);
  else running.get(request.runId)?.abort(new Error(request.reason));
});
