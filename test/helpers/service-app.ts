/**
 * The service app built in-process for tests: an in-memory (or given) SQLite database,
 * recording tools, a fake model, tokens for every scope, and a silent logger. Requests go
 * through `app.inject`, so the whole HTTP stack (hooks, validation, serialisation) runs
 * without a socket.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext } from 'node:test';
import type { Model, ModelRequest, ModelTurn, ToolCall } from '../../src/agent/model.ts';
import type { RunAgentInput, RunOutcome } from '../../src/agent/loop.ts';
import type { Config } from '../../src/config.ts';
import { buildServiceApp } from '../../src/app/service.ts';
import type { KubewhyApp } from '../../src/server/app.ts';
import type { AuthSettings } from '../../src/server/auth.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunSettings } from '../../src/runs/run-service.ts';
import { openDatabase } from '../../src/store/database.ts';
import { createToolRegistry } from '../../src/tools/registry.ts';
import { createRecordingTools, demoDiagnosis, unusedCluster, type RecordingTools } from './fake-tools.ts';

export const TOKENS = {
  ingest: 'ingest-token-0123456789abcdef',
  read: 'read-token-0123456789abcdef',
  approve: 'approve-token-0123456789abcdef',
  /** Listed under ingest and act: it may ask for rung ACT. */
  ingestAct: 'ingest-act-token-0123456789abcdef',
} as const;

export const TEST_LIMITS: Config['limits'] = {
  maxSteps: 6,
  tokenBudget: 100_000,
  runTimeoutMs: 10_000,
  toolOutputBytes: 8192,
  approvalTtlMs: 30_000,
  maxHeldActions: 3,
};

export interface TestAppOptions {
  model?: Model;
  /** The model a run falls back to from its `fallbackAfterAttempts`-th start. */
  fallback?: { model: Model; afterAttempts: number };
  database?: DatabaseSync;
  runs?: Partial<RunSettings>;
  auth?: AuthSettings;
  limits?: Partial<Config['limits']>;
  actNamespaces?: string[];
  bodyLimitBytes?: number;
  webhookBodyLimitBytes?: number;
  runAgent?: (input: RunAgentInput) => Promise<RunOutcome>;
}

export interface TestApp {
  app: KubewhyApp;
  database: DatabaseSync;
  recording: RecordingTools;
  /** `app.inject` with the token of `scope` (none with `scope: null`). */
  call(input: {
    method: 'GET' | 'POST';
    url: string;
    scope?: keyof typeof TOKENS | null;
    body?: unknown;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
  /** Polls GET /v1/runs/:id until `done` holds (no fixed sleeps: each poll yields to the event loop). */
  waitForRun(id: string, done?: (run: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

export async function startTestApp(t: TestContext, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? openDatabase(':memory:');
  const recording = createRecordingTools();
  const app = await buildServiceApp({
    database,
    agent: {
      model: options.model ?? createInvestigatingModel(),
      registry: createToolRegistry(recording.tools),
      cluster: unusedCluster,
      policy: { actNamespaces: options.actNamespaces ?? [] },
      limits: { ...TEST_LIMITS, ...options.limits },
      ...(options.runAgent ? { runAgent: options.runAgent } : {}),
      ...(options.fallback
        ? { fallbackModel: options.fallback.model, fallbackAfterAttempts: options.fallback.afterAttempts }
        : {}),
    },
    runs: {
      concurrency: 2,
      queueSize: 100,
      dedupWindowMs: 4 * 3600 * 1000,
      maxAttempts: 3,
      shutdownGraceMs: 5000,
      ...options.runs,
    },
    auth: options.auth ?? {
      mode: 'tokens',
      tokens: {
        ingest: [TOKENS.ingest, TOKENS.ingestAct],
        read: [TOKENS.read],
        approve: [TOKENS.approve],
        act: [TOKENS.ingestAct],
      },
    },
    bodyLimitBytes: options.bodyLimitBytes ?? 64 * 1024,
    ...(options.webhookBodyLimitBytes ? { webhookBodyLimitBytes: options.webhookBodyLimitBytes } : {}),
    logger: createLogger({ level: 'silent' }),
    version: 'test',
    checkCluster: async () => ({ ok: true }),
  });
  await app.ready();
  t.after(async () => {
    await app.close();
    if (!options.database) database.close();
  });

  const call: TestApp['call'] = ({ method, url, scope = 'read', body, headers = {} }) =>
    app.inject({
      method,
      url,
      headers: {
        ...(scope ? { authorization: `Bearer ${TOKENS[scope]}` } : {}),
        ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });

  const waitForRun: TestApp['waitForRun'] = async (
    id,
    done = (run) => run.status === 'completed' || run.status === 'failed',
  ) => {
    for (let attempt = 0; attempt < 20_000; attempt++) {
      const response = await call({ method: 'GET', url: `/v1/runs/${id}` });
      const run = response.json() as Record<string, unknown>;
      if (done(run)) return run;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`run ${id} did not reach the expected state`);
  };
  return { app, database, recording, call, waitForRun };
}

/**
 * A stateless model for many concurrent runs: it reads the pod, then submits the demo
 * diagnosis. With `gate`, every turn waits for it first, so a test controls when runs
 * advance.
 */
export function createInvestigatingModel(
  options: { gate?: () => Promise<void>; firstCalls?: ToolCall[] } = {},
): Model & { turns: number } {
  const model = {
    name: 'fake-investigator',
    turns: 0,
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      model.turns++;
      if (options.gate) await abortable(options.gate(), request.signal);
      const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 };
      const investigated = request.transcript.some((entry) => entry.role === 'tool-results');
      if (!investigated) {
        const calls = options.firstCalls ?? [
          {
            id: 'call-describe',
            name: 'describe_pod',
            input: { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q' },
          },
        ];
        return { text: '', calls, stopReason: 'tool_use', usage };
      }
      return {
        text: '',
        calls: [{ id: 'call-submit', name: 'submit_diagnosis', input: demoDiagnosis }],
        stopReason: 'tool_use',
        usage,
      };
    },
  };
  return model;
}

/** A gate that holds every waiter until `open()`; `waiting` counts who waits now. */
export function createGate(): { wait: () => Promise<void>; open: () => void; waiting: () => number } {
  let opened = false;
  let waiters: (() => void)[] = [];
  return {
    wait: () => (opened ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    open() {
      opened = true;
      for (const resolve of waiters) resolve();
      waiters = [];
    },
    waiting: () => waiters.length,
  };
}

function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}

/** A firing alert as Alertmanager sends it, with the demo scenario's labels. */
export function firingAlert(
  overrides: {
    fingerprint?: string;
    startsAt?: string;
    status?: 'firing' | 'resolved';
    endsAt?: string;
    pod?: string;
  } = {},
): Record<string, unknown> {
  return {
    status: overrides.status ?? 'firing',
    labels: {
      alertname: 'KubePodCrashLooping',
      namespace: 'staging',
      pod: overrides.pod ?? 'checkout-api-7d9f8c6b5-x2k4q',
      container: 'app',
      severity: 'warning',
    },
    annotations: { summary: 'Pod is crash looping.' },
    startsAt: overrides.startsAt ?? '2026-11-29T09:50:00.123456789Z',
    endsAt: overrides.endsAt ?? '0001-01-01T00:00:00Z',
    generatorURL: 'http://prometheus.example/graph?g0.expr=x',
    fingerprint: overrides.fingerprint ?? 'a1b2c3d4e5f60718',
  };
}

/** An Alertmanager webhook payload (version 4) around `alerts`. */
export function notification(alerts: Record<string, unknown>[]): Record<string, unknown> {
  return {
    receiver: 'kubewhy',
    status: alerts.some((alert) => alert.status === 'firing') ? 'firing' : 'resolved',
    alerts,
    groupLabels: { alertname: 'KubePodCrashLooping' },
    commonLabels: { alertname: 'KubePodCrashLooping' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example',
    version: '4',
    groupKey: '{}:{alertname="KubePodCrashLooping"}',
    truncatedAlerts: 0,
  };
}
