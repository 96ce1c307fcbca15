/**
 * The tool registry and the one way to run a tool: `runTool` validates the input with the
 * tool's zod schema, enforces the namespace allowlist before any cluster call, answers an
 * unknown name with the tools that exist, turns anything thrown into an `internal` result,
 * and passes every result through the redactor and the output budget. It never throws.
 */
import { z } from 'zod';
import { redactText, redactValue } from '../redact/redactor.ts';
import { enforceBudget } from './format/budget.ts';
import { deletePodTool } from './delete-pod.ts';
import { describeDeploymentTool } from './describe-deployment.ts';
import { describePodTool } from './describe-pod.ts';
import { describeServiceTool } from './describe-service.ts';
import { listConfigMapsTool } from './list-config-maps.ts';
import { listCronJobsTool } from './list-cron-jobs.ts';
import { listDaemonSetsTool } from './list-daemon-sets.ts';
import { listDeploymentsTool } from './list-deployments.ts';
import { listEventsTool } from './list-events.ts';
import { listJobsTool } from './list-jobs.ts';
import { listNetworkPoliciesTool } from './list-network-policies.ts';
import { listHorizontalPodAutoscalersTool } from './list-horizontal-pod-autoscalers.ts';
import { listNodesTool } from './list-nodes.ts';
import { listPersistentVolumeClaimsTool } from './list-persistent-volume-claims.ts';
import { listPodsTool } from './list-pods.ts';
import { listReplicaSetsTool } from './list-replica-sets.ts';
import { listResourceQuotasTool } from './list-resource-quotas.ts';
import { listSecretsTool } from './list-secrets.ts';
import { listServicesTool } from './list-services.ts';
import { listStatefulSetsTool } from './list-stateful-sets.ts';
import { listStorageClassesTool } from './list-storage-classes.ts';
import { podLogsTool } from './pod-logs.ts';
import { resolveHostTool } from './resolve-host.ts';
import { rolloutHistoryTool } from './rollout-history.ts';
import { rolloutRestartTool } from './rollout-restart.ts';
import { rolloutUndoTool } from './rollout-undo.ts';
import { scaleTool } from './scale.ts';
import type { AnyZodObject, Tool, ToolContext, ToolResult, ToolSpec } from './tool.ts';
import { isWriteTool } from './write-tool.ts';

export interface ToolRegistry {
  list(): Tool[];
  get(name: string): Tool | undefined;
  /** What the model is given: name, description and JSON schema of every tool, in registry order. */
  specs(): ToolSpec[];
}

/** Every tool kubewhy ships, reads first, then writes; each keeps its literal name and data type. */
const SHIPPED_TOOLS = [
    listPodsTool,
    describePodTool,
    podLogsTool,
    listEventsTool,
    listDeploymentsTool,
    describeDeploymentTool,
    rolloutHistoryTool,
    listReplicaSetsTool,
    listStatefulSetsTool,
    listDaemonSetsTool,
    listJobsTool,
    listCronJobsTool,
    listNodesTool,
    listServicesTool,
    describeServiceTool,
    resolveHostTool,
    listConfigMapsTool,
    listSecretsTool,
    listPersistentVolumeClaimsTool,
    listStorageClassesTool,
    listResourceQuotasTool,
    listNetworkPoliciesTool,
    listHorizontalPodAutoscalersTool,
    rolloutRestartTool,
    rolloutUndoTool,
    scaleTool,
    deletePodTool,
  ] as const;

/** Every tool kubewhy ships: reads first, then writes. */
export function defaultTools(): Tool[] {
  return [...SHIPPED_TOOLS] as Tool[];
}

type ShippedTool = (typeof SHIPPED_TOOLS)[number];

/** The name of every tool kubewhy ships. */
export type ToolName = ShippedTool['name'];

/** What a successful call of each tool returns as `data`, by name: derived from the tools themselves. */
export type ToolDataMap = { [T in ShippedTool as T['name']]: T extends Tool<AnyZodObject, infer Data, string> ? Data : never };

/** The arguments each tool takes, by name, as its schema accepts them. */
export type ToolInputMap = { [T in ShippedTool as T['name']]: z.input<T['input']> };

/**
 * The tools a deployment offers: every tool, less `list_secrets` unless Secret metadata
 * was granted (KUBEWHY_SECRET_KEYS, with the chart's matching RBAC value). A tool the
 * cluster would refuse is not advertised to the model.
 */
export function configuredTools(options: { secretKeys: boolean }): Tool[] {
  return defaultTools().filter((tool) => options.secretKeys || tool.name !== listSecretsTool.name);
}

/** The Messages API `tools` entry for a tool: risk and run stay in the process. */
export function toolSpec(tool: Tool): ToolSpec {
  const { $schema: _schema, ...schema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, input_schema: { ...schema, type: 'object' } };
}

export function createToolRegistry(tools: readonly Tool[] = defaultTools()): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
    byName.set(tool.name, tool);
  }
  const specs = [...byName.values()].map(toolSpec);
  return {
    list: () => [...byName.values()],
    get: (name) => byName.get(name),
    specs: () => specs,
  };
}

export interface RunToolRequest {
  registry: ToolRegistry;
  name: string;
  input: unknown;
  context: ToolContext;
}

type Prepared = { ok: true; tool: Tool; input: Record<string, unknown> } | { ok: false; result: ToolResult };

/** Looks the tool up, validates the input and checks the namespace: everything that happens before a cluster call. */
function prepare(request: RunToolRequest): Prepared {
  const tool = request.registry.get(request.name);
  if (!tool) {
    const names = request.registry.list().map((known) => known.name).join(', ');
    return { ok: false, result: { ok: false, error: 'unknown-tool', content: `unknown-tool: there is no tool named "${request.name}". Tools that exist: ${names}.` } };
  }
  const parsed = tool.input.safeParse(request.input ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
    const fields = Object.keys(tool.input.shape).join(', ');
    return { ok: false, result: { ok: false, error: 'invalid-input', content: `invalid-input: bad arguments for ${tool.name}: ${problems}. It takes: ${fields}.` } };
  }
  const input = parsed.data as Record<string, unknown>;
  const allowed = request.context.allowedNamespaces;
  if (allowed && typeof input.namespace === 'string' && !allowed.includes(input.namespace)) {
    return {
      ok: false,
      result: { ok: false, error: 'namespace-not-allowed', content: `namespace-not-allowed: namespace "${input.namespace}" is outside this run's allowlist (${allowed.join(', ') || 'none'}).` },
    };
  }
  if (request.context.signal.aborted) {
    return { ok: false, result: { ok: false, error: 'timeout', content: 'timeout: the run was stopped before this call (deadline or cancellation).' } };
  }
  return { ok: true, tool, input };
}

/** Redaction first, so the budget measures what the model will read. */
function finish(result: ToolResult, context: ToolContext): ToolResult {
  const content = redactText(result.content);
  if (!result.ok) return { ok: false, error: result.error, content: enforceBudget(content, context.outputBudgetBytes, '').content };
  const fitted = enforceBudget(content, context.outputBudgetBytes, 'Narrow the request: a selector, a name, a container, a grep or a smaller tail.');
  return {
    ok: true,
    content: fitted.content,
    ...(result.data !== undefined ? { data: redactValue(result.data) } : {}),
    truncated: result.truncated || fitted.truncated,
    observedAt: context.cluster.now().toISOString(),
  };
}

async function execute(request: RunToolRequest, invoke: (tool: Tool, input: Record<string, unknown>) => Promise<ToolResult>): Promise<ToolResult> {
  const prepared = prepare(request);
  if (!prepared.ok) return finish(prepared.result, request.context);
  try {
    return finish(await invoke(prepared.tool, prepared.input), request.context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish({ ok: false, error: 'internal', content: `internal: ${request.name} failed unexpectedly (${message}). Try another tool or other arguments.` }, request.context);
  }
}

/** Runs one tool call end to end; never throws. */
export function runTool(request: RunToolRequest): Promise<ToolResult> {
  return execute(request, (tool, input) => tool.run(input, request.context));
}

/**
 * Runs only the server-side dry run of a write tool (`dryRun=All`: validated, never
 * persisted), under the same validation, allowlist, redaction and budget as `runTool`.
 * A read tool has nothing to rehearse: it answers `invalid-input`.
 */
export function dryRunTool(request: RunToolRequest): Promise<ToolResult> {
  return execute(request, async (tool, input) => {
    if (!isWriteTool(tool)) return { ok: false, error: 'invalid-input', content: `invalid-input: ${tool.name} is a read tool; only write tools have a dry run.` };
    return tool.dryRun(input, request.context);
  });
}
