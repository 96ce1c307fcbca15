/**
 * The public scenarios asked differently than their scenario.yaml does: a sentence that
 * only names the culprit, a sentence that only names the namespace, and an alert stripped
 * down to its name and namespace. The engine must find the same diagnosis, except where
 * nothing is wrong (then nothing points at one workload, and no-issue of the namespace is
 * as much as can be said).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listScenarioDirs, loadScenario, type LoadedScenario } from '../mock-cluster/index.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { createMemoryRunAudit } from '../src/agent/run-audit.ts';
import type { Trigger } from '../src/agent/trigger.ts';
import { runOnScenario } from '../src/eval/run-scenario.ts';
import { scoreDiagnosis } from '../src/eval/score.ts';
import { createInMemoryApprovalBroker } from '../src/gate/approvals.ts';
import { scenarioExpect } from '../mock-cluster/loader.ts';

const scenarios: LoadedScenario[] = await Promise.all(
  (await listScenarioDirs('mock-cluster/scenarios')).map((directory) => loadScenario(directory)),
);

async function misses(variant: (scenario: LoadedScenario) => Trigger | undefined): Promise<string[]> {
  const wrong: string[] = [];
  for (const scenario of scenarios) {
    const trigger = variant(scenario);
    if (!trigger) continue;
    const { outcome, clockShiftMs } = await runOnScenario({
      scenario,
      trigger,
      model: createOfflineModel(),
      rung: 'OBSERVE',
      policy: { actNamespaces: [] },
      approvals: createInMemoryApprovalBroker(),
      audit: createMemoryRunAudit(),
      runId: `variant-${scenario.name}`,
    });
    const score = scoreDiagnosis(outcome.diagnosis, scenarioExpect(scenario), { clockShiftMs });
    if (!score.correct) {
      const culprit = outcome.diagnosis?.culprit;
      wrong.push(
        `${scenario.name}: ${outcome.diagnosis?.category ?? outcome.reason} ${culprit?.kind}/${culprit?.namespace ?? ''}/${culprit?.name}, missing ${score.missingMentions.join(', ') || '-'}`,
      );
    }
  }
  return wrong;
}

function culpritParts(scenario: LoadedScenario): { namespace?: string; name: string } {
  const [, first, second] = scenarioExpect(scenario).culprit.split('/');
  return second === undefined ? { name: first! } : { namespace: first!, name: second };
}

const isProblem = (scenario: LoadedScenario): boolean => scenarioExpect(scenario).category !== 'no-issue';

/** A culprit the cluster does not have (a report about a name that does not exist): its plain words name nothing to recover it from. */
const culpritExists = (scenario: LoadedScenario): boolean =>
  scenario.objects.some(
    (object) =>
      `${object.kind}/${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}` ===
      scenarioExpect(scenario).culprit,
  );

test('a sentence that names only the culprit, in plain words, is diagnosed like the scenario', async () => {
  const wrong = await misses((scenario) =>
    culpritExists(scenario)
      ? { kind: 'incident', text: `${culpritParts(scenario).name.replace(/-/g, ' ')} is broken` }
      : undefined,
  );
  assert.deepEqual(wrong, []);
});

test('a sentence that names only the namespace finds the failing workload in it', async () => {
  const wrong = await misses((scenario) => {
    const { namespace } = culpritParts(scenario);
    return namespace && isProblem(scenario)
      ? { kind: 'incident', text: `something is wrong in the ${namespace} namespace` }
      : undefined;
  });
  assert.deepEqual(wrong, []);
});

test('an alert stripped down to its name and namespace still leads to the culprit', async () => {
  const wrong = await misses((scenario) => {
    const alert = scenario.meta.trigger.alert;
    // The namespace of the alert's subject: an exporter's series carry the object's own as exported_namespace.
    const namespace = alert?.labels?.exported_namespace ?? alert?.labels?.namespace;
    if (!alert || !isProblem(scenario)) return undefined;
    return {
      kind: 'alert',
      alert: {
        labels: { alertname: alert.labels?.alertname ?? 'Unknown', ...(namespace ? { namespace } : {}) },
        annotations: {},
      },
    };
  });
  assert.deepEqual(wrong, []);
});
