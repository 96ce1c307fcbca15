/**
 * Runs the agent on one scenario: a fresh mock cluster serving it over HTTP, the real
 * cluster client, the default tools, and the given model. Used by `kubewhy diagnose
 * --scenario` and `kubewhy eval`.
 */
import type { RunLimits } from '../agent/run-limits.ts';
import { loadScenario, startMockCluster, type LoadedScenario } from '../../mock-cluster/index.ts';
import { createKubeCluster } from '../cluster/kube-adapter.ts';
import { toolRegistryFor } from '../tools/registry.ts';
import type { ApprovalBroker } from '../gate/approvals.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import { runAgent, type RunOutcome } from '../agent/loop.ts';
import type { Model } from '../agent/model.ts';
import type { RunAudit } from '../agent/run-audit.ts';
import type { Trigger } from '../agent/trigger.ts';

export type ScenarioRunLimits = RunLimits;

export const DEFAULT_LIMITS: ScenarioRunLimits = {
  maxSteps: 12,
  tokenBudget: 400_000,
  timeoutMs: 120_000,
  approvalTtlMs: 60_000,
  toolOutputBytes: 16_384,
};

/** The triggers a scenario offers, in a fixed order: alert first, then the incident text. */
export function scenarioTriggers(scenario: LoadedScenario): { kind: 'alert' | 'incident'; trigger: Trigger }[] {
  const triggers: { kind: 'alert' | 'incident'; trigger: Trigger }[] = [];
  const { alert, incident } = scenario.meta.trigger;
  if (alert)
    triggers.push({
      kind: 'alert',
      trigger: { kind: 'alert', alert: { labels: alert.labels ?? {}, annotations: alert.annotations ?? {} } },
    });
  if (incident) triggers.push({ kind: 'incident', trigger: { kind: 'incident', text: incident } });
  return triggers;
}

export async function runOnScenario(input: {
  scenario: LoadedScenario | string;
  trigger: Trigger;
  model: Model;
  rung: Rung;
  policy: LadderPolicy;
  approvals: ApprovalBroker;
  audit: RunAudit;
  runId: string;
  limits?: ScenarioRunLimits;
  signal?: AbortSignal;
}): Promise<{ outcome: RunOutcome; scenario: LoadedScenario; durationMs: number; clockShiftMs: number }> {
  const scenario = typeof input.scenario === 'string' ? await loadScenario(input.scenario) : input.scenario;
  const mock = await startMockCluster({ scenario });
  try {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const started = performance.now();
    const outcome = await runAgent({
      runId: input.runId,
      trigger: input.trigger,
      rung: input.rung,
      model: input.model,
      registry: toolRegistryFor({ scenario: true, secretKeys: false }),
      cluster,
      policy: input.policy,
      approvals: input.approvals,
      audit: input.audit,
      limits: input.limits ?? DEFAULT_LIMITS,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    // The mock serves the scenario moved to the real now: what the diagnosis says of times is on that clock.
    return { outcome, scenario, durationMs: performance.now() - started, clockShiftMs: mock.clockShiftMs };
  } finally {
    await mock.close();
  }
}
