/**
 * Whether the model answers: consecutive failed model calls, the last error, and since
 * when calls have been failing. `/readyz` reports `degraded` while the last
 * `degradedAfter` calls all failed, and a gauge exports the count. A call the run
 * aborted (shutdown, timeout) says nothing about the model and is not counted.
 */
import type { Model, ModelRequest, ModelTurn } from '../model.ts';

export interface ModelHealthStatus {
  state: 'ok' | 'degraded';
  /** Failed calls since the last one that succeeded. */
  consecutiveFailures: number;
  lastError?: string;
  /** When the current run of failures began. */
  failingSince?: Date;
}

export interface ModelHealth {
  recordSuccess(): void;
  recordFailure(error: unknown): void;
  status(): ModelHealthStatus;
}

/** Failed calls in a row after which the model counts as degraded. */
export const DEFAULT_DEGRADED_AFTER = 3;

export function createModelHealth(options: { degradedAfter?: number; now?: () => Date } = {}): ModelHealth {
  const degradedAfter = options.degradedAfter ?? DEFAULT_DEGRADED_AFTER;
  const now = options.now ?? (() => new Date());
  let consecutiveFailures = 0;
  let lastError: string | undefined;
  let failingSince: Date | undefined;
  return {
    recordSuccess() {
      consecutiveFailures = 0;
      failingSince = undefined;
    },
    recordFailure(error) {
      consecutiveFailures++;
      lastError = error instanceof Error ? error.message : String(error);
      failingSince ??= now();
    },
    status() {
      return {
        state: consecutiveFailures >= degradedAfter ? 'degraded' : 'ok',
        consecutiveFailures,
        ...(lastError !== undefined && consecutiveFailures > 0 ? { lastError } : {}),
        ...(failingSince ? { failingSince } : {}),
      };
    },
  };
}

/** `model`, with every call's outcome told to `health`. */
export function trackModelHealth(model: Model, health: Pick<ModelHealth, 'recordSuccess' | 'recordFailure'>): Model {
  return {
    name: model.name,
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      try {
        const turn = await model.createTurn(request);
        health.recordSuccess();
        return turn;
      } catch (error) {
        if (!request.signal.aborted) health.recordFailure(error);
        throw error;
      }
    },
  };
}
