import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeRestartHistory, readRestartHistory, RESTART_EXAMPLES } from './restart-history.ts';

describe('restart history', () => {
  it('has examples of a pace that goes on, one that stopped, and none', () => {
    assert.ok(
      RESTART_EXAMPLES.ongoing.length > 0 &&
        RESTART_EXAMPLES.recovered.length > 0 &&
        RESTART_EXAMPLES.noPace.length > 0,
    );
  });
  for (const [index, example] of RESTART_EXAMPLES.ongoing.entries()) {
    it(`reads ongoing example ${index + 1} as not recovered`, () => {
      const history = readRestartHistory(example.facts);
      assert.ok(history?.ongoing);
      assert.match(describeRestartHistory(history, example.facts.memoryLimit), example.says);
    });
  }
  for (const [index, example] of RESTART_EXAMPLES.recovered.entries()) {
    it(`reads recovered example ${index + 1} as over`, () => {
      const history = readRestartHistory(example.facts);
      assert.equal(history?.ongoing, false);
      assert.match(describeRestartHistory(history), example.says);
    });
  }
  for (const [index, facts] of RESTART_EXAMPLES.noPace.entries()) {
    it(`finds no pace in counter-example ${index + 1}`, () => assert.equal(readRestartHistory(facts), undefined));
  }
});
