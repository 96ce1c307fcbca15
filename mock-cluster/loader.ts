/**
 * Loads a scenario directory (SCENARIOS.md): `scenario.yaml`, `cluster.yaml` and the
 * `logs/` tree, completed with what a live API server would have set (complete-objects.ts).
 * It never returns a half-loaded scenario: the first problem throws a `ScenarioError` that
 * names the file, the document and the field.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { completeObjects } from './complete-objects.ts';
import { ResourceRegistry } from './resources.ts';
import { scenarioMetaSchema, type ScenarioExpect, type ScenarioMeta } from './scenario-schema.ts';
import type { KubeObject, ScenarioLog } from './types.ts';
import { isRecord } from './types.ts';

export interface LoadedScenario {
  name: string;
  /** Absolute path of the scenario directory. */
  dir: string;
  meta: ScenarioMeta;
  objects: KubeObject[];
  logs: ScenarioLog[];
  /** The background cluster merged into the scenario (backgrounds.ts), when there is one. */
  background?: string;
}

/** A malformed scenario: where (file, 1-based YAML document, dotted field) and what. */
export class ScenarioError extends Error {
  readonly file: string;
  readonly document: number | undefined;
  readonly field: string | undefined;

  constructor(location: { file: string; document?: number; field?: string }, problem: string) {
    const where = [
      location.file,
      location.document === undefined ? undefined : `document ${location.document}`,
      location.field ? `field ${location.field}` : undefined,
    ];
    super(`${where.filter(Boolean).join(', ')}: ${problem}`);
    this.name = 'ScenarioError';
    this.file = location.file;
    this.document = location.document;
    this.field = location.field;
  }
}

/**
 * The scenario's `expect`, for code that scores it. A scenario without one (a fresh
 * capture) replays, but cannot be scored: that is a `ScenarioError` naming the field.
 */
export function scenarioExpect(scenario: { meta: ScenarioMeta }): ScenarioExpect {
  if (scenario.meta.expect) return scenario.meta.expect;
  throw new ScenarioError(
    { file: 'scenario.yaml', field: 'expect' },
    `is missing in scenario "${scenario.meta.name}": it replays, but nothing says what a correct diagnosis is`,
  );
}

/** The scenario directories under `root` (those holding a scenario.yaml), sorted by name. */
export async function listScenarioDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const dirs: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = resolve(root, entry.name);
    if (await isFile(join(dir, 'scenario.yaml'))) dirs.push(dir);
  }
  return dirs.sort();
}

/**
 * Loads the scenario in `dir`. With `background`, the named background cluster is merged
 * into it (backgrounds.ts): the scenario's own objects stay as they are.
 */
export async function loadScenario(dir: string, options: { background?: string } = {}): Promise<LoadedScenario> {
  const absolute = resolve(dir);
  await assertScenarioFolder(absolute);
  const meta = await readMeta(absolute);
  const { objects, logs } = await readClusterFiles(absolute, { seed: meta.name, now: Date.parse(meta.now) });
  const scenario: LoadedScenario = { name: meta.name, dir: absolute, meta, objects, logs };
  if (options.background === undefined) return scenario;
  // Imported here: backgrounds.ts builds on this module.
  const { loadBackground, mergeBackground } = await import('./backgrounds.ts');
  return mergeBackground(scenario, await loadBackground(options.background));
}

/**
 * `cluster.yaml` and the `logs/` tree of a directory, completed as the API server would
 * (uids seeded by `seed`, missing times before `now`). Shared by scenarios and backgrounds.
 */
export async function readClusterFiles(
  dir: string,
  context: { seed: string; now: number },
): Promise<{ objects: KubeObject[]; logs: ScenarioLog[] }> {
  const objects = await readObjects(dir);
  completeObjects(objects, { scenario: context.seed, now: context.now });
  return { objects, logs: await readLogs(dir, objects) };
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** A folder that is not there, or holds no scenario.yaml, is named whole: "scenario.yaml: file is missing" does not say which folder was meant. */
async function assertScenarioFolder(absolute: string): Promise<void> {
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new ScenarioError({ file: absolute }, 'no such folder');
  if (!info.isDirectory())
    throw new ScenarioError(
      { file: absolute },
      'not a folder: a scenario is a folder holding scenario.yaml and cluster.yaml',
    );
  if (!(await stat(join(absolute, 'scenario.yaml')).catch(() => undefined)))
    throw new ScenarioError({ file: absolute }, 'not a scenario folder: it has no scenario.yaml');
}

export async function readText(dir: string, file: string): Promise<string> {
  try {
    return await readFile(join(dir, file), 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ScenarioError(
      { file },
      code === 'ENOENT' ? 'file is missing' : `cannot be read (${code ?? String(error)})`,
    );
  }
}

async function readMeta(dir: string): Promise<ScenarioMeta> {
  const text = await readText(dir, 'scenario.yaml');
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new ScenarioError({ file: 'scenario.yaml', document: 1 }, `invalid YAML: ${(error as Error).message}`);
  }
  const result = scenarioMetaSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ScenarioError(
      { file: 'scenario.yaml', document: 1, field: issue?.path.join('.') || '(root)' },
      issue?.message ?? 'invalid',
    );
  }
  return result.data;
}

interface Located {
  object: KubeObject;
  document: number;
  /** Field prefix within the document: '' or 'items[3].' */
  prefix: string;
}

async function readObjects(dir: string): Promise<KubeObject[]> {
  const file = 'cluster.yaml';
  const text = await readText(dir, file);
  const located: Located[] = [];
  parseAllDocuments(text).forEach((document, index) => {
    const documentNumber = index + 1;
    if ('errors' in document && document.errors.length > 0) {
      const error = document.errors[0];
      const line = error?.linePos?.[0];
      const where = line ? ` (line ${line.line}, column ${line.col})` : '';
      throw new ScenarioError(
        { file, document: documentNumber },
        `invalid YAML${where}: ${error?.message.split('\n')[0] ?? ''}`,
      );
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return;
    const kind = isRecord(value) ? value['kind'] : undefined;
    if (isRecord(value) && typeof kind === 'string' && (kind === 'List' || kind.endsWith('List')) && 'items' in value) {
      const items = value['items'];
      if (!Array.isArray(items))
        throw new ScenarioError({ file, document: documentNumber, field: 'items' }, 'must be a list of objects');
      items.forEach((item: unknown, itemIndex) =>
        located.push({
          object: checkObject(item, { file, document: documentNumber, prefix: `items[${itemIndex}].` }),
          document: documentNumber,
          prefix: `items[${itemIndex}].`,
        }),
      );
    } else {
      located.push({
        object: checkObject(value, { file, document: documentNumber, prefix: '' }),
        document: documentNumber,
        prefix: '',
      });
    }
  });
  rejectDuplicates(located, file);
  return located.map((entry) => entry.object);
}

function checkObject(value: unknown, where: { file: string; document: number; prefix: string }): KubeObject {
  const fail = (field: string, problem: string): never => {
    throw new ScenarioError({ file: where.file, document: where.document, field: `${where.prefix}${field}` }, problem);
  };
  if (!isRecord(value))
    return fail('(root)', 'must be a Kubernetes object (a mapping with apiVersion, kind and metadata)');
  if (typeof value['apiVersion'] !== 'string' || value['apiVersion'] === '')
    fail('apiVersion', 'is required (for example "v1" or "apps/v1")');
  if (typeof value['kind'] !== 'string' || value['kind'] === '') fail('kind', 'is required (for example "Pod")');
  const metadata = value['metadata'];
  if (!isRecord(metadata)) return fail('metadata', 'is required and must be a mapping');
  if (metadata['name'] === undefined && value['kind'] === 'Event') metadata['name'] = eventName(value);
  if (typeof metadata['name'] !== 'string' || metadata['name'] === '') fail('metadata.name', 'is required');
  if (metadata['namespace'] !== undefined && typeof metadata['namespace'] !== 'string')
    fail('metadata.namespace', 'must be a string');
  for (const mapName of ['labels', 'annotations']) {
    const map = metadata[mapName];
    if (map === undefined || map === null) continue;
    if (!isRecord(map)) fail(`metadata.${mapName}`, 'must be a mapping of strings');
    for (const [key, entry] of Object.entries(map as Record<string, unknown>)) {
      if (typeof entry !== 'string')
        fail(`metadata.${mapName}.${key}`, `must be a string (quote it: "${String(entry)}")`);
    }
  }
  const owners = metadata['ownerReferences'];
  if (owners !== undefined && !Array.isArray(owners)) fail('metadata.ownerReferences', 'must be a list');
  (Array.isArray(owners) ? owners : []).forEach((owner: unknown, index) => {
    if (!isRecord(owner) || typeof owner['kind'] !== 'string' || typeof owner['name'] !== 'string') {
      fail(`metadata.ownerReferences[${index}]`, 'needs kind and name');
    }
  });
  return value as KubeObject;
}

function eventName(event: Record<string, unknown>): string {
  const involved = isRecord(event['involvedObject']) ? event['involvedObject'] : {};
  const digest = createHash('sha1').update(JSON.stringify(event)).digest('hex').slice(0, 16);
  return `${typeof involved['name'] === 'string' ? involved['name'] : 'event'}.${digest}`;
}

function rejectDuplicates(located: Located[], file: string): void {
  const registry = new ResourceRegistry();
  const seen = new Map<string, number>();
  for (const { object, document, prefix } of located) {
    const type = registry.forObject(object);
    const namespace = type.namespaced ? (object.metadata.namespace ?? 'default') : '';
    const key = `${type.group}/${type.plural}/${namespace}/${object.metadata.name}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw new ScenarioError(
        { file, document, field: `${prefix}metadata.name` },
        `${object.kind} "${object.metadata.name}" is already defined in document ${first}`,
      );
    seen.set(key, document);
  }
}

async function readLogs(dir: string, objects: KubeObject[]): Promise<ScenarioLog[]> {
  const root = join(dir, 'logs');
  const namespaces = await readdir(root, { withFileTypes: true }).catch(() => undefined);
  if (!namespaces) return [];
  const pods = new Map(
    objects
      .filter((object) => object.kind === 'Pod')
      .map((pod) => [`${pod.metadata.namespace}/${pod.metadata.name}`, pod]),
  );
  const logs: ScenarioLog[] = [];
  for (const namespace of namespaces) {
    const namespaceFile = `logs/${namespace.name}`;
    if (!namespace.isDirectory())
      throw new ScenarioError(
        { file: namespaceFile },
        'expected a namespace directory: logs/<namespace>/<pod>/<container>[.previous].log',
      );
    for (const pod of await readdir(join(root, namespace.name), { withFileTypes: true })) {
      const podFile = `${namespaceFile}/${pod.name}`;
      if (!pod.isDirectory())
        throw new ScenarioError(
          { file: podFile },
          'expected a pod directory: logs/<namespace>/<pod>/<container>[.previous].log',
        );
      const podObject = pods.get(`${namespace.name}/${pod.name}`);
      for (const entry of await readdir(join(root, namespace.name, pod.name), { withFileTypes: true })) {
        const file = `${podFile}/${entry.name}`;
        const match = /^(.+?)(\.previous)?\.log$/.exec(entry.name);
        if (!entry.isFile() || !match?.[1])
          throw new ScenarioError({ file }, 'expected <container>.log or <container>.previous.log');
        if (!podObject)
          throw new ScenarioError(
            { file, field: 'pod' },
            `no Pod "${pod.name}" in namespace "${namespace.name}" in cluster.yaml`,
          );
        const container = match[1];
        if (!containerNames(podObject).includes(container)) {
          throw new ScenarioError(
            { file, field: 'container' },
            `pod ${namespace.name}/${pod.name} has no container "${container}" (it has: ${containerNames(podObject).join(', ') || 'none'})`,
          );
        }
        const text = await readFile(join(root, namespace.name, pod.name, entry.name), 'utf8');
        logs.push({ namespace: namespace.name, pod: pod.name, container, previous: match[2] !== undefined, text });
      }
    }
  }
  return logs;
}

export function containerNames(pod: KubeObject): string[] {
  const spec = pod['spec'];
  if (!isRecord(spec)) return [];
  const names: string[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    const list = spec[field];
    if (!Array.isArray(list)) continue;
    for (const container of list)
      if (isRecord(container) && typeof container['name'] === 'string') names.push(container['name']);
  }
  return names;
}
