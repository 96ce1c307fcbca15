/**
 * The Prometheus text exposition format (version 0.0.4), as kube-state-metrics serves it:
 * one `# HELP` and one `# TYPE` line per family, then its samples, families never
 * interleaved. Label values are escaped (backslash, double quote, newline); a family with
 * no samples is left out.
 */

export type Labels = Record<string, string>;

export interface MetricSample {
  name: string;
  labels: Labels;
  value: number;
}

export interface MetricDefinition {
  help: string;
  type: 'gauge' | 'counter';
}

/** Family name → its help and type, in the order the families are written. */
export type MetricDefinitions = Record<string, MetricDefinition>;

/** What `/metrics` answers with, as kube-state-metrics does. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Renders samples grouped by family in the order of `definitions`. Throws on a sample of an undefined family (a bug). */
export function formatExposition(definitions: MetricDefinitions, samples: readonly MetricSample[]): string {
  const byFamily = new Map<string, MetricSample[]>();
  for (const sample of samples) {
    if (!definitions[sample.name]) throw new Error(`metric ${sample.name} has no definition`);
    let family = byFamily.get(sample.name);
    if (!family) byFamily.set(sample.name, (family = []));
    family.push(sample);
  }
  const lines: string[] = [];
  for (const [name, definition] of Object.entries(definitions)) {
    const family = byFamily.get(name);
    if (!family) continue;
    lines.push(
      `# HELP ${name} ${definition.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`,
      `# TYPE ${name} ${definition.type}`,
    );
    for (const sample of family) lines.push(`${name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function formatLabels(labels: Labels): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabelValue(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** One sample per value of a Kubernetes condition status, 1 for the one it has: how kube-state-metrics writes conditions. */
export function conditionSamples(input: {
  name: string;
  labels: Labels;
  statusLabel: string;
  status: unknown;
}): MetricSample[] {
  const current = typeof input.status === 'string' ? input.status.toLowerCase() : 'unknown';
  return ['true', 'false', 'unknown'].map((status) => ({
    name: input.name,
    labels: { ...input.labels, [input.statusLabel]: status },
    value: status === current ? 1 : 0,
  }));
}

/** A number field of an object's status or spec; kube-state-metrics reports an unset int32 as 0. */
export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** A string field, or '' (kube-state-metrics writes empty label values for unset fields). */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
