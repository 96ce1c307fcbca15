import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decidingRule } from '../../../../test/helpers/deciding-rule.ts';
import { RULES } from './table.ts';

describe('the decision table', () => {
  it('gives every rule a unique id and a unique priority, and says why it outranks the rules below', () => {
    assert.equal(new Set(RULES.map((rule) => rule.id)).size, RULES.length);
    assert.equal(new Set(RULES.map((rule) => rule.priority)).size, RULES.length);
    for (const rule of RULES) assert.ok(rule.outranks.length > 20, `${rule.id} says why it outranks its neighbours`);
  });

  it('gives every rule at least one scenario it decides and one it must not', () => {
    for (const rule of RULES) {
      assert.ok(rule.examples.decides.length > 0, `${rule.id} has no scenario it decides`);
      assert.ok(rule.examples.doesNotDecide.length > 0, `${rule.id} has no scenario it must not decide`);
    }
  });

  for (const rule of RULES) {
    it(`${rule.id}: decides its examples and none of its counter-examples`, async () => {
      for (const example of rule.examples.decides) {
        const decided = await decidingRule(example);
        assert.ok(
          decided.rules.includes(rule.id),
          `${example} is decided by ${decided.rules.join(' via ') || 'no rule'}, not ${rule.id}`,
        );
        if (rule.category !== 'from-the-facts' && decided.rule === rule.id)
          assert.equal(decided.category, rule.category, `${example} gets the rule's category`);
      }
      for (const example of rule.examples.doesNotDecide) {
        const decided = await decidingRule(example);
        assert.ok(
          !decided.rules.includes(rule.id),
          `${example} must not be decided by ${rule.id} (${decided.rules.join(' via ')})`,
        );
      }
    });
  }
});
