/**
 * The scenarios `kubewhy eval` runs, chosen from a folder: every sub-folder that holds a
 * scenario.yaml with an `expect`, narrowed by `--only` (a scenario's name or its folder's).
 * Nothing is dropped silently: a folder without scenario.yaml, or a scenario without
 * `expect` (a fresh capture), is `skipped` with the reason; one that cannot be loaded is
 * `broken`; an `--only` name that matches nothing is `unmatched`, with the closest names.
 */
import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { loadScenario, ScenarioError, type LoadedScenario } from '../../mock-cluster/index.ts';
import { closestNames } from './closest-names.ts';

export interface SkippedFolder {
  folder: string;
  reason: string;
}

export interface ScenarioSelection {
  scenarios: LoadedScenario[];
  skipped: SkippedFolder[];
  broken: { scenario: string; error: string }[];
  unmatched: { name: string; closest: string[] }[];
}

export const NO_SCENARIO_YAML = 'no scenario.yaml: not a scenario folder';
export const NO_EXPECT =
  'scenario.yaml has no expect: it replays (kubewhy diagnose --scenario DIR), but nothing says what a correct diagnosis is; add expect to score it';

export async function selectScenarios(root: string, only: readonly string[] = []): Promise<ScenarioSelection> {
  const entries = await readdir(resolve(root), { withFileTypes: true }).catch((error: { code?: string }) => {
    throw new ScenarioError(
      { file: root },
      error.code === 'ENOENT'
        ? 'no such folder of scenarios: pass one with --scenarios DIR (an installed kubewhy ships only its demo scenario)'
        : `cannot be read (${error.code ?? String(error)})`,
    );
  });
  const folders = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const wanted = (...names: string[]): boolean => only.length === 0 || names.some((name) => only.includes(name));
  const selection: ScenarioSelection = { scenarios: [], skipped: [], broken: [], unmatched: [] };
  const known: string[] = [];
  for (const folder of folders) {
    known.push(folder);
    const dir = join(resolve(root), folder);
    const hasMeta = await readdir(dir).then(
      (files) => files.includes('scenario.yaml'),
      () => false,
    );
    if (!hasMeta) {
      if (wanted(folder)) selection.skipped.push({ folder, reason: NO_SCENARIO_YAML });
      continue;
    }
    let scenario: LoadedScenario;
    try {
      scenario = await loadScenario(dir);
    } catch (error) {
      if (wanted(folder))
        selection.broken.push({ scenario: folder, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    known.push(scenario.name);
    if (!wanted(folder, scenario.name)) continue;
    if (scenario.meta.expect === undefined) selection.skipped.push({ folder: basename(dir), reason: NO_EXPECT });
    else selection.scenarios.push(scenario);
  }
  selection.unmatched = only
    .filter((name) => !known.includes(name))
    .map((name) => ({ name, closest: closestNames(name, known) }));
  return selection;
}
