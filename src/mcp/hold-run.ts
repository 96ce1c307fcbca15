/**
 * A write an MCP client asks for, held for a person's approval in a run of its own: the
 * run's trigger is the MCP request, its rung ACT (the caller's token carries `act`), and it
 * is parked exactly as the loop parks a run whose held actions wait (checkpoint `diagnosed`,
 * status `awaiting_approval`). From there the run service owns it: a person approves or
 * rejects through the API or the console, the run resumes through `executeRun`, and the gate
 * decides the stored call again before the write (dry run first) runs. Nothing here executes
 * a write: `executeToolCall` holds it, `prepareApprovals` dry-runs it (`dryRun=All`).
 *
 * The gate decides first (`decideToolCall` at ACT, under the service's policy): only a call
 * it would hold gets a run; anything else (a proposal, a refusal) is the caller's to answer.
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { Action, DiagnosisInput } from '../agent/diagnosis.ts';
import { prepareApprovals } from '../agent/held-actions.ts';
import { ZERO_USAGE, type ToolCall } from '../agent/model.ts';
import type { RunCheckpoint } from '../agent/checkpoint.ts';
import { auditFor } from '../agent/run-audit.ts';
import { createOrderedWrites } from '../audit/ordered-writes.ts';
import { executeToolCall, type CallEnvironment } from '../agent/tool-calls.ts';
import { describeTrigger, type Trigger } from '../agent/trigger.ts';
import { decideToolCall } from '../gate/gate.ts';
import { redactValue } from '../redact/redactor.ts';
import { storeParked, type AgentDependencies } from '../runs/execute-run.ts';
import { createRunLifecycle } from '../runs/lifecycle.ts';
import { ensureRunCreated } from '../runs/run-created.ts';
import { newRunId } from '../store/run-ids.ts';
import type { RunStore } from '../store/ports.ts';
import type { ToolResult } from '../tools/tool.ts';
import type { McpClient } from './session.ts';

export interface HoldRunDependencies {
  store: RunStore;
  audit: AuditStore;
  agent: AgentDependencies;
  /** Replicas sharing a database: the run is leased to this one while the action is put to a person. */
  lease?: { owner: string; ms: number };
}

export type HoldOutcome =
  /** The gate would not hold it (it proposes or refuses): no run was made. */
  | { held: false }
  | { held: true; runId: string; actionId: string; result: ToolResult }
  /** A run was made but the action could not be put to a person (its dry run failed): the run failed, with why. */
  | { held: false; runId: string; result: ToolResult };

/** True when the gate would hold this call at ACT: the only case that needs a run. */
export function wouldHold(agent: AgentDependencies, name: string, rawInput: unknown): boolean {
  const decision = decideToolCall({
    tool: agent.registry.get(name),
    toolName: name,
    rawInput,
    runRung: 'ACT',
    policy: agent.policy,
    knownTools: agent.registry.list().map((tool) => tool.name),
  });
  return decision.decision === 'hold';
}

/** A run created not to be due until it is claimed. */
const NEVER = new Date('9999-12-31T23:59:59.999Z');

export async function holdInRun(
  dependencies: HoldRunDependencies,
  request: { name: string; arguments: unknown; client: McpClient; signal: AbortSignal },
): Promise<HoldOutcome> {
  const { store, audit, agent } = dependencies;
  if (!wouldHold(agent, request.name, request.arguments)) return { held: false };
  const args = redactValue(request.arguments ?? {}) as Record<string, unknown>;
  const namespace = typeof args.namespace === 'string' ? args.namespace : undefined;
  const trigger: Trigger = {
    kind: 'incident',
    text: `MCP client ${describeClient(request.client)} asked to run ${request.name} ${JSON.stringify(args)}; kubewhy holds it for a person's approval.`,
    ...(namespace ? { namespace } : {}),
  };
  const createdAt = new Date();
  // Not due before it is claimed here: no replica's queue may take it to diagnose meanwhile.
  const created = await store.create({
    id: newRunId(createdAt),
    trigger,
    source: 'api',
    rung: 'ACT',
    notBefore: NEVER,
    now: createdAt,
  });
  const lease = dependencies.lease
    ? { owner: dependencies.lease.owner, until: new Date(Date.now() + dependencies.lease.ms).toISOString() }
    : undefined;
  const run =
    (await store.claim(created.id, {
      ...(agent.clusterIdentity ? { cluster: agent.clusterIdentity } : {}),
      ...(lease ? { lease } : {}),
    })) ?? created;
  await ensureRunCreated(audit, run);
  // The run's actions are stored in the order they change.
  const progress = createOrderedWrites();
  const runAudit = auditFor(audit, run.id, { alsoFlush: () => progress.flush() });
  const actions: Action[] = [];
  const environment: CallEnvironment = {
    runId: run.id,
    rung: 'ACT',
    policy: agent.policy,
    registry: agent.registry,
    toolContext: {
      cluster: agent.cluster,
      signal: request.signal,
      outputBudgetBytes: agent.limits.toolOutputBytes,
      ...(agent.policy.allowedNamespaces ? { allowedNamespaces: agent.policy.allowedNamespaces } : {}),
    },
    approvalTtlMs: agent.limits.approvalTtlMs,
    maxHeldActions: 1,
    audit: {
      record: (type, payload) => runAudit.record(type, { ...payload, client: request.client }),
      flush: () => runAudit.flush(),
    },
    observer: {
      actionsChanged: (changed) => {
        const snapshot = changed.map((action) => ({ ...action }));
        progress.add(() => store.updateProgress(run.id, { status: 'running', actions: snapshot }));
      },
    },
    actions,
    heldCalls: new Map(),
    writeData: new Map(),
  };
  const call: ToolCall = { id: `mcp-${run.id.slice(-8)}`, name: request.name, input: request.arguments ?? {} };
  const fail = async (content: string): Promise<HoldOutcome> => {
    const reason = `the MCP request's action could not be put to a person: ${content}`;
    await runAudit.flush();
    await createRunLifecycle({ store, audit }).endRun({
      run,
      cause: 'finished',
      status: 'failed',
      reason,
      actions,
      steps: 1,
    });
    return { held: false, runId: run.id, result: { ok: false, error: 'conflict', content } };
  };
  try {
    const told = await executeToolCall(call, environment);
    const action = actions[0];
    const diagnosis = requestedDiagnosis({ client: request.client, name: request.name, args });
    if (action?.status !== 'awaiting_approval') return await fail(told.content);
    let answered: ToolResult | undefined;
    await prepareApprovals({
      pending: [action],
      diagnosis,
      environment,
      onAnswered: (_call, result) => (answered = result),
    });
    if (action.status !== 'awaiting_approval') return await fail(answered?.content ?? told.content);
    await runAudit.flush();
    await park({ store, audit, runId: run.id, call, told, action, actions, diagnosis, trigger });
    return { held: true, runId: run.id, actionId: action.id, result: told };
  } catch (error) {
    // Not left running: a restart would start the agent on it (recover-runs.ts).
    await fail(`internal error: ${error instanceof Error ? error.message : String(error)}`).catch(() => undefined);
    throw error;
  }
}

/**
 * What the person reads with the action: not a diagnosis kubewhy made. The category is
 * `no-issue` with low confidence because kubewhy investigated nothing; the summary says who
 * asked for what, so no one mistakes it for evidence.
 */
function requestedDiagnosis(input: { client: McpClient; name: string; args: Record<string, unknown> }): DiagnosisInput {
  return {
    category: 'no-issue',
    summary: `Not a kubewhy diagnosis: MCP client ${describeClient(input.client)} asked for ${input.name} and kubewhy held it for a person's approval without investigating. Check the workload yourself before approving.`,
    evidence: [`requested through MCP by ${describeClient(input.client)}: ${input.name} ${JSON.stringify(input.args)}`],
    confidence: 'low',
  };
}

/** Parks the run as the loop parks one whose held actions wait on a person (execute-run.ts `park`). */
async function park(input: {
  store: RunStore;
  audit: AuditStore;
  runId: string;
  call: ToolCall;
  told: ToolResult;
  action: Action;
  actions: Action[];
  diagnosis: DiagnosisInput;
  trigger: Trigger;
}): Promise<void> {
  const { call, action } = input;
  const checkpoint: RunCheckpoint = {
    version: 1,
    step: 1,
    forced: false,
    usage: ZERO_USAGE,
    activeMs: 0,
    transcript: [
      { role: 'user', text: describeTrigger(input.trigger) },
      { role: 'assistant', text: '', calls: [call] },
    ],
    toolCalls: [
      {
        step: 1,
        id: call.id,
        tool: call.name,
        input: call.input,
        risk: action.risk,
        ok: true,
        action: action.status,
        bytes: Buffer.byteLength(input.told.content),
      },
    ],
    turn: { results: [{ call, result: input.told }], heldActionIds: [action.id], submissions: [] },
    diagnosed: { diagnosis: input.diagnosis, held: [{ actionId: action.id, call }] },
  };
  await storeParked({
    store: input.store,
    audit: input.audit,
    runId: input.runId,
    checkpoint,
    actions: input.actions,
    diagnosis: { ...input.diagnosis, actions: input.actions },
  });
}

export function describeClient(client: McpClient): string {
  const named = client.name ? ` (${client.name}${client.version ? ` ${client.version}` : ''})` : '';
  return `${client.identity}${named}`;
}
