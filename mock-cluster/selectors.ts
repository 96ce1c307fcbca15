/**
 * Label selectors (equality- and set-based, as `labels.Parse` accepts them) and field
 * selectors (the fields the API server supports per kind). A selector that does not parse,
 * or names an unsupported field, is a `SelectorError`: the server answers 400 BadRequest.
 */
import type { KubeObject } from './types.ts';
import { readPath } from './types.ts';

export class SelectorError extends Error {}

type LabelRequirement =
  | { key: string; operator: 'exists' | 'not-exists' }
  | { key: string; operator: 'in' | 'notin'; values: string[] }
  | { key: string; operator: 'gt' | 'lt'; value: number };

export type LabelSelector = (labels: Record<string, string> | undefined) => boolean;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '(') depth++;
    else if (character === ')') depth--;
    else if (character === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function checkKey(key: string, selector: string): string {
  if (!LABEL_KEY.test(key))
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}

function parseRequirement(term: string, selector: string): LabelRequirement {
  let match = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (match) {
    const values = (match[3] ?? '')
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
    return { key: checkKey(match[1] ?? '', selector), operator: match[2] === 'in' ? 'in' : 'notin', values };
  }
  match = /^!\s*(\S+)$/.exec(term);
  if (match) return { key: checkKey(match[1] ?? '', selector), operator: 'not-exists' };
  match = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/.exec(term);
  if (match) {
    const key = checkKey(match[1] ?? '', selector);
    const value = match[3] ?? '';
    switch (match[2]) {
      case '!=':
        return { key, operator: 'notin', values: [value] };
      case '>':
      case '<': {
        const number = Number(value);
        if (value === '' || !Number.isInteger(number))
          throw new SelectorError(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer: "${term}"`,
          );
        return { key, operator: match[2] === '>' ? 'gt' : 'lt', value: number };
      }
      default:
        return { key, operator: 'in', values: [value] };
    }
  }
  if (/^[^=!<>()\s]+$/.test(term)) return { key: checkKey(term, selector), operator: 'exists' };
  throw new SelectorError(
    `unable to parse requirement: found '${term}', expected: key, !key, key=value, key!=value, key in (...), key notin (...)`,
  );
}

function matchesRequirement(requirement: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'exists':
      return has;
    case 'not-exists':
      return !has;
    case 'in':
      return has && requirement.values.includes(value ?? '');
    case 'notin':
      return !has || !requirement.values.includes(value ?? '');
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const number = Number(value);
      if (!Number.isInteger(number)) return false;
      return requirement.operator === 'gt' ? number > requirement.value : number < requirement.value;
    }
  }
}

export function parseLabelSelector(selector: string | null | undefined): LabelSelector {
  if (!selector || selector.trim() === '') return () => true;
  const requirements = splitTopLevel(selector).map((term) => parseRequirement(term, selector));
  return (labels) => requirements.every((requirement) => matchesRequirement(requirement, labels ?? {}));
}

/** `metav1.LabelSelector` (matchLabels/matchExpressions) as a predicate; an empty selector matches everything. */
export function labelSelectorFromObject(selector: unknown): LabelSelector {
  return parseLabelSelector(formatLabelSelector(selector));
}

/** `metav1.FormatLabelSelector`: the selector as text, `<none>` when empty. */
export function formatLabelSelector(selector: unknown): string {
  if (typeof selector !== 'object' || selector === null) return '';
  const { matchLabels, matchExpressions } = selector as {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
  const terms = Object.entries(matchLabels ?? {})
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, value]) => `${key}=${value}`);
  for (const expression of matchExpressions ?? []) {
    const values = [...(expression.values ?? [])].sort().join(',');
    switch (expression.operator) {
      case 'In':
        terms.push(`${expression.key} in (${values})`);
        break;
      case 'NotIn':
        terms.push(`${expression.key} notin (${values})`);
        break;
      case 'Exists':
        terms.push(expression.key);
        break;
      case 'DoesNotExist':
        terms.push(`!${expression.key}`);
        break;
    }
  }
  return terms.join(',');
}

/** The field labels the API server accepts, per kind, beyond metadata.name and metadata.namespace. */
const FIELD_LABELS: Record<string, string[]> = {
  Pod: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
  ],
  Event: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  Secret: ['type'],
  Node: ['spec.unschedulable'],
  Namespace: ['status.phase'],
  ReplicaSet: ['status.replicas'],
  ReplicationController: ['status.replicas'],
  Job: ['status.successful'],
  PersistentVolume: ['name'],
  Service: ['spec.clusterIP', 'spec.type'],
};

function fieldValue(object: KubeObject, field: string): string {
  if (object.kind === 'Event' && field === 'source')
    return String(readPath(object, 'source.component') ?? readPath(object, 'reportingComponent') ?? '');
  if (object.kind === 'Job' && field === 'status.successful')
    return String(readPath(object, 'status.succeeded') ?? '0');
  if (object.kind === 'Pod' && field === 'status.podIPs') return String(readPath(object, 'status.podIP') ?? '');
  const value = field === 'name' ? object.metadata.name : readPath(object, field);
  if (value === undefined || value === null)
    return field === 'spec.unschedulable' || field === 'spec.hostNetwork' ? 'false' : '';
  return String(value);
}

export type FieldSelector = (object: KubeObject) => boolean;

export function parseFieldSelector(selector: string | null | undefined, kind: string): FieldSelector {
  if (!selector || selector.trim() === '') return () => true;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...(FIELD_LABELS[kind] ?? [])]);
  const requirements = splitTopLevel(selector).map((term) => {
    const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!match) throw new SelectorError(`invalid field selector: '${term}'`);
    const field = (match[1] ?? '').trim();
    if (!allowed.has(field)) throw new SelectorError(`field label not supported: ${field}`);
    return { field, negate: match[2] === '!=', value: (match[3] ?? '').trim() };
  });
  return (object) => requirements.every(({ field, negate, value }) => (fieldValue(object, field) === value) !== negate);
}
