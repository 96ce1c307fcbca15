/**
 * The loop's view of the audit log: record an event of the current run. Recording never
 * fails a run silently: a store error propagates, because an unaudited step is a defect.
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { AuditEventType } from '../audit/events.ts';

export interface RunAudit {
  record(type: AuditEventType, payload: Record<string, unknown>): void;
}

export function auditFor(store: AuditStore, runId: string): RunAudit {
  return { record: (type, payload) => void store.append({ runId, type, payload }) };
}

/** Keeps events in memory: for tests and for callers that audit elsewhere. */
export function createMemoryRunAudit(): RunAudit & { events: { type: AuditEventType; payload: Record<string, unknown> }[] } {
  const events: { type: AuditEventType; payload: Record<string, unknown> }[] = [];
  return { events, record: (type, payload) => void events.push({ type, payload }) };
}
