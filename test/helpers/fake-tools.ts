/**
 * In-memory tools and a scripted model for loop and gate tests: the tools record what
 * they were asked in domain terms, the model plays a fixed list of turns.
 */
import { z } from 'zod';
import type { Model, ModelRequest, ModelTurn, ToolCall } from '../../src/agent/model.ts';
import type { ReadTool, Tool, ToolResult, WriteTool } from '../../src/tools/tool.ts';
import type { Cluster } from '../../src/cluster/cluster.ts';

export interface RecordingTools {
  tools: Tool[];
  /** Every executed call: `tool namespace/name`. */
  executed: string[];
}

const target = z.object({
  namespace: z.string().describe('The namespace'),
  name: z.string().describe('The object name'),
});

export function createRecordingTools(): RecordingTools {
  const executed: string[] = [];
  type Answer = (input: z.infer<typeof target>) => ToolResult;
  const makeRead = (name: string, answer: Answer): ReadTool<typeof target> => ({
    name,
    description: `${name} (test double)`,
    input: target,
    risk: 'read',
    run: async (input) => {
      executed.push(`${name} ${input.namespace}/${input.name}`);
      return answer(input);
    },
  });
  // A write double runs only with the gate's approval, as a real write tool does.
  const makeWrite = (name: string, risk: WriteTool['risk'], answer: Answer): WriteTool<typeof target> => ({
    name,
    description: `${name} (test double)`,
    input: target,
    risk,
    run: async (approved) => {
      executed.push(`${name} ${approved.input.namespace}/${approved.input.name}`);
      return answer(approved.input);
    },
    dryRun: async (input) => ({
      ok: true,
      truncated: false,
      content: `dry run of ${name} ${input.namespace}/${input.name} passed`,
      data: {
        action: name,
        kind: 'Deployment',
        namespace: input.namespace,
        name: input.name,
        dryRun: true,
        diff: [`${name} ${input.namespace}/${input.name}: app: image shop/checkout:1.5.0 → shop/checkout:1.4.2`],
      },
    }),
  });
  const tools = [
    makeRead('describe_pod', (input) => ({
      ok: true,
      truncated: false,
      content: `pod ${input.name}: CrashLoopBackOff`,
      data: { name: input.name },
    })),
    makeRead('get_pod_logs', () => ({
      ok: true,
      truncated: false,
      content: 'FATAL: password authentication failed for user "checkout"',
    })),
    makeWrite('rollout_undo', 'write', (input) => ({
      ok: true,
      truncated: false,
      content: `rolled back deployment ${input.namespace}/${input.name}`,
    })),
    makeWrite('delete_pod', 'destructive', (input) => ({
      ok: true,
      truncated: false,
      content: `deleted pod ${input.namespace}/${input.name}`,
    })),
  ] as Tool[];
  return { tools, executed };
}

/** A cluster that no test double touches: the recording tools never call it. */
export const unusedCluster = new Proxy({} as Cluster, {
  get: (_target, property) => {
    if (property === 'now') return () => new Date();
    throw new Error(`the test cluster was asked for ${String(property)}`);
  },
});

export interface ScriptedModel extends Model {
  requests: ModelRequest[];
}

/** Plays `turns` in order; a turn is a list of tool calls (ids are made up) or text. */
export function createScriptedModel(turns: (ToolCall[] | string)[]): ScriptedModel {
  const requests: ModelRequest[] = [];
  return {
    name: 'scripted',
    requests,
    async createTurn(request): Promise<ModelTurn> {
      // The loop keeps appending to its transcript: keep what this turn saw.
      requests.push({ ...request, transcript: [...request.transcript] });
      const turn = turns[requests.length - 1] ?? 'I have nothing more to say.';
      const usage = { input: 50, output: 10, cacheRead: 0, cacheWrite: 0 };
      if (typeof turn === 'string') return { text: turn, calls: [], stopReason: 'end_turn', usage };
      return { text: '', calls: turn, stopReason: 'tool_use', usage };
    },
  };
}

export const demoDiagnosis = {
  category: 'bad-credentials',
  culprit: { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' },
  summary: 'checkout-api crash-loops since revision 4: the database refuses its password.',
  evidence: ['previous log: FATAL: password authentication failed for user "checkout"'],
  confidence: 'high',
} as const;
