/**
 * `kubewhy validate-scenarios`: checks every scenario under a directory the way the
 * evaluation relies on them: it loads (YAML, objects, logs naming existing pods and
 * containers), owner references resolve, `expect.culprit` exists in cluster.yaml, the
 * category is one of SCENARIOS.md's, the trigger is present, and names are unique and
 * kebab-case. A scenario without `expect` (a fresh capture) is valid: it replays, and the
 * report says that eval will skip it.
 */
import { basename } from 'node:path';
import { listScenarioDirs, loadScenario, ScenarioError, type LoadedScenario } from './loader.ts';
import { ResourceRegistry } from './resources.ts';
import { KEBAB_CASE, parseCulprit } from './scenario-schema.ts';
import type { KubeObject } from './types.ts';

export interface ScenarioReport {
  dir: string;
  name: string;
  objects: number;
  logs: number;
  /** False for a scenario without `expect` (a fresh capture): it replays, but eval skips it. */
  scored: boolean;
  problems: string[];
}

function describe(object: KubeObject): string {
  return object.metadata.namespace
    ? `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`
    : `${object.kind}/${object.metadata.name}`;
}

/** Problems with owner references: an owner missing from the objects, or named with another uid. */
export function checkOwners(scenario: { objects: readonly KubeObject[] }): string[] {
  const byIdentity = new Map(
    scenario.objects.map((object) => [
      `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`,
      object,
    ]),
  );
  const problems: string[] = [];
  for (const object of scenario.objects) {
    for (const owner of object.metadata.ownerReferences ?? []) {
      const target =
        byIdentity.get(`${owner.kind}/${object.metadata.namespace ?? ''}/${owner.name}`) ??
        byIdentity.get(`${owner.kind}//${owner.name}`);
      if (!target) problems.push(`${describe(object)}: owner ${owner.kind}/${owner.name} is not in cluster.yaml`);
      else if (owner.uid && owner.uid !== target.metadata.uid)
        problems.push(
          `${describe(object)}: owner ${owner.kind}/${owner.name} has uid ${target.metadata.uid}, the reference says ${owner.uid}`,
        );
    }
  }
  return problems;
}

function checkCulprit(scenario: LoadedScenario): string[] {
  const expect = scenario.meta.expect;
  // A fresh capture has no expect yet: it replays, and eval skips it.
  if (!expect) return [];
  const culprit = parseCulprit(expect.culprit);
  const registry = new ResourceRegistry();
  const found = scenario.objects.find(
    (object) =>
      object.kind === culprit.kind &&
      object.metadata.name === culprit.name &&
      (object.metadata.namespace ?? undefined) === culprit.namespace,
  );
  if (found) return [];
  // A report about something that does not exist: the honest answer names it as given, with no-issue.
  if (expect.category === 'no-issue' && !scenario.meta.trigger.alert) return [];
  const sameName = scenario.objects.find(
    (object) => object.kind === culprit.kind && object.metadata.name === culprit.name,
  );
  if (sameName) {
    const namespaced = registry.forObject(sameName).namespaced;
    return [
      `expect.culprit ${expect.culprit}: ${namespaced ? `the ${culprit.kind} is in namespace ${sameName.metadata.namespace}` : `${culprit.kind} is cluster-scoped: write ${culprit.kind}/${culprit.name}`}`,
    ];
  }
  return [`expect.culprit ${expect.culprit} is not in cluster.yaml`];
}

export async function validateScenarios(root: string): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  const names = new Map<string, string>();
  for (const dir of await listScenarioDirs(root)) {
    const report: ScenarioReport = { dir, name: basename(dir), objects: 0, logs: 0, scored: false, problems: [] };
    reports.push(report);
    let scenario: LoadedScenario;
    try {
      scenario = await loadScenario(dir);
    } catch (error) {
      report.problems.push(error instanceof ScenarioError ? error.message : `cannot load: ${(error as Error).message}`);
      continue;
    }
    report.name = scenario.name;
    report.objects = scenario.objects.length;
    report.logs = scenario.logs.length;
    report.scored = scenario.meta.expect !== undefined;
    const earlier = names.get(scenario.name);
    if (earlier) report.problems.push(`name "${scenario.name}" is also used by ${basename(earlier)}`);
    names.set(scenario.name, dir);
    if (!KEBAB_CASE.test(scenario.name))
      report.problems.push(`name "${scenario.name}" must be kebab-case (lowercase letters, digits and single dashes)`);
    if (scenario.meta.description.trim() === '')
      report.problems.push('description is empty: say what happened, for the people who read the scenario');
    report.problems.push(...checkOwners(scenario), ...checkCulprit(scenario));
  }
  return reports;
}
