/**
 * `createMcpServer`: kubewhy's tools as an MCP server named `kubewhy`, over any transport.
 *
 * - Every read tool, with the description and JSON schema the model is given (`toolSpec`),
 *   called through the agent's path (session.ts): the gate validates, output is redacted and
 *   bounded to `toolOutputBytes` exactly as the model reads it.
 * - Every write and destructive tool, as a proposal only: the session sits at OBSERVE, so
 *   the gate records it as proposed and nothing runs. Where the caller may hold writes
 *   (`hold`, served with the `act` scope), a call the gate would hold at ACT is held in a run
 *   of its own for a person to approve through the API (hold-run.ts).
 * - `diagnose`: a run for a sentence, answered with its diagnosis.
 *
 * The tool handlers sit on the underlying `Server` (`tools/list`, `tools/call`), not on
 * `registerTool`: `registerTool` would validate arguments with the SDK before the handler,
 * so an invalid call would never reach the gate or the audit log. Here every call, valid or
 * not, goes through the gate and is audited, and a failure is a tool result with `isError`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Diagnosis } from '../agent/diagnosis.ts';
import { formatCulprit } from '../agent/diagnosis.ts';
import type { Scope } from '../server/auth.ts';
import { toolSpec, type ToolRegistry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import type { HoldOutcome } from './hold-run.ts';
import type { McpClient, McpSession } from './session.ts';

export const DIAGNOSE_TOOL = 'diagnose';

/**
 * How long `diagnose` waits for its run before it answers with the run's state and where to
 * follow it: under the 60 s an MCP client waits for an answer by default (the SDK's
 * DEFAULT_REQUEST_TIMEOUT_MSEC). The run goes on either way.
 */
export const DIAGNOSE_WAIT_MS = 55_000;

const diagnoseInput = z.object({
  text: z
    .string()
    .min(1)
    .max(4000)
    .describe('What is wrong, as a person on call would say it: "checkout-api in staging keeps restarting"'),
  namespace: z.string().min(1).max(63).optional().describe('The namespace the incident is about, when known'),
});

/** What a finished (or still running) diagnose run answers. */
export interface DiagnoseAnswer {
  runId: string;
  status: string;
  diagnosis?: Diagnosis;
  reason?: string;
}

export interface McpServerDependencies {
  registry: ToolRegistry;
  session: McpSession;
  version: string;
  /** Who calls: a token identity, or `stdio` (the client's name and version, from its initialize request, are added here). */
  identity: string;
  /** Undefined when the caller may make a call that needs `scope`, else why not (naming the scope). Absent: every call allowed (stdio). */
  authorize?: (scope: Scope) => string | undefined;
  /** Runs a diagnosis of the sentence and answers when it ends, or with its state after DIAGNOSE_WAIT_MS. */
  diagnose(input: { text: string; namespace?: string }, signal: AbortSignal): Promise<DiagnoseAnswer>;
  /** Holds a write the gate would hold at ACT, in a run a person decides; absent, writes are only proposed. */
  hold?: (request: {
    name: string;
    arguments: unknown;
    client: McpClient;
    signal: AbortSignal;
  }) => Promise<HoldOutcome>;
  /** How a person finds a run: `GET /v1/runs/<id>`, or the audit command at a terminal. */
  whereIsRun(runId: string): string;
  /** How a person reads an audit chain that is not a run of the API (the session's): default `whereIsRun`. */
  whereIsAudit?: (runId: string) => string;
}

export function createMcpServer(dependencies: McpServerDependencies): McpServer {
  const { registry, session } = dependencies;
  const server = new McpServer({ name: 'kubewhy', version: dependencies.version }, { instructions: INSTRUCTIONS });
  server.server.registerCapabilities({ tools: {} });
  const tools: McpTool[] = [...registry.list().map(describeTool), describeDiagnose()];

  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    // A defect is still answered as a tool result, never as a protocol error the client's model cannot read.
    // The client hears the answer once the call is in the audit log.
    return callTool(request.params, extra.signal)
      .then(async (result) => {
        await session.flush();
        return result;
      })
      .catch((error: unknown) =>
        errorResult(
          `internal: ${request.params.name} failed unexpectedly (${error instanceof Error ? error.message : String(error)}). Nothing was executed.`,
        ),
      );
  });

  const callTool = async (
    params: { name: string; arguments?: Record<string, unknown> | undefined },
    signal: AbortSignal,
  ): Promise<CallToolResult> => {
    const { name } = params;
    const rawInput = params.arguments ?? {};
    const version = server.server.getClientVersion();
    const client: McpClient = {
      identity: dependencies.identity,
      ...(version ? { name: version.name, version: version.version } : {}),
    };
    if (name === DIAGNOSE_TOOL) return callDiagnose({ dependencies, client, rawInput, signal });

    const tool = registry.get(name);
    const needed: Scope = tool && tool.risk !== 'read' ? 'act' : 'read';
    const refusal = dependencies.authorize?.(needed);
    if (refusal) {
      session.record(client, 'tool-call', {
        tool: name,
        args: rawInput,
        risk: tool?.risk ?? 'unknown',
        refused: refusal,
      });
      return errorResult(refusal);
    }
    if (tool && tool.risk !== 'read' && dependencies.hold) {
      const outcome = await dependencies.hold({ name, arguments: rawInput, client, signal });
      if ('runId' in outcome) {
        session.record(client, 'tool-call', { tool: name, args: rawInput, risk: tool.risk, heldIn: outcome.runId });
        if (!outcome.held)
          return errorResult(
            `Nothing was executed. ${outcome.result.content} (run ${outcome.runId}: ${dependencies.whereIsRun(outcome.runId)})`,
          );
        return textResult(
          `Nothing was executed. ${name} is held for a person's approval as action ${outcome.actionId} of run ${outcome.runId}, which now awaits approval: ` +
            `${dependencies.whereIsRun(outcome.runId)}. A person approves it (POST /v1/runs/${outcome.runId}/actions/${outcome.actionId}/approve, or the console) or rejects it; ` +
            'only then, after the gate checks it again and a server-side dry run passes, does it run.',
        );
      }
    }
    const result = await session.call({ name, arguments: rawInput, client, signal });
    if (!result.ok) return errorResult(result.content);
    if (tool && tool.risk !== 'read') {
      return textResult(
        `Nothing was executed. ${result.content} It is recorded in the audit log of MCP session ${session.runId}: ${(dependencies.whereIsAudit ?? dependencies.whereIsRun)(session.runId)}.`,
      );
    }
    return textResult(result.content);
  };
  return server;
}

async function callDiagnose(input: {
  dependencies: McpServerDependencies;
  client: McpClient;
  rawInput: Record<string, unknown>;
  signal: AbortSignal;
}): Promise<CallToolResult> {
  const { dependencies, client, rawInput } = input;
  const { session } = dependencies;
  const refusal = dependencies.authorize?.('ingest');
  const parsed = diagnoseInput.safeParse(rawInput);
  session.record(client, 'tool-call', {
    tool: DIAGNOSE_TOOL,
    args: rawInput,
    risk: 'read',
    ...(refusal ? { refused: refusal } : {}),
  });
  if (refusal) return errorResult(refusal);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
      .join('; ');
    const message = `Invalid arguments for ${DIAGNOSE_TOOL}: ${problems}. It takes: text, namespace.`;
    session.record(client, 'tool-result', { tool: DIAGNOSE_TOOL, error: 'invalid-input', content: message });
    return errorResult(message);
  }
  const { text, namespace } = parsed.data;
  const answer = await input.dependencies.diagnose({ text, ...(namespace ? { namespace } : {}) }, input.signal);
  session.record(client, 'tool-result', {
    tool: DIAGNOSE_TOOL,
    runId: answer.runId,
    status: answer.status,
    ...(answer.diagnosis ? { category: answer.diagnosis.category } : {}),
  });
  const body = {
    runId: answer.runId,
    status: answer.status,
    ...(answer.reason ? { reason: answer.reason } : {}),
    ...(answer.diagnosis
      ? {
          category: answer.diagnosis.category,
          culprit: formatCulprit(answer.diagnosis.culprit),
          summary: answer.diagnosis.summary,
          evidence: answer.diagnosis.evidence,
          confidence: answer.diagnosis.confidence,
          proposedActions: answer.diagnosis.actions.map((action) => ({
            id: action.id,
            tool: action.tool,
            args: action.args,
            risk: action.risk,
            status: action.status,
          })),
        }
      : {}),
    where: dependencies.whereIsRun(answer.runId),
  };
  const answered = JSON.stringify(body, null, 2);
  if (!answer.diagnosis)
    return {
      content: [
        {
          type: 'text',
          text:
            answer.status === 'failed' ? answered : `Still diagnosing (the run goes on); follow it there.\n${answered}`,
        },
      ],
      isError: answer.status === 'failed',
    };
  return textResult(answered);
}

function describeTool(tool: Tool): McpTool {
  const inputSchema = toolSpec(tool).input_schema as McpTool['inputSchema'];
  if (tool.risk === 'read') {
    return {
      name: tool.name,
      description: tool.description,
      inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
  }
  return {
    name: tool.name,
    description:
      `PROPOSAL ONLY (${tool.risk}): calling this never changes the cluster. kubewhy's gate records it as a proposed action, or, for a token with the act scope ` +
      `in a namespace where ACT is allowed, holds it for a person to approve through kubewhy's API. ${tool.description}`,
    inputSchema,
    annotations: { readOnlyHint: false, destructiveHint: tool.risk === 'destructive', openWorldHint: false },
  };
}

function describeDiagnose(): McpTool {
  const { $schema: _schema, ...schema } = z.toJSONSchema(diagnoseInput, { io: 'input' }) as Record<string, unknown>;
  return {
    name: DIAGNOSE_TOOL,
    description:
      "Starts a kubewhy diagnosis of an incident described in words and answers with its diagnosis when it ends: category, culprit, summary, evidence, confidence, the actions it proposes, and the run's id. " +
      'Takes up to a few minutes. Use it first when you do not know why something is failing.',
    inputSchema: { ...schema, type: 'object' } as McpTool['inputSchema'],
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

const INSTRUCTIONS =
  'kubewhy diagnoses Kubernetes incidents. Read tools observe the cluster (Secret values never appear; output is bounded). ' +
  'Write tools never execute here: they are recorded as proposals, or held for a person to approve. Start with diagnose.';
