/**
 * A bad setting said in a person's words: the variable, the value given (never a token's or
 * a key's), and what it must be, e.g. `KUBEWHY_PORT="abc": must be a whole number from 0 to
 * 65535`. zod's own wording ("expected number, received NaN") names neither the range nor
 * what was typed.
 */
import type { z } from 'zod';

/** Settings whose values are secrets: their values are never repeated in a message. */
const SECRET_SETTING = /TOKEN|API_KEY|DATABASE_URL/;

type Issue = z.core.$ZodIssue;

interface NumberBounds {
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
}

export function describeSettingIssue(input: {
  issue: Issue;
  environment: Record<string, string | undefined>;
  shape: Record<string, unknown>;
}): string {
  const { issue } = input;
  const name = String(issue.path[0] ?? '(settings)');
  const given = input.environment[name];
  const shown = given === undefined ? '' : SECRET_SETTING.test(name) ? ' (value not shown)' : `="${given}"`;
  return `${name}${shown}: ${explain(issue, numberBounds(input.shape[name]))}`;
}

function explain(issue: Issue, bounds: NumberBounds | undefined): string {
  if (bounds && (issue.code === 'invalid_type' || issue.code === 'too_small' || issue.code === 'too_big'))
    return describeNumber(bounds);
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'string'
        ? `must be at least ${String(issue.minimum)} characters long`
        : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must be at most ${String(issue.maximum)} characters long`
        : `must be at most ${String(issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'must be a URL, such as https://api.example.com' : `must be a ${issue.format}`;
    default:
      return issue.message;
  }
}

function describeNumber(bounds: NumberBounds): string {
  const what = bounds.isInt ? 'a whole number' : 'a number';
  const min = typeof bounds.minValue === 'number' && Number.isFinite(bounds.minValue) ? bounds.minValue : undefined;
  const max =
    typeof bounds.maxValue === 'number' && Number.isFinite(bounds.maxValue) && bounds.maxValue < Number.MAX_SAFE_INTEGER
      ? bounds.maxValue
      : undefined;
  if (min !== undefined && max !== undefined) return `must be ${what} from ${min} to ${max}`;
  if (min !== undefined) return `must be ${what}, at least ${min}`;
  if (max !== undefined) return `must be ${what}, at most ${max}`;
  return `must be ${what}`;
}

/** The number schema inside a setting's default/optional wrappers, if it is a number. */
function numberBounds(schema: unknown): NumberBounds | undefined {
  let current = schema as { unwrap?: () => unknown; def?: { type?: string } } | undefined;
  while (current && typeof current.unwrap === 'function' && current.def?.type !== 'number')
    current = current.unwrap() as typeof current;
  return current?.def?.type === 'number' ? (current as NumberBounds) : undefined;
}
