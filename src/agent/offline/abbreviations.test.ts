import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ABBREVIATIONS } from './abbreviations.ts';
import { mentionScore } from './mentions.ts';

for (const row of ABBREVIATIONS) {
  test(`abbreviation ${row.short.join('/')}: its reports name ${row.examples.names.join(', ')} and its counter-examples do not`, () => {
    assert.ok(
      row.examples.names.length > 0 && row.examples.reports.length > 0 && row.examples.doesNotReport.length > 0,
      `${row.short[0]} has examples of both kinds`,
    );
    for (const name of row.examples.names) {
      for (const report of row.examples.reports) assert.ok(mentionScore(name, report) > 0, `"${report}" names ${name}`);
      for (const report of row.examples.doesNotReport)
        assert.equal(mentionScore(name, report), 0, `"${report}" does not name ${name}`);
    }
  });
}
