/**
 * The layers of `src/`, kept by a test: the surfaces (HTTP server, console, MCP, CLI,
 * the program's assembly) are imported by nothing below them; the agent, its models and
 * tools, the gate, the cluster client and the redactor never reach up into runs, stores,
 * notifications or a surface; the stores import no notifier, run service or surface. Every
 * relative import of every non-test source file is checked, type-only imports included.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';

const SRC = join(import.meta.dirname, '..', 'src');

/** The top folder (or file) of `src/` a path belongs to: `runs`, `server`, `main.ts`. */
function layerOf(path: string): string {
  return path.split('/')[0] ?? path;
}

const SURFACES = ['server', 'console', 'mcp', 'cli', 'app', 'main.ts'];
const BELOW_RUNS = ['agent', 'tools', 'gate', 'cluster', 'redact'];

interface LayerRule {
  id: string;
  /** Layers whose files the rule checks. */
  from: (layer: string) => boolean;
  /** Layers those files may not import. */
  forbidden: readonly string[];
  why: string;
}

export const LAYER_RULES: readonly LayerRule[] = [
  {
    id: 'surfaces-on-top',
    from: (layer) => !SURFACES.includes(layer),
    forbidden: SURFACES,
    why: 'nothing below the surfaces imports them; the program is assembled above everything else',
  },
  {
    id: 'agent-below-runs',
    from: (layer) => BELOW_RUNS.includes(layer),
    forbidden: ['runs', 'store', 'notify'],
    why: 'the agent, its models and tools, the gate, the cluster client and the redactor know nothing of runs, stores or notifications',
  },
  {
    id: 'stores-below-services',
    from: (layer) => layer === 'store',
    forbidden: ['notify', 'runs'],
    why: 'a store keeps rows; the services that use it import it, not the other way round',
  },
];

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Every import of `files` (paths relative to src/, with their text) that breaks a rule. */
export function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const violations: string[] = [];
  for (const [path, text] of files) {
    const from = layerOf(path);
    for (const match of text.matchAll(IMPORT)) {
      const target = normalize(join(dirname(path), match[1] ?? match[2] ?? ''));
      if (target.startsWith('..')) continue;
      const to = layerOf(target);
      if (to === from) continue;
      for (const rule of LAYER_RULES) {
        if (rule.from(from) && rule.forbidden.includes(to))
          violations.push(`${path} imports ${target} (${rule.id}: ${rule.why})`);
      }
    }
  }
  return violations;
}

function sourceFiles(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(SRC, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  }
  return files;
}

test('no source file imports across a layer it sits below', () => {
  assert.deepEqual(layerViolations(sourceFiles(SRC)), []);
});

test('the check catches an import that breaks a layer, type-only and dynamic ones too, and lets the allowed ones be', () => {
  const files = new Map([
    ['runs/workers/agent-worker.ts', "import { createLogger } from '../../server/logger.ts';\n"],
    ['notify/notifier.ts', "import type { RunView } from '../server/run-view.ts';\n"],
    ['store/ports.ts', "export type { Outbox } from '../notify/outbox.ts';\n"],
    ['tools/list-pods.ts', "const store = await import('../store/run-store.ts');\n"],
    ['agent/loop.ts', "import { createGate } from '../gate/gate.ts';\nimport type { Tool } from '../tools/tool.ts';\n"],
    ['server/app.ts', "import { createRunService } from '../runs/run-service.ts';\n"],
    ['mcp/http.ts', "import { authenticate } from '../server/auth.ts';\n"],
  ]);
  const found = layerViolations(files);
  assert.deepEqual(
    found.map((line) => line.split(' (')[0]),
    [
      'runs/workers/agent-worker.ts imports server/logger.ts',
      'notify/notifier.ts imports server/run-view.ts',
      'store/ports.ts imports notify/outbox.ts',
      'tools/list-pods.ts imports store/run-store.ts',
    ],
  );
});
