import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The offline engine's folder: its modules must read one way, from the pipeline's end down to case.ts. */
const ENGINE = path.dirname(fileURLToPath(import.meta.url));

/** Module → the modules it imports, by path relative to `root`: every relative import, type-only and re-exports included. */
function readImportGraph(root: string): Map<string, string[]> {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => file.split(path.sep).join('/'))
    .sort();
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((reference) => reference.fileName)
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)))
      .filter((target) => !target.startsWith('../'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** A cycle in the graph as the path that closes it (`a → b → a` is `['a', 'b', 'a']`), or undefined when there is none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const trail: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    if (onPath.has(node)) return [...trail.slice(trail.indexOf(node)), node];
    if (done.has(node)) return undefined;
    trail.push(node);
    onPath.add(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    trail.pop();
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the import graph of the offline engine', () => {
  it('finds the cycle in a graph that has one, and none in a graph that has none', () => {
    const circle = new Map([
      ['classify.ts', ['rules/table.ts']],
      ['rules/table.ts', ['rules/oom.ts', 'case.ts']],
      ['rules/oom.ts', ['classify.ts']],
      ['case.ts', []],
    ]);
    assert.deepEqual(findCycle(circle), ['classify.ts', 'rules/table.ts', 'rules/oom.ts', 'classify.ts']);
    assert.deepEqual(findCycle(new Map([['gather.ts', ['gather.ts']]])), ['gather.ts', 'gather.ts']);
    const oneWay = new Map([
      ['classify.ts', ['rules/table.ts', 'case.ts']],
      ['rules/table.ts', ['rules/oom.ts', 'case.ts']],
      ['rules/oom.ts', ['case.ts']],
      ['case.ts', []],
    ]);
    assert.equal(findCycle(oneWay), undefined);
  });

  it('counts type-only imports and re-exports as edges', () => {
    const graph = readImportGraph(ENGINE);
    // `import type { Rule } from '../case.ts'` is the only import of case.ts in the table.
    assert.ok(graph.get('rules/table.ts')?.includes('case.ts'));
    assert.ok(graph.get('gather/gather-case.ts')?.includes('gather/locate-focus.ts'));
  });

  it('has no cycle: every module imports only modules below it, type-only imports included', () => {
    const graph = readImportGraph(ENGINE);
    assert.ok(graph.size > 40, `read ${graph.size} modules`);
    const cycle = findCycle(graph);
    assert.equal(cycle, undefined, `import cycle: ${cycle?.join(' → ')}`);
  });

  it('keeps case.ts a leaf: it imports from the engine only the signal tables’ types', () => {
    assert.deepEqual(readImportGraph(ENGINE).get('case.ts'), ['signals/types.ts']);
  });
});
