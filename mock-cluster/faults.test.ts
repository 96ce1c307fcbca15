import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { FaultInjector, parseFaultSpec } from './faults.ts';
import { startMockCluster, type MockCluster } from './server.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;

let cluster: MockCluster;
before(async () => {
  cluster = await startMockCluster({
    scenario: FIXTURE,
    faults: [{ fault: 'forbidden', path: '^/api/v1/namespaces/shop/secrets' }],
  });
});
after(() => cluster.close());

const get = (path: string): Promise<Response> => fetch(`${cluster.url}${path}`);

describe('fault injection over HTTP', () => {
  test('rules given at start apply: 403 Forbidden as a Status', async () => {
    const response = await get('/api/v1/namespaces/shop/secrets');
    assert.equal(response.status, 403);
    const status = (await response.json()) as { kind: string; reason: string };
    assert.deepEqual([status.kind, status.reason], ['Status', 'Forbidden']);
    assert.equal((await get('/api/v1/namespaces/shop/configmaps')).status, 200, 'other paths are untouched');
  });

  describe('rules set at run time', () => {
    beforeEach(() => cluster.faults.clear());

    test('429 carries Retry-After, and applies only `count` times', async () => {
      cluster.faults.set([{ fault: 'throttle', retryAfterSeconds: 3, count: 2 }]);
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await get('/api/v1/pods');
        assert.equal(response.status, 429);
        assert.equal(response.headers.get('retry-after'), '3');
        assert.equal(
          ((await response.json()) as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds,
          3,
        );
      }
      assert.equal((await get('/api/v1/pods')).status, 200);
    });

    test('a fraction applies to that share of matching requests, evenly', async () => {
      cluster.faults.set([{ fault: 'error', fraction: 0.5, path: '/pods$' }]);
      const statuses = [];
      for (let attempt = 0; attempt < 6; attempt++) statuses.push((await get('/api/v1/namespaces/shop/pods')).status);
      assert.deepEqual(statuses, [200, 500, 200, 500, 200, 500]);
      assert.equal((await get('/api/v1/namespaces/shop/services')).status, 200);
    });

    test('latency delays the answer', async () => {
      cluster.faults.set([{ fault: 'latency', latencyMs: 200 }]);
      const started = performance.now();
      assert.equal((await get('/version')).status, 200);
      assert.ok(performance.now() - started >= 190);
    });

    test('drop destroys the connection without an answer', async () => {
      cluster.faults.set([{ fault: 'drop', path: '^/api/v1/nodes' }]);
      await assert.rejects(get('/api/v1/nodes'), TypeError);
      assert.equal((await get('/api/v1/namespaces')).status, 200, 'the server keeps serving');
    });

    test('the /_mock/faults endpoint reads, replaces and clears the rules, and is never faulted itself', async () => {
      const put = await fetch(`${cluster.url}/_mock/faults`, {
        method: 'PUT',
        body: JSON.stringify({ rules: [{ fault: 'error', status: 503 }] }),
      });
      assert.equal(put.status, 200);
      assert.equal((await get('/api/v1/pods')).status, 503);
      const current = (await (await fetch(`${cluster.url}/_mock/faults`)).json()) as { rules: unknown[] };
      assert.deepEqual(current.rules, [{ fault: 'error', status: 503 }]);
      const bad = await fetch(`${cluster.url}/_mock/faults`, {
        method: 'PUT',
        body: JSON.stringify([{ fault: 'gremlins' }]),
      });
      assert.equal(bad.status, 400);
      assert.equal((await fetch(`${cluster.url}/_mock/faults`, { method: 'DELETE' })).status, 200);
      assert.equal((await get('/api/v1/pods')).status, 200);
    });

    test('records every API request in the request log', async () => {
      const before = cluster.requestLog.length;
      await get('/api/v1/namespaces/shop/pods?limit=5');
      assert.deepEqual(cluster.requestLog.slice(before), [
        { method: 'GET', path: '/api/v1/namespaces/shop/pods', query: '?limit=5' },
      ]);
    });
  });
});

describe('fault specs and decisions', () => {
  test('parses the command-line form', () => {
    assert.deepEqual(parseFaultSpec('429:path=^/api/v1/pods,fraction=0.5,retryAfter=2'), {
      fault: 'throttle',
      path: '^/api/v1/pods',
      fraction: 0.5,
      retryAfterSeconds: 2,
    });
    assert.deepEqual(parseFaultSpec('latency:ms=300'), { fault: 'latency', latencyMs: 300 });
    assert.deepEqual(parseFaultSpec('503:count=2'), { fault: 'error', status: 503, count: 2 });
    assert.deepEqual(parseFaultSpec('drop'), { fault: 'drop' });
    assert.throws(() => parseFaultSpec('gremlins'), /fault "gremlins"/);
    assert.throws(() => parseFaultSpec('429:speed=3'), /unknown option "speed"/);
  });

  test('matches method and path, and adds up latencies before one failure', () => {
    const injector = new FaultInjector();
    injector.set([
      { fault: 'latency', latencyMs: 100 },
      { fault: 'latency', latencyMs: 50, method: 'PATCH' },
      { fault: 'forbidden', method: 'PATCH', path: 'deployments' },
      { fault: 'error' },
    ]);
    assert.deepEqual(injector.decide('PATCH', '/apis/apps/v1/namespaces/a/deployments/b'), {
      latencyMs: 150,
      action: { fault: 'forbidden', status: 403, retryAfterSeconds: 1 },
    });
    assert.deepEqual(injector.decide('GET', '/api/v1/pods'), {
      latencyMs: 100,
      action: { fault: 'error', status: 500, retryAfterSeconds: 1 },
    });
  });
});
