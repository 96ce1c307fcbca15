import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CALIBRATION, calibrate } from './confidence.ts';

for (const row of CALIBRATION) {
  test(`calibration ${row.id}: lowers its examples to ${row.atMost} at most and leaves its counter-examples alone`, () => {
    assert.ok(
      row.examples.applies.length > 0 && row.examples.doesNotApply.length > 0,
      `${row.id} has examples of both kinds`,
    );
    for (const claim of row.examples.applies)
      assert.ok(row.applies(claim), `${row.id} applies to ${JSON.stringify(claim.evidence)}`);
    for (const claim of row.examples.doesNotApply)
      assert.ok(!row.applies(claim), `${row.id} does not apply to ${JSON.stringify(claim.evidence)}`);
  });
}

test('calibration only lowers', () => {
  assert.equal(calibrate({ category: 'no-issue', confidence: 'low', rule: 'workload-healthy', evidence: [] }), 'low');
  assert.equal(
    calibrate({
      category: 'app-crash',
      confidence: 'medium',
      rule: 'failing-process',
      evidence: ['log: 403 Forbidden'],
    }),
    'medium',
  );
  assert.equal(
    calibrate({ category: 'oom-killed', confidence: 'high', rule: 'oom', evidence: ['log: 403 Forbidden'] }),
    'high',
  );
});
