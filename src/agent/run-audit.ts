/**
 * The loop's view of the audit log: record an event of the current run. The loop records
 * as it goes, without waiting; the events are appended in order, one after another, and
 * `flush` waits for them. A failed append is never silent: every later `flush` throws it,
 * and nothing is appended after it, because an unaudited step is a defect. The loop
 * flushes before a write reaches the cluster; its caller flushes when the run ends.
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { AuditEventType } from '../audit/events.ts';
import { createOrderedWrites } from '../audit/ordered-writes.ts';

export interface RunAudit {
  record(type: AuditEventType, payload: Record<string, unknown>): void;
  /** Resolves once every event recorded so far is stored; rejects with the first append that failed. */
  flush(): Promise<void>;
}

/**
 * `alsoFlush`: other writes of the run that must be stored before a write runs (its
 * actions' statuses). `beforeFirst`: appended ahead of the first event (a chain's opening).
 */
export function auditFor(
  store: AuditStore,
  runId: string,
  options: {
    alsoFlush?: () => Promise<unknown>;
    beforeFirst?: (first: { payload: Record<string, unknown>; time: Date }) => Promise<unknown>;
  } = {},
): RunAudit {
  const writes = createOrderedWrites();
  let first = true;
  return {
    record(type, payload) {
      // The time is taken now, when the step happens, not when its append gets its turn.
      const time = new Date();
      const { beforeFirst } = options;
      if (first && beforeFirst) writes.add(() => beforeFirst({ payload, time }));
      first = false;
      writes.add(() => store.append({ runId, type, payload, time }));
    },
    async flush() {
      await writes.flush();
      await options.alsoFlush?.();
    },
  };
}

/** Keeps events in memory: for tests and for callers that audit elsewhere. */
export function createMemoryRunAudit(): RunAudit & {
  events: { type: AuditEventType; payload: Record<string, unknown> }[];
} {
  const events: { type: AuditEventType; payload: Record<string, unknown> }[] = [];
  return { events, record: (type, payload) => void events.push({ type, payload }), flush: () => Promise.resolve() };
}
