import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ASIDE_EXAMPLES,
  NODE_SYMPTOM,
  SITE_EXAMPLES,
  SYMPTOMS,
  sitesNamed,
  statesReported,
  complaintOf,
} from './report-words.ts';

test("sites: a URL's host or a bare host is a site; a Service's cluster name or a file name is not", () => {
  assert.ok(SITE_EXAMPLES.names.length > 0 && SITE_EXAMPLES.namesNone.length > 0);
  for (const [text, site] of SITE_EXAMPLES.names) assert.deepEqual(sitesNamed(text), [site], text);
  for (const text of SITE_EXAMPLES.namesNone) assert.deepEqual(sitesNamed(text), [], text);
});

test('asides: a clause with also, btw or the like, or one that clears something, is cut from the complaint; other words stay', () => {
  assert.ok(ASIDE_EXAMPLES.cuts.length > 0 && ASIDE_EXAMPLES.keeps.length > 0);
  for (const [text, kept, cut] of ASIDE_EXAMPLES.cuts) {
    const complaint = complaintOf(text);
    assert.ok(complaint.includes(kept), `"${kept}" stays in "${complaint}"`);
    assert.ok(!complaint.includes(cut), `"${cut}" is cut from "${complaint}"`);
  }
  for (const text of ASIDE_EXAMPLES.keeps) assert.equal(complaintOf(text), text);
});

for (const symptom of SYMPTOMS) {
  test(`symptom ${symptom.id}: its words match its examples and none of its counter-examples`, () => {
    assert.ok(symptom.examples.reports.length > 0 && symptom.examples.doesNotReport.length > 0);
    for (const example of symptom.examples.reports) assert.match(example, symptom.words, example);
    for (const example of symptom.examples.doesNotReport) assert.doesNotMatch(example, symptom.words, example);
  });
}

test('the states a report points at gather every symptom it holds', () => {
  assert.deepEqual([...statesReported('site 502s and the api keeps restarting')].sort(), [
    'crashing',
    'no-endpoints',
    'not-ready',
  ]);
  assert.equal(statesReported('checkout is slow').size, 0);
});

test('a node symptom: evictions, a node down or under pressure; not a workload named after nodes', () => {
  assert.ok(NODE_SYMPTOM.examples.reports.length > 0 && NODE_SYMPTOM.examples.doesNotReport.length > 0);
  for (const text of NODE_SYMPTOM.examples.reports) assert.match(text, NODE_SYMPTOM.words, text);
  for (const text of NODE_SYMPTOM.examples.doesNotReport) assert.doesNotMatch(text, NODE_SYMPTOM.words, text);
});
