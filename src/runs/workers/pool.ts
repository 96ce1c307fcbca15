/**
 * Diagnoses off the HTTP event loop: a pool of worker threads, each with its own model,
 * tools, cluster client and database connection, that runs the agent loop for the runs
 * the queue starts. The HTTP thread keeps ingest, the queue, the run records and the
 * approvals; a worker does the CPU of a diagnosis (the engine, parsing the API's answers,
 * redaction, formatting) and appends the run's audit events itself (audit appends are
 * transactions of their own, so the chain stays whole whichever connection writes it).
 *
 * `runAgent` has the loop's contract, so `executeRun` drives a worker's run as it drives
 * one in process: the hooks the loop calls (metrics, actions changed) come back as
 * messages, the run's abort signal goes there as one, and the outcome comes back without
 * its tool-call records (they are in the audit log and, for a parked run, the checkpoint).
 * The queue's concurrency bounds the runs across the pool: a full pool is backpressure
 * into the queue. A worker that dies fails the runs it held (each may start again) and is
 * replaced.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Action } from '../../agent/diagnosis.ts';
import type { RunAgentInput, RunOutcome } from '../../agent/loop.ts';
import type { ModelHealth } from '../../agent/models/model-health.ts';
import type { AgentObserver } from '../../agent/observer.ts';
import type { Config } from '../../config.ts';
import type { KubeClusterOptions } from '../../cluster/kube-adapter.ts';

/** What a worker builds its model, tools and cluster client from: plain data, sent once when it starts. */
export interface AgentWorkerSetup {
  /** Where the worker appends its runs' audit events: the SQLite file, or the PostgreSQL database the replicas share. */
  database: { kind: 'sqlite'; path: string } | { kind: 'postgresql'; url: string };
  cluster: Pick<KubeClusterOptions, 'kubeconfigPath' | 'context' | 'inCluster' | 'requestTimeoutMs'>;
  model: Config['model'];
  secretKeys: boolean;
  logLevel: string;
}

/** One run sent to a worker: the loop's input without what the worker has of its own. */
export interface WorkerRunRequest {
  type: 'run';
  runId: string;
  /** The name of the model the run uses: the worker's primary model or its fallback. */
  model: string;
  input: Pick<RunAgentInput, 'trigger' | 'rung' | 'policy' | 'limits' | 'resume' | 'retriesModelFailures' | 'attempt'>;
}

export type WorkerRequest = WorkerRunRequest | { type: 'abort'; runId: string; reason: string };

/** The observer hooks the loop calls, forwarded from the worker in order. */
export type ObserverEvent =
  | { hook: 'modelCall'; event: Parameters<NonNullable<AgentObserver['modelCall']>>[0] }
  | { hook: 'toolCall'; event: Parameters<NonNullable<AgentObserver['toolCall']>>[0] }
  | { hook: 'gateDecision'; event: Parameters<NonNullable<AgentObserver['gateDecision']>>[0] }
  | { hook: 'actionsChanged'; event: readonly Action[] };

export type WorkerReply =
  | { type: 'observe'; runId: string; observed: ObserverEvent }
  | { type: 'model-health'; ok: boolean; error?: string }
  | { type: 'outcome'; runId: string; outcome: RunOutcome }
  | { type: 'failed'; runId: string; message: string };

export interface AgentWorkers {
  /** The loop's contract, run on the least busy worker. */
  runAgent(input: RunAgentInput): Promise<RunOutcome>;
  /** Runs held by each worker now. */
  load(): number[];
  /** Ends the workers; runs still held fail (call it after the queue is idle). */
  close(): Promise<void>;
}

interface PendingRun {
  resolve(outcome: RunOutcome): void;
  reject(error: Error): void;
  observer: AgentObserver | undefined;
  release(): void;
}

interface Slot {
  worker: Worker;
  runs: Map<string, PendingRun>;
}

/**
 * A worker's young generation is bounded: a diagnosis allocates in bursts (API answers,
 * tool output) that die young. In three 3,000-alert storms the service peaked at 333-363
 * MiB with the bound, against 378-388 MiB in two without.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 16 };

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './agent-worker.ts' : './agent-worker.js',
  import.meta.url,
);

export interface AgentWorkersOptions {
  count: number;
  setup: AgentWorkerSetup;
  logger: Logger;
  /** Told of every call of the primary model (for /readyz). */
  modelHealth?: ModelHealth;
  /** The worker's module (default agent-worker.ts); a seam for tests. */
  workerUrl?: URL;
}

export function createAgentWorkers(input: AgentWorkersOptions): AgentWorkers {
  const { logger } = input;
  let closing = false;

  const start = (index: number): Slot => {
    const worker = new Worker(input.workerUrl ?? WORKER_URL, {
      workerData: input.setup,
      name: `kubewhy-agent-${index}`,
      resourceLimits: WORKER_HEAP,
    });
    const slot: Slot = { worker, runs: new Map() };
    worker.on('message', (reply: WorkerReply) => receive(slot, reply));
    worker.on('error', (error) => logger.error({ err: error, worker: index }, 'an agent worker failed'));
    worker.on('exit', (code) => {
      const lost = [...slot.runs.values()];
      slot.runs.clear();
      for (const run of lost) {
        run.release();
        run.reject(new Error(`the agent worker stopped (exit code ${code}) during the run`));
      }
      if (closing) return;
      logger.error({ worker: index, code, runs: lost.length }, 'an agent worker stopped: starting another');
      slots[index] = start(index);
    });
    return slot;
  };

  const receive = (slot: Slot, reply: WorkerReply): void => {
    switch (reply.type) {
      case 'model-health':
        if (reply.ok) input.modelHealth?.recordSuccess();
        else input.modelHealth?.recordFailure(new Error(reply.error ?? 'the model call failed'));
        return;
      case 'observe': {
        const observer = slot.runs.get(reply.runId)?.observer;
        forward(observer, reply.observed);
        return;
      }
      case 'outcome':
      case 'failed': {
        const run = slot.runs.get(reply.runId);
        if (!run) return;
        slot.runs.delete(reply.runId);
        run.release();
        if (reply.type === 'outcome') run.resolve(reply.outcome);
        else run.reject(new Error(reply.message));
      }
    }
  };

  const slots = Array.from({ length: Math.max(1, input.count) }, (_unused, index) => start(index));

  return {
    runAgent(run) {
      if (closing) return Promise.reject(new Error('the agent workers are closed'));
      const slot = slots.reduce((least, candidate) => (candidate.runs.size < least.runs.size ? candidate : least));
      return new Promise<RunOutcome>((resolve, reject) => {
        const onAbort = (): void => {
          const reason =
            run.signal?.reason instanceof Error ? run.signal.reason.message : String(run.signal?.reason ?? 'aborted');
          slot.worker.postMessage({ type: 'abort', runId: run.runId, reason } satisfies WorkerRequest);
        };
        const release = (): void => run.signal?.removeEventListener('abort', onAbort);
        slot.runs.set(run.runId, { resolve, reject, observer: run.observer, release });
        const request: WorkerRunRequest = {
          type: 'run',
          runId: run.runId,
          model: run.model.name,
          input: {
            trigger: run.trigger,
            rung: run.rung,
            policy: run.policy,
            limits: run.limits,
            ...(run.resume ? { resume: run.resume } : {}),
            ...(run.retriesModelFailures !== undefined ? { retriesModelFailures: run.retriesModelFailures } : {}),
            ...(run.attempt !== undefined ? { attempt: run.attempt } : {}),
          },
        };
        slot.worker.postMessage(request);
        if (run.signal?.aborted) onAbort();
        else run.signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    load: () => slots.map((slot) => slot.runs.size),
    async close() {
      closing = true;
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}

function forward(observer: AgentObserver | undefined, observed: ObserverEvent): void {
  if (!observer) return;
  switch (observed.hook) {
    case 'modelCall':
      return observer.modelCall?.(observed.event);
    case 'toolCall':
      return observer.toolCall?.(observed.event);
    case 'gateDecision':
      return observer.gateDecision?.(observed.event);
    case 'actionsChanged':
      return observer.actionsChanged?.(observed.event);
  }
}
