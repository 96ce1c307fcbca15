/**
 * list_ingresses through the real client against the mock cluster's Ingresses: the routes of
 * a namespace, the rules that serve one host (wildcards cover one label), a host nothing
 * serves answered with the hosts that are served, and a bad host refused before any call.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { hostServes, type IngressesData } from '../src/tools/list-ingresses.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import type { ToolResult } from '../src/tools/tool.ts';
import { callThroughGate } from './helpers/gated-calls.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'web-readiness-path');
const registry = createToolRegistry();

describe('list_ingresses', () => {
  let mock: MockCluster;
  let call: (input: Record<string, unknown>) => Promise<ToolResult>;
  before(async () => {
    mock = await startMockCluster({ scenario: SCENARIO });
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
    call = (input) =>
      callThroughGate({
        registry,
        name: 'list_ingresses',
        input,
        context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
      });
  });
  after(() => mock.close());

  it('lists each rule as host and path to the Service and port behind it, and the default backend', async () => {
    const result = await call({ namespace: 'storefront' });
    assert.ok(result.ok, result.content);
    const data = result.data as IngressesData;
    const web = data.ingresses.find((ingress) => ingress.name === 'web');
    assert.deepEqual(web?.routes, [{ host: 'www.acme-shop.example', path: '/', service: 'web', port: '80' }]);
    assert.equal(web?.defaultBackend?.service, 'web');
    assert.match(result.content, /storefront\/web: class .*\n {2}www\.acme-shop\.example\/ -> Service web:80/);
  });

  it('keeps only the rules that serve an asked host, across the namespaces it may read', async () => {
    const served = await call({ host: 'WWW.acme-shop.example' });
    assert.ok(served.ok, served.content);
    assert.deepEqual(
      (served.data as IngressesData).ingresses.map((ingress) => `${ingress.namespace}/${ingress.name}`),
      ['storefront/web'],
    );
    const other = await call({ host: 'pay.acme-shop.example' });
    assert.ok(other.ok, other.content);
    assert.deepEqual((other.data as IngressesData).ingresses, []);
    assert.match(
      other.content,
      /No Ingress in the readable namespaces serves host pay\.acme-shop\.example; hosts served: www\.acme-shop\.example/,
    );
  });

  it('refuses a host that is a URL rather than a name, saying what it wants', async () => {
    const result = await call({ host: 'https://www.acme-shop.example/cart' });
    assert.equal(result.ok, false);
    assert.match(result.content, /host.*a host name such as shop\.example\.com/);
  });

  it('matches a wildcard rule to one label only, and a rule without host to every host', () => {
    assert.equal(hostServes('*.example.com', 'shop.example.com'), true);
    assert.equal(hostServes('*.example.com', 'a.shop.example.com'), false);
    assert.equal(hostServes('*.example.com', 'example.com'), false);
    assert.equal(hostServes('*', 'anything.example'), true);
    assert.equal(hostServes('shop.example.com', 'shop.example.com.'), true);
    assert.equal(hostServes('shop.example.com', 'shop.example.org'), false);
  });
});
