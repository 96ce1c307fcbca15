/**
 * What `kubewhy diagnose` says on stderr while a run works, so a person never waits in
 * silence: each model call as it starts and how long it took, each tool call as it ends
 * with its arguments (redacted) and outcome. On a terminal the lines are dimmed; piped,
 * they are plain. stdout keeps only the answer.
 */
import type { Model } from '../agent/model.ts';
import type { AgentObserver } from '../agent/observer.ts';
import { redactValue } from '../redact/redactor.ts';

export interface Progress {
  /** Writes one line about the run. */
  say(line: string): void;
  /** Hooks for the loop: tool calls as they end. */
  observer: AgentObserver;
  /** `model`, saying when each of its calls starts and ends. */
  watchModel(model: Model): Model;
}

/** Progress onto `output`; `quiet` says nothing (for --json). */
export function createProgress(input: {
  output: NodeJS.WritableStream & { isTTY?: boolean };
  quiet: boolean;
}): Progress {
  const dim = input.output.isTTY ? (text: string): string => `\x1b[2m${text}\x1b[0m` : (text: string): string => text;
  const say = (line: string): void => {
    if (!input.quiet) input.output.write(`${dim(line)}\n`);
  };
  let modelCalls = 0;
  return {
    say,
    observer: {
      toolCall(event) {
        const outcome = event.outcome === 'ok' ? 'ok' : `error: ${event.outcome}`;
        say(
          `  ${event.tool} ${formatArguments(event.input)} → ${outcome} (${Math.round(event.durationSeconds * 1000)} ms)`,
        );
      },
    },
    watchModel(model) {
      if (model.name === 'offline') return model;
      return {
        name: model.name,
        async createTurn(request) {
          modelCalls += 1;
          const started = performance.now();
          say(`  asking ${model.name} (call ${modelCalls})…`);
          try {
            const turn = await model.createTurn(request);
            say(`  ${model.name} answered in ${((performance.now() - started) / 1000).toFixed(1)} s`);
            return turn;
          } catch (error) {
            say(`  ${model.name} failed after ${((performance.now() - started) / 1000).toFixed(1)} s`);
            throw error;
          }
        },
      };
    },
  };
}

/** `{namespace: staging, pod: web-1}`: short, one line, secrets redacted. */
function formatArguments(value: unknown): string {
  if (value === null || typeof value !== 'object') return '';
  const entries = Object.entries(redactValue(value) as Record<string, unknown>).map(
    ([key, item]) => `${key}: ${typeof item === 'string' ? item : JSON.stringify(item)}`,
  );
  const text = `{${entries.join(', ')}}`;
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
