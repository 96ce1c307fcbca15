/**
 * Fault injection for reliability tests: added latency, 429 with Retry-After, 500 (or any
 * 5xx), 403, and dropped connections (the socket destroyed mid-request). A rule applies to
 * requests matching its path pattern and method, to a fraction of them (spread evenly and
 * deterministically: 0.5 is every second matching request), and optionally only `count`
 * times. Rules are set by flags (`parseFaultSpec`), the `/_mock/faults` endpoint, or
 * `MockCluster.faults`.
 */
import { z } from 'zod';

export const faultRuleSchema = z.object({
  /** latency: delay, then go on; throttle: 429; error: 500 (or `status`); forbidden: 403; drop: destroy the socket. */
  fault: z.enum(['latency', 'throttle', 'error', 'forbidden', 'drop']),
  /** A regular expression tested against the request path (without the query). Absent: every path. */
  path: z.string().optional(),
  method: z.string().optional(),
  /** Share of matching requests that get the fault, 0..1. Default 1. */
  fraction: z.number().min(0).max(1).optional(),
  /** Apply at most this many times. */
  count: z.number().int().positive().optional(),
  latencyMs: z.number().int().min(0).optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  status: z.number().int().min(400).max(599).optional(),
});

export type FaultRule = z.infer<typeof faultRuleSchema>;

export type FaultDecision = {
  latencyMs: number;
  action?: { fault: 'throttle' | 'error' | 'forbidden' | 'drop'; status: number; retryAfterSeconds: number };
};

interface ActiveRule {
  rule: FaultRule;
  pattern: RegExp | undefined;
  matched: number;
  applied: number;
}

const ALIASES: Record<string, FaultRule['fault']> = {
  '429': 'throttle',
  '500': 'error',
  '503': 'error',
  '403': 'forbidden',
  delay: 'latency',
  drop: 'drop',
};

export class FaultInjector {
  private active: ActiveRule[] = [];

  set(rules: FaultRule[]): void {
    this.active = rules.map((rule) => {
      const parsed = faultRuleSchema.parse(rule);
      return { rule: parsed, pattern: parsed.path ? new RegExp(parsed.path) : undefined, matched: 0, applied: 0 };
    });
  }

  clear(): void {
    this.active = [];
  }

  rules(): FaultRule[] {
    return this.active.map(({ rule }) => rule);
  }

  /** What happens to this request: total added latency, and at most one failure. */
  decide(method: string, path: string): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0 };
    for (const entry of this.active) {
      const { rule } = entry;
      if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (entry.pattern && !entry.pattern.test(path)) continue;
      if (rule.count !== undefined && entry.applied >= rule.count) continue;
      if (rule.fault !== 'latency' && decision.action) continue;
      entry.matched += 1;
      const fraction = rule.fraction ?? 1;
      if (Math.floor(entry.matched * fraction) === Math.floor((entry.matched - 1) * fraction)) continue;
      entry.applied += 1;
      if (rule.fault === 'latency') {
        decision.latencyMs += rule.latencyMs ?? 1000;
        continue;
      }
      const status =
        rule.fault === 'throttle'
          ? 429
          : rule.fault === 'forbidden'
            ? 403
            : rule.fault === 'error'
              ? (rule.status ?? 500)
              : 0;
      decision.action = { fault: rule.fault, status, retryAfterSeconds: rule.retryAfterSeconds ?? 1 };
    }
    return decision;
  }
}

/**
 * A rule from its command-line form, `KIND[:key=value,...]`: `latency:ms=300`,
 * `429:path=^/api/v1/pods,fraction=0.5,retryAfter=2`, `500:count=3`, `403:path=secrets`,
 * `drop:fraction=0.1`. KIND is latency, throttle (429), error (500, 503), forbidden (403) or drop.
 */
export function parseFaultSpec(spec: string): FaultRule {
  const colon = spec.indexOf(':');
  const kindText = (colon < 0 ? spec : spec.slice(0, colon)).trim();
  const fault = ALIASES[kindText] ?? kindText;
  const rule: Record<string, unknown> = { fault };
  if (kindText === '503') rule['status'] = 503;
  const options = colon < 0 ? '' : spec.slice(colon + 1);
  for (const option of options.split(',').filter(Boolean)) {
    const equals = option.indexOf('=');
    const key = option.slice(0, equals).trim();
    const value = option.slice(equals + 1).trim();
    if (equals < 0) throw new Error(`fault "${spec}": expected key=value, got "${option}"`);
    const numeric = (): number => {
      const number = Number(value.replace(/ms$/, ''));
      if (!Number.isFinite(number)) throw new Error(`fault "${spec}": ${key} must be a number`);
      return number;
    };
    if (key === 'path' || key === 'method') rule[key] = value;
    else if (key === 'fraction' || key === 'count' || key === 'status') rule[key] = numeric();
    else if (key === 'ms' || key === 'latency' || key === 'latencyMs') rule['latencyMs'] = numeric();
    else if (key === 'retryAfter' || key === 'retryAfterSeconds') rule['retryAfterSeconds'] = numeric();
    else
      throw new Error(
        `fault "${spec}": unknown option "${key}" (path, method, fraction, count, ms, retryAfter, status)`,
      );
  }
  const result = faultRuleSchema.safeParse(rule);
  if (!result.success)
    throw new Error(
      `fault "${spec}": ${result.error.issues.map((issue) => `${issue.path.join('.') || 'kind'}: ${issue.message}`).join('; ')}`,
    );
  return result.data;
}
