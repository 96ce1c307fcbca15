/**
 * The tool registry and the ways to run a tool, after the gate has validated the call:
 * `runReadTool` (a read, with a read-only cluster), `runApprovedWrite` (a write, only with
 * the gate's `ApprovedAction`) and `dryRunWrite` (a write's server-side dry run). Each
 * answers an unknown name with the tools that exist, turns anything thrown into an
 * `internal` result, and passes every result through the redactor and the output budget.
 * None throws. Validation and the namespace allowlist are the gate's (src/gate/gate.ts), once.
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
import { listIngressesTool } from './list-ingresses.ts';
import { listNetworkPoliciesTool } from './list-network-policies.ts';
import { listRoleBindingsTool } from './list-role-bindings.ts';
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
import { readOnlyView } from '../cluster/cluster.ts';
import { isApprovedAction, type ApprovedAction } from '../gate/gate.ts';
import {
  isWriteTool,
  type AnyZodObject,
  type ReadTool,
  type ReadToolContext,
  type Tool,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
  type WriteTool,
} from './tool.ts';

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
  listIngressesTool,
  listHorizontalPodAutoscalersTool,
  listRoleBindingsTool,
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

/** The name of every shipped tool that changes the cluster. */
export type WriteToolName = Extract<ShippedTool, { risk: 'write' | 'destructive' }>['name'];

/** What a successful call of each tool returns as `data`, by name: derived from the tools themselves. */
export type ToolDataMap = {
  [T in ShippedTool as T['name']]: T extends Tool<AnyZodObject, infer Data, string> ? Data : never;
};

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

export interface RunReadToolRequest {
  registry: ToolRegistry;
  name: string;
  /** The input as the gate validated it (an `execute` decision's `input`): it is not parsed again here. */
  input: Record<string, unknown>;
  /** A read tool is handed only the read side of `context.cluster`, whatever that holds. */
  context: ReadToolContext;
}

export interface RunApprovedWriteRequest {
  registry: ToolRegistry;
  /** Made by the gate (`approve`) from a held call and a person's approval: names the tool and carries its validated input. */
  approved: ApprovedAction;
  context: ToolContext;
}

export interface DryRunWriteRequest {
  registry: ToolRegistry;
  name: string;
  /** The input as the gate validated it (a `hold` or `propose` decision's `input`). */
  input: Record<string, unknown>;
  context: ToolContext;
}

type Lookup<T extends Tool> = { ok: true; tool: T } | { ok: false; result: ToolResult };

function unknownTool(registry: ToolRegistry, name: string): ToolResult {
  const names = registry
    .list()
    .map((known) => known.name)
    .join(', ');
  return {
    ok: false,
    error: 'unknown-tool',
    content: `unknown-tool: there is no tool named "${name}". Tools that exist: ${names}.`,
  };
}

function stopped(): ToolResult {
  return {
    ok: false,
    error: 'timeout',
    content: 'timeout: the run was stopped before this call (deadline or cancellation).',
  };
}

function findReadTool(registry: ToolRegistry, name: string): Lookup<ReadTool> {
  const tool = registry.get(name);
  if (!tool) return { ok: false, result: unknownTool(registry, name) };
  if (tool.risk !== 'read') {
    return {
      ok: false,
      result: {
        ok: false,
        error: 'invalid-input',
        content: `invalid-input: ${name} changes the cluster (${tool.risk}); it runs only as an action a person approved, never as a read.`,
      },
    };
  }
  return { ok: true, tool };
}

function findWriteTool(registry: ToolRegistry, name: string): Lookup<WriteTool> {
  const tool = registry.get(name);
  if (!tool) return { ok: false, result: unknownTool(registry, name) };
  if (!isWriteTool(tool))
    return {
      ok: false,
      result: {
        ok: false,
        error: 'invalid-input',
        content: `invalid-input: ${name} is a read tool; only write tools have a dry run or an approval.`,
      },
    };
  return { ok: true, tool };
}

/** Redaction first, so the budget measures what the model will read. */
function finish(result: ToolResult, context: ReadToolContext): ToolResult {
  const content = redactText(result.content);
  if (!result.ok)
    return { ok: false, error: result.error, content: enforceBudget(content, context.outputBudgetBytes, '').content };
  const fitted = enforceBudget(
    content,
    context.outputBudgetBytes,
    'Narrow the request: a selector, a name, a container, a grep or a smaller tail.',
  );
  return {
    ok: true,
    content: fitted.content,
    ...(result.data !== undefined ? { data: redactValue(result.data) } : {}),
    truncated: result.truncated || fitted.truncated,
    observedAt: context.cluster.now().toISOString(),
  };
}

/** Runs the call unless the run was stopped, turns anything thrown into `internal`, and finishes the result. */
async function execute<T extends Tool>(input: {
  lookup: Lookup<T>;
  name: string;
  context: ReadToolContext;
  invoke: (tool: T) => Promise<ToolResult>;
}): Promise<ToolResult> {
  const { lookup, context } = input;
  if (!lookup.ok) return finish(lookup.result, context);
  if (context.signal.aborted) return finish(stopped(), context);
  try {
    return finish(await input.invoke(lookup.tool), context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish(
      {
        ok: false,
        error: 'internal',
        content: `internal: ${input.name} failed unexpectedly (${message}). Try another tool or other arguments.`,
      },
      context,
    );
  }
}

/**
 * Runs a read tool on the input the gate validated, with a read-only view of the cluster;
 * a write tool's name is refused. Never throws.
 */
export function runReadTool(request: RunReadToolRequest): Promise<ToolResult> {
  const context: ReadToolContext = { ...request.context, cluster: readOnlyView(request.context.cluster) };
  return execute({
    lookup: findReadTool(request.registry, request.name),
    name: request.name,
    context,
    invoke: (tool) => tool.run(request.input, context),
  });
}

/**
 * Runs the write a person approved: the tool the approval names, on the input the gate
 * validated (server-side dry run first, then the real call). A value the gate did not make
 * is refused. Never throws.
 */
export function runApprovedWrite(request: RunApprovedWriteRequest): Promise<ToolResult> {
  const { approved, context } = request;
  if (!isApprovedAction(approved)) {
    return Promise.resolve(
      finish(
        {
          ok: false,
          error: 'internal',
          content: 'internal: this write carries no approval made by the gate; it was not executed.',
        },
        context,
      ),
    );
  }
  return execute({
    lookup: findWriteTool(request.registry, approved.toolName),
    name: approved.toolName,
    context,
    invoke: (tool) => tool.run(approved, context),
  });
}

/**
 * Runs only the server-side dry run of a write tool (`dryRun=All`: validated, never
 * persisted), on the input the gate validated, with the same redaction and budget.
 * A read tool has nothing to rehearse: it answers `invalid-input`. Never throws.
 */
export function dryRunWrite(request: DryRunWriteRequest): Promise<ToolResult> {
  return execute({
    lookup: findWriteTool(request.registry, request.name),
    name: request.name,
    context: request.context,
    invoke: (tool) => tool.dryRun(request.input, request.context),
  });
}

/**
 * The registry one run offers, for every way a run starts: a real cluster's offers
 * list_secrets only when KUBEWHY_SECRET_KEYS allows it; a scenario's mock cluster holds no
 * Secret value (its Secrets are metadata), so it offers every tool.
 */
export function toolRegistryFor(source: { scenario: boolean; secretKeys: boolean }): ToolRegistry {
  return createToolRegistry(source.scenario ? defaultTools() : configuredTools({ secretKeys: source.secretKeys }));
}
