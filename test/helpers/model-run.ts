/**
 * One agent run with Claude through the real SDK against the fake Messages API, or with
 * any model (`runAgentWith`): the recording tools, the OBSERVE rung, an in-memory audit.
 * Servers started here close when the test file ends.
 */
import { after } from 'node:test';
import type { Logger } from 'pino';
import { createAnthropicModel, type PromptCache } from '../../src/agent/models/anthropic-model.ts';
import { runAgent, type RunOutcome } from '../../src/agent/loop.ts';
import type { Model } from '../../src/agent/model.ts';
import { createMemoryRunAudit } from '../../src/agent/run-audit.ts';
import { createToolRegistry } from '../../src/tools/registry.ts';
import {
  startFakeMessagesApi,
  type FakeMessagesApi,
  type RecordedRequest,
  type ScriptedAnswer,
} from './fake-messages-api.ts';
import { createRecordingTools, unusedCluster, type RecordingTools } from './fake-tools.ts';

const servers: FakeMessagesApi[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

export interface ClaudeRunOptions {
  maxSteps?: number;
  maxRetries?: number;
  tokenBudget?: number;
  promptCache?: PromptCache;
  model?: string;
  logger?: Logger;
  attempt?: number;
}

export interface ClaudeRun extends LoopRun {
  api: FakeMessagesApi;
}

export async function runClaude(
  script: ScriptedAnswer[] | ((request: RecordedRequest, index: number) => ScriptedAnswer),
  options: ClaudeRunOptions = {},
): Promise<ClaudeRun> {
  const api = await startFakeMessagesApi(script);
  servers.push(api);
  const model = createAnthropicModel({
    apiKey: 'sk-ant-test-key-not-real',
    model: options.model ?? 'claude-test',
    baseUrl: api.url,
    maxRetries: options.maxRetries ?? 0,
    timeoutMs: 5000,
    ...(options.promptCache ? { promptCache: options.promptCache } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const run = await runAgentWith(model, { runId: 'run-claude', ...options });
  return { api, ...run };
}

export interface LoopRun {
  outcome: RunOutcome;
  recording: RecordingTools;
  audit: ReturnType<typeof createMemoryRunAudit>;
}

/** One run of the real agent loop with any model: the recording tools, the OBSERVE rung, an in-memory audit, the crash-looping checkout-api alert. */
export async function runAgentWith(
  model: Model,
  options: { runId?: string; maxSteps?: number; tokenBudget?: number; attempt?: number; actNamespaces?: string[] } = {},
): Promise<LoopRun> {
  const recording = createRecordingTools();
  const audit = createMemoryRunAudit();
  const outcome = await runAgent({
    runId: options.runId ?? 'run-model',
    trigger: {
      kind: 'alert',
      alert: { labels: { alertname: 'KubePodCrashLooping', namespace: 'staging', pod: pod.name }, annotations: {} },
    },
    rung: 'OBSERVE',
    model,
    registry: createToolRegistry(recording.tools),
    cluster: unusedCluster,
    policy: { actNamespaces: options.actNamespaces ?? [] },
    audit,
    limits: {
      maxSteps: options.maxSteps ?? 6,
      tokenBudget: options.tokenBudget ?? 1_000_000,
      timeoutMs: 20_000,
      approvalTtlMs: 1000,
      toolOutputBytes: 8192,
    },
    ...(options.attempt ? { attempt: options.attempt } : {}),
  });
  return { outcome, recording, audit };
}

export const pod = { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q' };
