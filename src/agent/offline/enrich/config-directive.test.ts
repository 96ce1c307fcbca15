import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIRECTIVE_ROWS, directiveLines } from './config-directive.ts';

for (const row of DIRECTIVE_ROWS) {
  test(`directive ${row.id}: its failure and its directive match their examples and none of the counter-examples`, () => {
    assert.ok(
      row.examples.fails.length > 0 &&
        row.examples.doesNotFail.length > 0 &&
        row.examples.directives.length > 0 &&
        row.examples.notDirectives.length > 0,
    );
    for (const line of row.examples.fails) assert.match(line, row.failure, line);
    for (const line of row.examples.doesNotFail) assert.doesNotMatch(line, row.failure, line);
    for (const line of row.examples.directives) assert.ok(directiveLines(row, line).length > 0, line);
    for (const line of row.examples.notDirectives) assert.deepEqual(directiveLines(row, line), [], line);
  });
}
