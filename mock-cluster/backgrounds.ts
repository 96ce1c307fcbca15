/**
 * Background clusters: healthy, realistic clusters (cloud add-ons, monitoring, other teams'
 * apps, harmless old noise) that an incident scenario can be placed inside, so the agent is
 * measured among the objects a real cluster holds. A background lives in
 * `backgrounds/<name>/` like a scenario (`cluster.yaml`, `logs/`) with a `background.yaml`
 * (`name`, `description`, `now`: its own clock).
 *
 * Merging never changes a scenario object: the background moves onto the scenario's clock
 * and gives way wherever it would touch the scenario (background-conflicts.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { backgroundObjectsToDrop, identityOf } from './background-conflicts.ts';
import { shiftLogTimes, shiftObjectTimes } from './background-times.ts';
import { readClusterFiles, readText, ScenarioError, type LoadedScenario } from './loader.ts';
import { BACKGROUNDS_DIR } from '../src/package-paths.ts';
import type { KubeObject, ScenarioLog } from './types.ts';

/** Where the backgrounds that ship with the mock cluster live. */
export const BACKGROUNDS_ROOT = BACKGROUNDS_DIR;

export interface Background {
  name: string;
  description: string;
  /** The background's own clock (RFC 3339): the ages of its objects are relative to it. */
  now: string;
  objects: KubeObject[];
  logs: ScenarioLog[];
}

/** A background name that does not exist; the message lists the ones that do. */
export class BackgroundError extends Error {
  override readonly name = 'BackgroundError';
}

const backgroundMetaSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(''),
  now: z
    .string()
    .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an RFC 3339 time such as "2026-11-29T10:00:00Z"'),
});

/** The names of the backgrounds under `root` (folders holding a background.yaml), sorted. */
export async function listBackgrounds(root = BACKGROUNDS_ROOT): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const isBackground = await stat(join(root, entry.name, 'background.yaml')).then(
      (info) => info.isFile(),
      () => false,
    );
    if (isBackground) names.push(entry.name);
  }
  return names.sort();
}

/** Loads a background by name; an unknown name throws a BackgroundError naming the known ones. */
export async function loadBackground(name: string, root = BACKGROUNDS_ROOT): Promise<Background> {
  const known = await listBackgrounds(root);
  if (!known.includes(name))
    throw new BackgroundError(`unknown background "${name}" (known: ${known.join(', ') || 'none'})`);
  const dir = join(root, name);
  let value: unknown;
  try {
    value = parse(await readText(dir, 'background.yaml'));
  } catch (error) {
    if (error instanceof ScenarioError) throw error;
    throw new ScenarioError(
      { file: `backgrounds/${name}/background.yaml`, document: 1 },
      `invalid YAML: ${(error as Error).message}`,
    );
  }
  const result = backgroundMetaSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ScenarioError(
      { file: `backgrounds/${name}/background.yaml`, field: issue?.path.join('.') || '(root)' },
      issue?.message ?? 'invalid',
    );
  }
  const meta = result.data;
  const { objects, logs } = await readClusterFiles(dir, { seed: `background/${meta.name}`, now: Date.parse(meta.now) });
  return { name: meta.name, description: meta.description, now: meta.now, objects, logs };
}

/**
 * The scenario inside the background: the scenario's objects and logs as they are, then the
 * background's, shifted by (scenario now − background now), less every background object
 * that collides with the scenario or hangs off one that does. `scenario` is not modified.
 */
export function mergeBackground(scenario: LoadedScenario, background: Background): LoadedScenario {
  const backgroundNow = Date.parse(background.now);
  const shiftMs = Date.parse(scenario.meta.now) - backgroundNow;
  const shifted = background.objects.map((object) => shiftObjectTimes(object, shiftMs));
  const dropped = backgroundObjectsToDrop(scenario.objects, shifted);
  const kept = shifted.filter(
    (object) => !dropped.has(identityOf(object.kind, object.metadata.namespace, object.metadata.name)),
  );
  const keptPods = new Set(
    kept.filter((object) => object.kind === 'Pod').map((pod) => `${pod.metadata.namespace}/${pod.metadata.name}`),
  );
  const logs = background.logs
    .filter((log) => keptPods.has(`${log.namespace}/${log.pod}`))
    .map((log) => shiftLogTimes(log, shiftMs, backgroundNow));
  return {
    ...scenario,
    objects: [...scenario.objects, ...kept],
    logs: [...scenario.logs, ...logs],
    background: background.name,
  };
}
