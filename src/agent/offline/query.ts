/**
 * How the engine asks for facts: `get` answers from the investigation when the call was
 * already made, and otherwise records the call as wanted. The engine works through its
 * procedure until it reaches a point that needs the wanted answers, then makes all the
 * wanted calls in one turn (they run in parallel).
 */
import { randomUUID } from 'node:crypto';
import type { ToolDataMap, ToolInputMap, ToolName } from '../../tools/registry.ts';
import type { ToolResult } from '../../tools/tool.ts';
import type { ToolCall } from '../model.ts';
import { callKey, type Investigation } from './investigation.ts';

export class NeedsAnswers extends Error {
  override name = 'NeedsAnswers';
}

export class Query {
  readonly investigation: Investigation;
  readonly wanted: ToolCall[] = [];
  readonly #wantedKeys = new Set<string>();

  constructor(investigation: Investigation) {
    this.investigation = investigation;
  }

  /** The result, or undefined after recording the call as wanted. */
  get(name: string, input: Record<string, unknown>): ToolResult | undefined {
    const known = this.investigation.resultOf(name, input);
    if (known) return known;
    const key = callKey(name, input);
    if (!this.#wantedKeys.has(key)) {
      this.#wantedKeys.add(key);
      this.wanted.push({ id: `offline-${randomUUID().slice(0, 12)}`, name, input });
    }
    return undefined;
  }

  /** The structured data of a successful call, or undefined (failed, or not made yet); typed by the tool's own data type. */
  data<Name extends ToolName>(name: Name, input: ToolInputMap[Name]): ToolDataMap[Name] | undefined {
    const result = this.get(name, input as Record<string, unknown>);
    return result?.ok ? (result.data as ToolDataMap[Name] | undefined) : undefined;
  }

  /** The cluster's clock as the newest result saw it; the local clock before any result. */
  clusterNow(): Date {
    const times = this.investigation.observations.flatMap((observation) =>
      observation.result.ok && observation.result.observedAt ? [Date.parse(observation.result.observedAt)] : [],
    );
    return times.length > 0 ? new Date(Math.max(...times)) : new Date();
  }

  /** Stops the procedure here when answers are still missing: the wanted calls are made first. */
  barrier(): void {
    if (this.wanted.length > 0) throw new NeedsAnswers();
  }
}
