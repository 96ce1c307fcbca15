import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeDeliberate, INTENT_ROWS } from './deliberate-state.ts';

describe('deliberate states', () => {
  for (const row of INTENT_ROWS) {
    it(`${row.id} has examples that must and must not read as deliberate`, () =>
      assert.ok(
        row.examples.match.length > 0 && row.examples.noMatch.length > 0,
        `${row.id} needs both kinds of example`,
      ));
    for (const [index, example] of row.examples.match.entries()) {
      it(`${row.id} reads example ${index + 1} as deliberate, with its note`, () => {
        const found = row.read(example.workload);
        assert.ok(found);
        assert.match(describeDeliberate(found), example.says);
      });
    }
    for (const [index, workload] of row.examples.noMatch.entries()) {
      it(`${row.id} does not read counter-example ${index + 1} as deliberate`, () =>
        assert.equal(row.read(workload), undefined));
    }
  }
});
