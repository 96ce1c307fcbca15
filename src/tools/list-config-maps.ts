/**
 * `list_config_maps`: ConfigMaps by name with their keys; with `name`, the values too,
 * each cut short and passed through the redactor (a ConfigMap may hold a password anyway).
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { redactNamedValue } from '../redact/redactor.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface ConfigMapSummaryData {
  namespace: string;
  name: string;
  keys: string[];
  ageSeconds?: number;
  /** With `name`: each key's value, redacted and cut to `valueLimit` characters. */
  values?: Record<string, string>;
}

export interface ConfigMapsData {
  namespace: string;
  configMaps: ConfigMapSummaryData[];
}

const input = z.object({
  namespace: namespaceName().describe('Namespace'),
  name: objectName().optional().describe('One ConfigMap: adds its values (redacted)'),
  key: z.string().min(1).optional().describe('With name: only this key'),
  valueLimit: z.number().int().min(40).max(20_000).default(2000).describe('Characters shown per value'),
});

export const listConfigMapsTool: ReadTool<typeof input, ConfigMapsData, 'list_config_maps'> = {
  name: 'list_config_maps',
  description:
    "Lists the ConfigMaps of a namespace with their keys, or with name one ConfigMap's values (credential-like values masked). " +
    'Use it to check that a ConfigMap or key a pod references exists, or what a config file says.',
  input,
  risk: 'read',
  async run(args, context) {
    const now = context.cluster.now();
    const text = new BudgetedText(context.outputBudgetBytes);
    if (args.name !== undefined) {
      const fetched = await context.cluster.get(
        'ConfigMap',
        { namespace: args.namespace, name: args.name },
        { signal: context.signal },
      );
      if (!fetched.ok)
        return failureFrom(
          fetched.error,
          fetched.error.kind === 'not-found'
            ? `ConfigMap "${args.name}" does not exist in "${args.namespace}"; call list_config_maps without name to see which do.`
            : undefined,
        );
      const dataEntries = Object.entries({
        ...(fetched.value.data ?? {}),
        ...Object.fromEntries(Object.keys(fetched.value.binaryData ?? {}).map((key) => [key, '(binary)'])),
      });
      const keys = dataEntries.map(([key]) => key).sort();
      if (args.key !== undefined && !keys.includes(args.key)) {
        return {
          ok: false,
          error: 'not-found',
          content: `not-found: ConfigMap ${args.namespace}/${args.name} has no key "${args.key}"; its keys are: ${keys.join(', ') || '(none)'}.`,
        };
      }
      const values: Record<string, string> = {};
      for (const [key, value] of dataEntries) {
        if (args.key !== undefined && key !== args.key) continue;
        const redacted = redactNamedValue(key, value);
        values[key] =
          redacted.length > args.valueLimit
            ? `${redacted.slice(0, args.valueLimit)}… [${redacted.length - args.valueLimit} more chars]`
            : redacted;
      }
      text.addIfRoom(
        `ConfigMap ${args.namespace}/${args.name}, age ${formatAge(fetched.value.metadata?.creationTimestamp, now)}, keys: ${keys.join(', ') || '(none)'}`,
      );
      for (const [key, value] of Object.entries(values)) text.addIfRoom(`--- ${key}:\n${value}`);
      const data: ConfigMapsData = {
        namespace: args.namespace,
        configMaps: [{ namespace: args.namespace, name: args.name, keys, values }],
      };
      return success(text.finish('ask for one key, or a smaller valueLimit.'), data, text.truncated);
    }
    const listed = await context.cluster.list('ConfigMap', {
      namespace: args.namespace,
      maxItems: 2000,
      signal: context.signal,
    });
    if (!listed.ok) return failureFrom(listed.error);
    const configMaps = listed.value.items
      .map((item): ConfigMapSummaryData => ({
        namespace: args.namespace,
        name: item.metadata?.name ?? '',
        keys: [...Object.keys(item.data ?? {}), ...Object.keys(item.binaryData ?? {})].sort(),
        ...(item.metadata?.creationTimestamp
          ? { ageSeconds: Math.round((now.getTime() - new Date(item.metadata.creationTimestamp).getTime()) / 1000) }
          : {}),
      }))
      .sort((left, right) => left.name.localeCompare(right.name));
    text.add(`${configMaps.length} ConfigMap(s) in ${args.namespace}:`);
    for (const configMap of configMaps)
      if (!text.add(`${configMap.name}: keys ${configMap.keys.join(', ') || '(none)'}`)) break;
    return success(
      text.finish('ask for one ConfigMap by name.'),
      { namespace: args.namespace, configMaps: configMaps.slice(0, 500) } satisfies ConfigMapsData,
      text.truncated,
    );
  },
};
