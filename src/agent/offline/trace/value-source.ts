/**
 * Where a failing value comes from. A log line names a value (a port, a host, a path, a
 * user); the pod spec sets it somewhere: an env literal, an env var read from a ConfigMap
 * or Secret key, an envFrom object, the args or command, or a key of a mounted ConfigMap
 * file. The sources are a table, tried in the order of their rows (the most specific
 * first), each with examples it must and must not trace. A Secret's value is never read:
 * a value can only be laid at a Secret's door by the env var's name, and is said so.
 */
import type { ConfigMapSummaryData } from '../../../tools/list-config-maps.ts';
import type { ContainerSpecData, VolumeData } from '../../../tools/format/pod-template.ts';
import type { TemplateDiffEntry } from '../../../tools/format/template-diff.ts';
import { readFailingValues, type FailingValue, type ValueKind } from './failing-values.ts';

/** What the tracer reads: the failing container's spec, the pod's volumes, the ConfigMaps it references (with values), the newest revision's changes. */
export interface ValueSpec {
  container: ContainerSpecData;
  volumes: readonly VolumeData[];
  configMaps: readonly ConfigMapSummaryData[];
  change?: { revision: number; entries: readonly TemplateDiffEntry[] };
}

export interface ValueSource {
  value: FailingValue;
  /** The row that found it. */
  origin: string;
  /** Where it is set, as a person would say it: `env DB_PORT from ConfigMap orders-config key DB_PORT`. */
  place: string;
  /** True when only the env var's name ties the value to a Secret (its value is never read). */
  byName?: boolean;
  /** The rollout revision that changed this place, when the newest one did. */
  changedIn?: { revision: number; from?: string; to?: string };
  /** The diff field that would record a change of this place (`env DB_PORT`, `volume config`, `args`). */
  field: string;
}

interface Place {
  place: string;
  field: string;
  byName?: boolean;
}

export interface SourceRow {
  id: string;
  means: string;
  find(value: FailingValue, spec: ValueSpec): Place | undefined;
  examples: {
    match: Array<{ value: FailingValue; spec: ValueSpec; place: RegExp }>;
    noMatch: Array<{ value: FailingValue; spec: ValueSpec }>;
  };
}

/** The names an env var carries when it holds a value of this kind. */
const NAME_FITS: Record<ValueKind, RegExp> = {
  host: /HOST|ADDR|SERVER|ENDPOINT|BROKER|URL|URI/i,
  port: /PORT|ADDR|URL|URI/i,
  url: /URL|URI|DSN|ENDPOINT|ADDR|CONN/i,
  path: /PATH|FILE|DIR|CONFIG/i,
  user: /USER|LOGIN|ACCOUNT/i,
  bucket: /BUCKET/i,
  flag: /FLAG|ARGS|OPTS/i,
  database: /DB|DATABASE/i,
};

/** Kinds whose values are distinctive enough to trace by value alone. */
const DISTINCT_KINDS = new Set<ValueKind>(['host', 'url', 'path', 'flag', 'bucket']);

/** Only a name that says exactly this kind ties a Secret's hidden value to the failing one (a URL-valued Secret could hold anything). */
const SECRET_NAME_FITS: Partial<Record<ValueKind, RegExp>> = {
  user: /USER|LOGIN/i,
  host: /HOST/i,
  port: /PORT/i,
  bucket: /BUCKET/i,
  database: /DB_?NAME|DATABASE$/i,
};

/** The value stands in the text as a whole token, not inside a longer one (5433, not 54330). */
export function containsValue(text: string, value: string): boolean {
  if (!value) return false;
  let from = 0;
  for (;;) {
    const at = text.indexOf(value, from);
    if (at < 0) return false;
    const before = text[at - 1];
    const after = text[at + value.length];
    if (
      (before === undefined || /^\W/.test(value) || !/[\w-]/.test(before)) &&
      (after === undefined || !/[\w-]/.test(after))
    )
      return true;
    from = at + 1;
  }
}

function configMapValues(spec: ValueSpec, name: string | undefined): Record<string, string> | undefined {
  return spec.configMaps.find((configMap) => configMap.name === name)?.values;
}

/** The line of a file that holds the value, trimmed. */
function lineHolding(text: string, value: string): string | undefined {
  return text
    .split('\n')
    .find((line) => containsValue(line, value))
    ?.trim()
    .slice(0, 160);
}

export const SOURCE_ROWS: readonly SourceRow[] = [
  {
    id: 'configmap-mounted-path',
    means:
      'the failing file itself lies under a ConfigMap mount: it is a key of that ConfigMap (its failing line quoted), or a key the ConfigMap does not have',
    find(value, spec) {
      if (value.kind !== 'path') return undefined;
      const mount = [...spec.container.volumeMounts]
        .sort((left, right) => right.mountPath.length - left.mountPath.length)
        .find(
          (candidate) =>
            value.value === candidate.mountPath || value.value.startsWith(`${candidate.mountPath.replace(/\/$/, '')}/`),
        );
      const volume = mount && spec.volumes.find((candidate) => candidate.name === mount.name);
      if (!mount || volume?.kind !== 'configMap' || !volume.sourceName) return undefined;
      const key = mount.subPath ?? value.value.slice(mount.mountPath.replace(/\/$/, '').length + 1);
      const where = `ConfigMap ${volume.sourceName} key ${key} (volume ${mount.name} at ${mount.mountPath})`;
      const values = configMapValues(spec, volume.sourceName);
      if (!values) return { place: where, field: `volume ${mount.name}` };
      const held = values[key];
      if (held === undefined) {
        const keys = Object.keys(values);
        return {
          place: `${where}, which the ConfigMap does not have (its keys: ${keys.slice(0, 8).join(', ') || 'none'})`,
          field: `volume ${mount.name}`,
        };
      }
      const quoted = value.line ? held.split('\n')[value.line - 1] : undefined;
      return {
        place: `${where}${quoted !== undefined ? `, whose line ${value.line} reads: ${quoted.trim().slice(0, 160) || '(blank)'}` : ''}`,
        field: `volume ${mount.name}`,
      };
    },
    examples: {
      match: [
        {
          value: { kind: 'path', value: '/etc/rules/rules.yaml', line: 2 },
          spec: spec(
            { volumeMounts: [{ name: 'rules', mountPath: '/etc/rules' }] },
            { 'alert-rules': { 'rules.yaml': 'groups:\n  - name: api: latency\n' } },
            [{ name: 'rules', kind: 'configMap', sourceName: 'alert-rules' }],
          ),
          place:
            /ConfigMap alert-rules key rules\.yaml \(volume rules at \/etc\/rules\), whose line 2 reads: - name: api: latency/,
        },
        {
          value: { kind: 'path', value: '/etc/app/config.yaml' },
          spec: spec(
            { volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] },
            { 'app-config': { 'settings.yaml': 'a: 1' } },
            [{ name: 'config', kind: 'configMap', sourceName: 'app-config' }],
          ),
          place: /key config\.yaml .*which the ConfigMap does not have \(its keys: settings\.yaml\)/,
        },
      ],
      noMatch: [
        {
          value: { kind: 'path', value: '/data/models/ranker.onnx' },
          spec: spec(
            { volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] },
            { 'app-config': { 'config.yaml': 'a: 1' } },
            [{ name: 'config', kind: 'configMap', sourceName: 'app-config' }],
          ),
        },
        {
          value: { kind: 'path', value: '/etc/app/config.yaml' },
          spec: spec({ volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] }, {}, [
            { name: 'config', kind: 'emptyDir' },
          ]),
        },
      ],
    },
  },
  {
    id: 'env-configmap-key',
    means: 'an env var read from a ConfigMap key (configMapKeyRef) holds the value',
    find(value, spec) {
      for (const variable of spec.container.env) {
        if (variable.source?.kind !== 'configMapKeyRef' || !variable.source.key) continue;
        const held = configMapValues(spec, variable.source.name)?.[variable.source.key];
        if (held !== undefined && containsValue(held, value.value)) {
          return {
            place: `env ${variable.name} from ConfigMap ${variable.source.name} key ${variable.source.key} = "${held.slice(0, 120)}"`,
            field: `env ${variable.name}`,
          };
        }
      }
      return undefined;
    },
    examples: {
      match: [
        {
          value: { kind: 'port', value: '5433' },
          spec: spec(
            { env: [{ name: 'DB_PORT', source: { kind: 'configMapKeyRef', name: 'orders-config', key: 'db.port' } }] },
            { 'orders-config': { 'db.port': '5433' } },
          ),
          place: /env DB_PORT from ConfigMap orders-config key db\.port = "5433"/,
        },
      ],
      noMatch: [
        {
          value: { kind: 'port', value: '5433' },
          spec: spec(
            { env: [{ name: 'DB_PORT', source: { kind: 'configMapKeyRef', name: 'orders-config', key: 'db.port' } }] },
            { 'orders-config': { 'db.port': '54330' } },
          ),
        },
      ],
    },
  },
  {
    id: 'env-literal',
    means: 'an env var set in the pod spec itself holds the value',
    find(value, spec) {
      // A short word (a user, a database) stands in many values by chance: the variable's name must say it holds one.
      const candidates = spec.container.env.filter(
        (variable) => !variable.source && variable.value !== undefined && containsValue(variable.value, value.value),
      );
      const variable =
        candidates.find((candidate) => NAME_FITS[value.kind].test(candidate.name)) ??
        (DISTINCT_KINDS.has(value.kind) ? candidates[0] : undefined);
      return variable
        ? {
            place: `env ${variable.name}="${variable.value!.slice(0, 120)}" in the pod spec`,
            field: `env ${variable.name}`,
          }
        : undefined;
    },
    examples: {
      match: [
        {
          value: { kind: 'host', value: 'ledger-db-old' },
          spec: spec({ env: [{ name: 'PGHOST', value: 'ledger-db-old' }] }),
          place: /env PGHOST="ledger-db-old"/,
        },
      ],
      noMatch: [
        {
          value: { kind: 'host', value: 'ledger-db' },
          spec: spec({ env: [{ name: 'PGHOST', value: 'ledger-db-old' }] }),
        },
        { value: { kind: 'user', value: 'checkout' }, spec: spec({ env: [{ name: 'DB_NAME', value: 'checkout' }] }) },
      ],
    },
  },
  {
    id: 'envfrom-configmap',
    means: 'a key of a ConfigMap the container takes whole (envFrom) holds the value',
    find(value, spec) {
      for (const source of spec.container.envFrom) {
        if (source.kind !== 'configMapRef') continue;
        const entries = Object.entries(configMapValues(spec, source.name) ?? {}).filter(([, held]) =>
          containsValue(held, value.value),
        );
        const [key, held] = entries.find(([name]) => NAME_FITS[value.kind].test(name)) ?? entries[0] ?? [];
        if (key !== undefined && held !== undefined)
          return {
            place: `env ${source.prefix ?? ''}${key} from ConfigMap ${source.name} (envFrom) = "${held.slice(0, 120)}"`,
            field: `envFrom configMapRef/${source.name}`,
          };
      }
      return undefined;
    },
    examples: {
      match: [
        {
          value: { kind: 'host', value: 'redis-cache' },
          spec: spec(
            { envFrom: [{ kind: 'configMapRef', name: 'cart-env' }] },
            { 'cart-env': { REDIS_HOST: 'redis-cache', LOG_LEVEL: 'info' } },
          ),
          place: /env REDIS_HOST from ConfigMap cart-env \(envFrom\) = "redis-cache"/,
        },
      ],
      noMatch: [
        {
          value: { kind: 'host', value: 'redis-cache' },
          spec: spec(
            { envFrom: [{ kind: 'configMapRef', name: 'cart-env' }] },
            { 'cart-env': { REDIS_HOST: 'redis-cache-v2' } },
          ),
        },
      ],
    },
  },
  {
    id: 'mounted-configmap-file',
    means: 'a file of a ConfigMap mounted into the container holds the value',
    find(value, spec) {
      for (const mount of spec.container.volumeMounts) {
        const volume = spec.volumes.find((candidate) => candidate.name === mount.name);
        const names =
          volume?.kind === 'configMap'
            ? [volume.sourceName]
            : volume?.kind === 'projected'
              ? (volume.sources ?? [])
                  .filter((source) => source.kind === 'configMap')
                  .map((source) => source.sourceName)
              : [];
        for (const name of names) {
          for (const [key, held] of Object.entries(configMapValues(spec, name) ?? {})) {
            if (mount.subPath && mount.subPath !== key) continue;
            if (volume?.keys && !volume.keys.includes(key)) continue;
            const line = containsValue(held, value.value) ? lineHolding(held, value.value) : undefined;
            if (line === undefined) continue;
            const path = mount.subPath ? mount.mountPath : `${mount.mountPath.replace(/\/$/, '')}/${key}`;
            return {
              place: `${path} (ConfigMap ${name} key ${key}, mounted as volume ${mount.name}) says: ${line}`,
              field: `volume ${mount.name}`,
            };
          }
        }
      }
      return undefined;
    },
    examples: {
      match: [
        {
          value: { kind: 'port', value: '6380' },
          spec: spec(
            { volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] },
            { 'app-config': { 'config.yaml': 'redis:\n  host: session-cache\n  port: 6380\n' } },
            [{ name: 'config', kind: 'configMap', sourceName: 'app-config' }],
          ),
          place: /\/etc\/app\/config\.yaml \(ConfigMap app-config key config\.yaml.*port: 6380/,
        },
      ],
      noMatch: [
        {
          value: { kind: 'port', value: '6380' },
          spec: spec(
            { volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] },
            { 'app-config': { 'config.yaml': 'redis:\n  port: 6379\n' } },
            [{ name: 'config', kind: 'configMap', sourceName: 'app-config' }],
          ),
        },
      ],
    },
  },
  {
    id: 'args-or-command',
    means: "the container's args or command carry the value",
    find(value, spec) {
      const { args, command } = spec.container;
      const argument = args?.find((part) => containsValue(part, value.value));
      if (argument !== undefined) return { place: `the container's args: ${argument.slice(0, 160)}`, field: 'args' };
      const part = command?.find((candidate) => containsValue(candidate, value.value));
      return part !== undefined
        ? { place: `the container's command: ${part.slice(0, 160)}`, field: 'command' }
        : undefined;
    },
    examples: {
      match: [
        {
          value: { kind: 'flag', value: '--log-format' },
          spec: spec({ args: ['--port=8080', '--log-format=json'] }),
          place: /args: --log-format=json/,
        },
      ],
      noMatch: [{ value: { kind: 'flag', value: '--log-format' }, spec: spec({ args: ['--log-formats=json'] }) }],
    },
  },
  {
    id: 'env-secret-by-name',
    means:
      'an env var read from a Secret, whose name says it holds a value of this kind (the value itself is never read)',
    find(value, spec) {
      const variable = spec.container.env.find(
        (candidate) => candidate.source?.kind === 'secretKeyRef' && SECRET_NAME_FITS[value.kind]?.test(candidate.name),
      );
      return variable?.source
        ? {
            place: `env ${variable.name} from Secret ${variable.source.name} key ${variable.source.key} (value not shown)`,
            field: `env ${variable.name}`,
            byName: true,
          }
        : undefined;
    },
    examples: {
      match: [
        {
          value: { kind: 'user', value: 'ledger_rw' },
          spec: spec({
            env: [{ name: 'DB_USER', source: { kind: 'secretKeyRef', name: 'ledger-db', key: 'username' } }],
          }),
          place: /env DB_USER from Secret ledger-db key username \(value not shown\)/,
        },
      ],
      noMatch: [
        {
          value: { kind: 'user', value: 'ledger_rw' },
          spec: spec({
            env: [{ name: 'DB_PASSWORD', source: { kind: 'secretKeyRef', name: 'ledger-db', key: 'password' } }],
          }),
        },
        {
          value: { kind: 'port', value: '80' },
          spec: spec({
            env: [{ name: 'DATABASE_URL', source: { kind: 'secretKeyRef', name: 'billing-db', key: 'url' } }],
          }),
        },
      ],
    },
  },
];

/** Where each value the line names is set, for the values the spec sets. */
export function traceLine(line: string, valueSpec: ValueSpec): ValueSource[] {
  return traceValues(readFailingValues(line), valueSpec);
}

export function traceValues(values: readonly FailingValue[], valueSpec: ValueSpec): ValueSource[] {
  const sources: ValueSource[] = [];
  for (const value of values) {
    for (const row of SOURCE_ROWS) {
      const found = row.find(value, valueSpec);
      if (!found) continue;
      const change = valueSpec.change?.entries.find(
        (entry) =>
          entry.field === found.field &&
          (entry.container === undefined || entry.container === valueSpec.container.name),
      );
      sources.push({
        value,
        origin: row.id,
        place: found.place,
        field: found.field,
        ...(found.byName ? { byName: true } : {}),
        ...(change && valueSpec.change
          ? {
              changedIn: {
                revision: valueSpec.change.revision,
                ...(change.from !== undefined ? { from: change.from } : {}),
                ...(change.to !== undefined ? { to: change.to } : {}),
              },
            }
          : {}),
      });
      break;
    }
  }
  return sources;
}

/** Values set in one place said once: `host redis and port 6380 come from env REDIS_URL...`. */
export function describeValueSources(sources: readonly ValueSource[]): string[] {
  const byPlace = new Map<string, ValueSource[]>();
  for (const source of sources) byPlace.set(source.place, [...(byPlace.get(source.place) ?? []), source]);
  return [...byPlace.values()].map(describeGroup);
}

/** One evidence line: `port 5433 comes from env DB_PORT from ConfigMap orders-config key DB_PORT = "5433" (changed in revision 7 from ... to ...)`. */
export function describeValueSource(source: ValueSource): string {
  return describeGroup([source]);
}

/** The values of one place (at least one), the place, and the revision that changed it. */
function describeGroup(group: readonly ValueSource[]): string {
  const first = group[0]!;
  const several = group.length > 1;
  const values = group.map((source) => `${source.value.kind} ${source.value.value}`).join(' and ');
  const verb = first.byName
    ? several
      ? 'are presumably set by'
      : 'is presumably set by'
    : several
      ? 'come from'
      : 'comes from';
  const change = first.changedIn
    ? `; revision ${first.changedIn.revision} changed it${first.changedIn.from !== undefined ? ` from ${first.changedIn.from}` : ''}${first.changedIn.to !== undefined ? ` to ${first.changedIn.to}` : ''}`
    : '';
  return `the failing ${values} ${verb} ${first.place}${change}`;
}

/** A spec of one container named app, for the rows' examples and tests. */
function spec(
  container: Partial<ContainerSpecData>,
  configMaps: Record<string, Record<string, string>> = {},
  volumes: VolumeData[] = [],
): ValueSpec {
  return {
    container: {
      name: 'app',
      init: false,
      image: 'registry.example.com/app:1.0',
      ports: [],
      env: [],
      envFrom: [],
      resources: {},
      probes: [],
      volumeMounts: [],
      ...container,
    },
    volumes,
    configMaps: Object.entries(configMaps).map(([name, values]) => ({
      namespace: 'default',
      name,
      keys: Object.keys(values),
      values,
    })),
  };
}
