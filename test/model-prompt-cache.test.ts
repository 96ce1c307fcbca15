import assert from 'node:assert/strict';
import { test } from 'node:test';
import { weighUsage } from '../src/agent/stop-conditions.ts';
import { demoDiagnosis } from './helpers/fake-tools.ts';
import { pod, runClaude } from './helpers/model-run.ts';

const twoTurns = (usage: Record<string, unknown> = {}) => [
  { content: [{ type: 'tool_use' as const, id: 'toolu_01', name: 'describe_pod', input: pod }], usage },
  { content: [{ type: 'tool_use' as const, id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }] },
];

test('KUBEWHY_PROMPT_CACHE=1h marks the system prompt and the tools for the 1-hour cache; the newest message keeps the 5-minute one', async () => {
  const { api } = await runClaude(twoTurns(), { promptCache: '1h' });
  const body = api.requests[1]!.body;
  assert.deepEqual((body.system as { cache_control?: unknown }[])[0]!.cache_control, { type: 'ephemeral', ttl: '1h' });
  assert.deepEqual(body.tools!.at(-1)!.cache_control, { type: 'ephemeral', ttl: '1h' });
  assert.equal(body.tools!.filter((tool) => tool.cache_control).length, 1, 'one breakpoint caches the whole tool list');
  const newest = (body.messages.at(-1)!.content as { cache_control?: unknown }[]).at(-1)!;
  assert.deepEqual(newest.cache_control, { type: 'ephemeral' });
});

test('KUBEWHY_PROMPT_CACHE=off sends no cache_control at all', async () => {
  const { api } = await runClaude(twoTurns(), { promptCache: 'off' });
  for (const request of api.requests)
    assert.ok(!JSON.stringify(request.body).includes('cache_control'), 'no breakpoint anywhere');
});

test('the default is the 5-minute cache', async () => {
  const { api } = await runClaude(twoTurns());
  assert.deepEqual((api.requests[0]!.body.system as { cache_control?: unknown }[])[0]!.cache_control, {
    type: 'ephemeral',
  });
});

test('1-hour cache writes are recorded apart and weigh 2× an input token in the budget', async () => {
  const { outcome } = await runClaude(
    twoTurns({
      input_tokens: 1000,
      output_tokens: 0,
      cache_creation_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 3000 },
    }),
    { promptCache: '1h' },
  );
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.usage.cacheWrite, 3000);
  assert.equal(outcome.usage.cacheWrite1h, 3000);
  // The first turn: 1000 input + 3000 × 2; the second (the fake's default usage): 100 input + 20 output × 5.
  assert.equal(weighUsage(outcome.usage), 1000 + 6000 + 100 + 100);
});
