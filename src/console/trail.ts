/**
 * A run's trail: each tool call of its audit log (`tool-call` events) joined by `callId`
 * to the `tool-result` that answered it, with the tool, its risk, its input and the size
 * of what it returned. Payloads pass the redactor again on the way to the page.
 */
import type { AuditEvent } from '../audit/events.ts';
import { redactText, redactValue } from '../redact/redactor.ts';

export interface TrailEntry {
  seq: number;
  time: string;
  callId: string;
  tool: string;
  /** read, write, destructive, unknown; absent for a repeat, which is not classified again. */
  risk?: string;
  input: unknown;
  /** The earlier identical call this one repeated (nothing was fetched again). */
  repeatOf?: string;
  /** How the gate decided: execute, propose, hold, refuse. */
  decision?: string;
  result?: { bytes: number; truncated: boolean; durationMs?: number; error?: string };
}

export function buildTrail(events: readonly AuditEvent[]): TrailEntry[] {
  const entries: TrailEntry[] = [];
  const byCall = new Map<string, TrailEntry>();
  for (const event of events) {
    const payload = event.payload;
    const callId = typeof payload.callId === 'string' ? payload.callId : undefined;
    if (event.type === 'tool-call') {
      const entry: TrailEntry = {
        seq: event.seq,
        time: event.time,
        callId: callId ?? '',
        tool: typeof payload.tool === 'string' ? redactText(payload.tool) : 'unknown',
        ...(typeof payload.risk === 'string' ? { risk: payload.risk } : {}),
        input: redactValue(payload.args ?? {}),
        ...(typeof payload.repeatOf === 'string' ? { repeatOf: payload.repeatOf } : {}),
      };
      entries.push(entry);
      // A repeat shares its callId with no other event; the first call with an id keeps its result.
      if (callId && !byCall.has(callId)) byCall.set(callId, entry);
      continue;
    }
    const entry = callId ? byCall.get(callId) : undefined;
    if (!entry) continue;
    if (event.type === 'gate-decision' && typeof payload.decision === 'string') entry.decision = payload.decision;
    if (event.type === 'tool-result') {
      entry.result = {
        bytes: typeof payload.bytes === 'number' ? payload.bytes : 0,
        truncated: payload.truncated === true,
        ...(typeof payload.durationMs === 'number' ? { durationMs: payload.durationMs } : {}),
        ...(typeof payload.error === 'string' ? { error: redactText(payload.error) } : {}),
      };
    }
  }
  return entries;
}
