import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLES } from './roles.ts';

for (const role of ROLES) {
  test(`role ${role.id}: its symptom and its players match their examples and none of the counter-examples`, () => {
    for (const [field, must, mustNot] of [
      ['symptom', role.examples.reports, role.examples.doesNotReport],
      ['players', role.examples.players, role.examples.notPlayers],
    ] as const) {
      assert.ok(must.length > 0 && mustNot.length > 0, `${role.id} has examples of both kinds for its ${field}`);
      for (const example of must) assert.match(example, role[field], `${role.id} ${field} matches "${example}"`);
      for (const example of mustNot)
        assert.doesNotMatch(example, role[field], `${role.id} ${field} does not match "${example}"`);
    }
  });
}
