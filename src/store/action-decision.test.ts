import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Action } from '../agent/diagnosis.ts';
import { planDecision } from './action-decision.ts';
import type { RunRecord } from './ports.ts';

const held = (id: string, status: Action['status'] = 'awaiting_approval'): Action =>
  ({
    id,
    tool: 'rollout_undo',
    args: { namespace: 'shop', name: 'web' },
    risk: 'write',
    status,
    reason: 'the newest revision broke it',
  }) as Action;
const parked = (actions: Action[]): RunRecord =>
  ({ id: 'run-1', status: 'awaiting_approval', parked: true, actions }) as unknown as RunRecord;
const now = new Date('2026-12-07T10:00:00Z');

test('a decision on the last held action of a parked run stamps it and lets the run resume', () => {
  const planned = planDecision(parked([held('a')]), {
    actionId: 'a',
    decision: 'approved',
    by: 'alice',
    reason: 'ok',
    now,
  });
  assert.equal(planned.outcome, 'decided');
  if (planned.outcome !== 'decided') return;
  assert.equal(planned.resumable, true);
  assert.equal(planned.status, 'queued');
  assert.deepEqual(
    [
      planned.action.status,
      planned.action.decidedBy,
      planned.action.decisionReason,
      planned.action.reason,
      planned.action.decidedAt,
    ],
    ['approved', 'alice', 'ok', 'the newest revision broke it', '2026-12-07T10:00:00.000Z'],
  );
});

test('a run keeps waiting while another action awaits a decision; a decided or unknown action is not decided again', () => {
  const two = planDecision(parked([held('a'), held('b')]), { actionId: 'a', decision: 'rejected', now });
  assert.ok(two.outcome === 'decided' && !two.resumable && two.status === 'awaiting_approval');
  assert.deepEqual(planDecision(parked([held('a', 'approved')]), { actionId: 'a', decision: 'rejected', now }), {
    outcome: 'not-pending',
    status: 'approved',
  });
  assert.deepEqual(planDecision(parked([held('a')]), { actionId: 'x', decision: 'approved', now }), {
    outcome: 'not-found',
  });
  assert.deepEqual(planDecision(undefined, { actionId: 'a', decision: 'approved', now }), { outcome: 'not-found' });
  // A run that is not parked (no checkpoint) cannot take a decision yet.
  assert.equal(
    planDecision({ ...parked([held('a')]), parked: false } as RunRecord, { actionId: 'a', decision: 'approved', now })
      .outcome,
    'not-pending',
  );
});
