/**
 * Runs the offline engine on a public scenario (from its alert, or from its incident text)
 * and tells which rule of the decision table decided, as the engine's last turn says.
 */
import { join } from 'node:path';
import { createOfflineModel } from '../../src/agent/offline/offline-model.ts';
import { createMemoryRunAudit } from '../../src/agent/run-audit.ts';
import type { Model } from '../../src/agent/model.ts';
import { createInMemoryApprovalBroker } from '../../src/gate/approvals.ts';
import { runOnScenario, scenarioTriggers } from '../../src/eval/run-scenario.ts';
import { loadScenario } from '../../mock-cluster/index.ts';

export const SCENARIOS_DIR = join(import.meta.dirname, '..', '..', 'mock-cluster', 'scenarios');

/**
 * `name` runs the alert (or the incident when there is no alert); `name#incident` the
 * incident text. `rule` decided the diagnosis; `rules` also holds the rules that decided
 * the hops before it when the engine followed a chain (client, then backend).
 */
export async function decidingRule(
  example: string,
): Promise<{ rule: string | undefined; rules: string[]; category: string | undefined }> {
  const [name = example, which] = example.split('#');
  const scenario = await loadScenario(join(SCENARIOS_DIR, name));
  const triggers = scenarioTriggers(scenario);
  const chosen = (which ? triggers.find((trigger) => trigger.kind === which) : triggers[0]) ?? triggers[0]!;
  const offline = createOfflineModel();
  let lastText = '';
  const model: Model = {
    name: offline.name,
    async createTurn(request) {
      const turn = await offline.createTurn(request);
      lastText = turn.text;
      return turn;
    },
  };
  const { outcome } = await runOnScenario({
    scenario,
    trigger: chosen.trigger,
    model,
    rung: 'OBSERVE',
    policy: { actNamespaces: [] },
    approvals: createInMemoryApprovalBroker(),
    audit: createMemoryRunAudit(),
    runId: `rule-${name}`,
  });
  const said = /\(rule ([\w: -]+)\)/.exec(lastText)?.[1] ?? '';
  const rules = said.split(' via ').filter((rule) => rule.length > 0);
  return { rule: rules[0], rules, category: outcome.diagnosis?.category };
}
