import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRunId } from './run-ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a run id is a version 7 UUID whose first 48 bits are its creation time', () => {
  const at = new Date('2026-12-02T02:30:00.123Z');
  const id = newRunId(at);
  assert.match(id, UUID_V7);
  assert.equal(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16), at.getTime());
});

test('run ids sort by creation time and do not repeat', () => {
  const start = Date.parse('2026-12-02T00:00:00Z');
  const ids = Array.from({ length: 2000 }, (_unused, index) => newRunId(new Date(start + index)));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  const sameMillisecond = Array.from({ length: 2000 }, () => newRunId(new Date(start)));
  assert.equal(new Set(sameMillisecond).size, sameMillisecond.length);
  for (const id of sameMillisecond) assert.match(id, UUID_V7);
});
