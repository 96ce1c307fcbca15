import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServiceProcess } from './helpers/service-process.ts';

test('every API run says which cluster it read, and serve says it as it starts', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-service-cluster-'));
  const service = await startServiceProcess({
    KUBEWHY_DATA_DIR: join(directory, 'data'),
    KUBEWHY_AUTH: 'off',
    KUBEWHY_MODEL: 'offline',
  });
  t.after(() => service.stop());
  assert.match(
    service.output(),
    /listening on http:\/\/\S+ \(cluster: mock cluster, scenario checkout-secret-rotation \(http:\/\/127\.0\.0\.1:\d+\); model: offline/,
  );

  const created = await service.request({
    method: 'POST',
    path: '/v1/incidents?wait=60',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
  });
  assert.equal(created.status, 200, created.text);
  const run = created.body as {
    id: string;
    status: string;
    cluster?: { source: string; scenario?: string; server: string };
  };
  assert.equal(run.status, 'completed');
  assert.equal(run.cluster?.source, 'mock');
  assert.equal(run.cluster?.scenario, 'checkout-secret-rotation');
  assert.match(run.cluster?.server ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);

  const listed = await service.request({ path: '/v1/runs' });
  const runs = (listed.body as { runs: { id: string; cluster?: { source: string } }[] }).runs;
  assert.equal(runs.find((entry) => entry.id === run.id)?.cluster?.source, 'mock');
});
