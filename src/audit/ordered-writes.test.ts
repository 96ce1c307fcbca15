import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOrderedWrites } from './ordered-writes.ts';

test('writes are stored in the order they were made, however long each takes', async () => {
  const writes = createOrderedWrites();
  const stored: number[] = [];
  for (const [index, delayMs] of [20, 0, 5].entries())
    writes.add(() => new Promise<void>((resolve) => setTimeout(() => resolve(void stored.push(index)), delayMs)));
  await writes.flush();
  assert.deepEqual(stored, [0, 1, 2]);
});

test('a failed write is never silent, and nothing is written after it', async () => {
  const writes = createOrderedWrites();
  const stored: string[] = [];
  writes.add(async () => void stored.push('first'));
  writes.add(async () => {
    throw new Error('disk full');
  });
  writes.add(async () => void stored.push('after'));
  await assert.rejects(writes.flush(), /disk full/);
  writes.add(async () => void stored.push('later'));
  await assert.rejects(writes.flush(), /disk full/);
  assert.deepEqual(stored, ['first']);
});
