import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditEvent, AuditEventType } from '../audit/events.ts';
import { buildTrail } from './trail.ts';

function event(seq: number, type: AuditEventType, payload: Record<string, unknown>): AuditEvent {
  return { runId: 'r', seq, time: `2026-12-01T00:00:0${seq}Z`, type, payload, prevHash: '', hash: '' };
}

test('each tool call is joined to its gate decision and result by callId, in the order called', () => {
  const trail = buildTrail([
    event(1, 'run-created', {}),
    event(2, 'tool-call', {
      callId: 'c1',
      tool: 'describe_pod',
      args: { namespace: 'staging', name: 'p' },
      risk: 'read',
    }),
    event(3, 'gate-decision', { callId: 'c1', decision: 'execute' }),
    event(4, 'tool-call', {
      callId: 'c2',
      tool: 'rollout_undo',
      args: { namespace: 'staging', name: 'checkout-api' },
      risk: 'write',
    }),
    event(5, 'gate-decision', { callId: 'c2', decision: 'hold' }),
    event(6, 'tool-result', {
      callId: 'c1',
      tool: 'describe_pod',
      bytes: 2048,
      truncated: true,
      durationMs: 12,
      content: '...',
    }),
    event(7, 'tool-call', {
      callId: 'c3',
      tool: 'describe_pod',
      args: { namespace: 'staging', name: 'p' },
      repeatOf: 'c1',
    }),
  ]);
  assert.deepEqual(
    trail.map((entry) => [
      entry.tool,
      entry.risk,
      entry.decision,
      entry.result?.bytes,
      entry.result?.truncated,
      entry.repeatOf,
    ]),
    [
      ['describe_pod', 'read', 'execute', 2048, true, undefined],
      ['rollout_undo', 'write', 'hold', undefined, undefined, undefined],
      ['describe_pod', undefined, undefined, undefined, undefined, 'c1'],
    ],
  );
});

test('inputs and errors pass the redactor again', () => {
  const [entry] = buildTrail([
    event(1, 'tool-call', {
      callId: 'c1',
      tool: 'pod_logs',
      args: { note: 'password=Sup3rS3cretValue99' },
      risk: 'read',
    }),
    event(2, 'tool-result', {
      callId: 'c1',
      bytes: 10,
      error: 'failed: token=ghp_0123456789abcdefghijABCDEFGHIJ012345',
    }),
  ]);
  assert.doesNotMatch(JSON.stringify(entry), /Sup3rS3cretValue99|ghp_0123/);
});
