/**
 * Hooks the loop calls as it works, so metrics and run status follow it without the
 * loop knowing about Prometheus or the store. Every hook is optional.
 */
import type { Action } from './diagnosis.ts';
import type { TokenUsage } from './model.ts';
import type { RiskClass } from '../tools/tool.ts';

export interface AgentObserver {
  modelCall?(event: { model: string; outcome: 'ok' | 'error'; durationSeconds: number; usage?: TokenUsage }): void;
  /** A tool call ended; `input` is what the model asked for, unredacted (redact it before showing it). */
  toolCall?(event: {
    tool: string;
    input?: unknown;
    risk: RiskClass | 'unknown';
    outcome: string;
    durationSeconds: number;
  }): void;
  gateDecision?(event: { risk: RiskClass | 'unknown'; decision: string }): void;
  /** The actions changed: one is held (the run now awaits approval), decided, executed... */
  actionsChanged?(actions: readonly Action[]): void;
}
