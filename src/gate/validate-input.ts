/**
 * The one validation of a tool call's arguments: the tool's zod schema parses them (filling
 * in defaults), and a failure becomes a message the model can act on: which field, what is
 * wrong with it, and which fields the tool takes.
 */
import type { Tool } from '../tools/tool.ts';

export type ValidatedInput = { ok: true; input: Record<string, unknown> } | { ok: false; reason: string };

export function validateToolInput(tool: Tool, rawInput: unknown): ValidatedInput {
  const parsed = tool.input.safeParse(rawInput ?? {});
  if (parsed.success) return { ok: true, input: parsed.data as Record<string, unknown> };
  const problems = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
    .join('; ');
  const fields = Object.keys(tool.input.shape).join(', ');
  return { ok: false, reason: `Invalid arguments for ${tool.name}: ${problems}. It takes: ${fields}.` };
}
