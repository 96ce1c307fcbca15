import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LISTENING_FORMS, listeningPortsIn, refusedProbePorts } from './listening-ports.ts';

for (const form of LISTENING_FORMS) {
  test(`listening form ${form.id}: reads the port of its examples and none of its counter-examples`, () => {
    assert.ok(form.examples.match.length > 0 && form.examples.noMatch.length > 0);
    for (const { line, port } of form.examples.match) assert.deepEqual(listeningPortsIn([line]), [port], line);
    for (const line of form.examples.noMatch) assert.deepEqual(listeningPortsIn([line]), [], line);
  });
}

test("the ports a probe was refused on, from the kubelet's words; a timeout or a 500 is no refusal", () => {
  assert.deepEqual(
    refusedProbePorts([
      'Readiness probe failed: Get "http://10.244.2.19:8080/readyz": dial tcp 10.244.2.19:8080: connect: connection refused',
    ]),
    [8080],
  );
  assert.deepEqual(
    refusedProbePorts([
      'Liveness probe failed: Get "http://10.0.0.5:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
      'Readiness probe failed: HTTP probe failed with statuscode: 500',
    ]),
    [],
  );
});
