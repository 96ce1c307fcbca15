import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig, type Config } from '../src/config.ts';

const HOME_CONFIG = '/home/sre/.kube/config';

function clusterOf(environment: Record<string, string>, existing: string[] = []): Config['cluster'] {
  return loadConfig(environment, { fileExists: (path) => existing.includes(path) }).cluster;
}

test('inside a pod the service account is read, whatever kubeconfig lies around', () => {
  assert.equal(clusterOf({ KUBERNETES_SERVICE_HOST: '10.0.0.1', HOME: '/home/sre' }, [HOME_CONFIG]).mode, 'in-cluster');
});

test('KUBECONFIG wins over ~/.kube/config, and keeps its list as given', () => {
  const cluster = clusterOf({ KUBECONFIG: '/a/config:/b/config', HOME: '/home/sre' }, [HOME_CONFIG]);
  assert.deepEqual(cluster, { mode: 'kubeconfig', kubeconfigPath: '/a/config:/b/config', timeoutMs: 15_000 });
});

test('with only ~/.kube/config, that file and its current context are read (KUBEWHY_KUBE_CONTEXT picks another)', () => {
  assert.deepEqual(clusterOf({ HOME: '/home/sre' }, [HOME_CONFIG]), {
    mode: 'kubeconfig',
    kubeconfigPath: HOME_CONFIG,
    timeoutMs: 15_000,
  });
  assert.deepEqual(clusterOf({ HOME: '/home/sre', KUBEWHY_KUBE_CONTEXT: 'prod' }, [HOME_CONFIG]), {
    mode: 'kubeconfig',
    kubeconfigPath: HOME_CONFIG,
    context: 'prod',
    timeoutMs: 15_000,
  });
});

test('with no cluster anywhere there is none, and the places looked at are named: never the demo', () => {
  const cluster = clusterOf({ HOME: '/home/sre' });
  assert.equal(cluster.mode, 'none');
  assert.ok(cluster.mode === 'none' && cluster.searched.some((place) => place.includes(HOME_CONFIG)));
});

test('the mock cluster only when asked for', () => {
  const cluster = clusterOf({ HOME: '/home/sre', KUBEWHY_CLUSTER: 'mock' }, [HOME_CONFIG]);
  assert.equal(cluster.mode, 'mock');
});

test('a bad setting is said with its value and what it must be, never a token', () => {
  const message = (environment: Record<string, string>): string => {
    try {
      loadConfig({ KUBEWHY_CLUSTER: 'mock', ...environment });
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.message;
    }
    return '';
  };
  assert.match(message({ KUBEWHY_PORT: 'abc' }), /KUBEWHY_PORT="abc": must be a whole number from 0 to 65535/);
  assert.match(
    message({ KUBEWHY_CLUSTER_TIMEOUT_SECONDS: '0' }),
    /KUBEWHY_CLUSTER_TIMEOUT_SECONDS="0": must be a whole number, at least 1/,
  );
  assert.match(
    message({ KUBEWHY_LOG_LEVEL: 'loud' }),
    /KUBEWHY_LOG_LEVEL="loud": must be one of fatal, error, warn, info, debug, trace, silent/,
  );
  assert.match(message({ ANTHROPIC_BASE_URL: 'nope' }), /ANTHROPIC_BASE_URL="nope": must be a URL/);
  const tokenMessage = message({ KUBEWHY_TOKEN_READ: 'hunter2-short' });
  assert.match(tokenMessage, /KUBEWHY_TOKEN_READ \(value not shown\): must be at least 16 characters long/);
  assert.doesNotMatch(tokenMessage, /hunter2/);
});
