/**
 * What the chart grants is what the agent can ever do: by default read-only access to
 * exactly what the read tools use and nothing on Secrets; with ACT, write verbs only in
 * namespaced Roles of the listed namespaces.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatApiCall } from '../src/cluster/write-api-calls.ts';
import { WRITE_TOOL_API_CALLS } from '../src/tools/write-api-calls.ts';
import { renderChart } from './fixtures/helm-support/helm.ts';
import {
  describeObject,
  findBindings,
  findDeployment,
  findKubewhyContainer,
  findRoles,
  listGrants,
  type KubernetesObject,
  type RoleObject,
} from './fixtures/helm-support/objects.ts';

const READ_VERBS = new Set(['get', 'list', 'watch']);

/** What the read tools call, as "group/resource:verb". */
const EXPECTED_READ_GRANTS = [
  ...[
    'pods',
    'events',
    'services',
    'endpoints',
    'configmaps',
    'persistentvolumeclaims',
    'resourcequotas',
    'limitranges',
    'serviceaccounts',
    'nodes',
    'persistentvolumes',
    'namespaces',
  ].flatMap((resource) => ['get', 'list', 'watch'].map((verb) => `core/${resource}:${verb}`)),
  'core/pods/log:get',
  'apps/controllerrevisions:get',
  'apps/controllerrevisions:list',
  // What binds a service account the API refuses (list_role_bindings).
  ...['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].flatMap((resource) =>
    ['get', 'list'].map((verb) => `rbac.authorization.k8s.io/${resource}:${verb}`),
  ),
  ...[
    'events.k8s.io/events',
    'discovery.k8s.io/endpointslices',
    'apps/deployments',
    'apps/replicasets',
    'apps/statefulsets',
    'apps/daemonsets',
    'batch/jobs',
    'batch/cronjobs',
    'storage.k8s.io/storageclasses',
    'networking.k8s.io/networkpolicies',
    'networking.k8s.io/ingresses',
    'autoscaling/horizontalpodautoscalers',
  ].flatMap((resource) => ['get', 'list', 'watch'].map((verb) => `${resource}:${verb}`)),
].sort();

/** What the write tools call in an ACT namespace: their table, which is built from the tools themselves. */
const EXPECTED_ACT_GRANTS = [...new Set(Object.values(WRITE_TOOL_API_CALLS).flat().map(formatApiCall))].sort();

function grantsOf(roles: RoleObject[]): string[] {
  return [...new Set(roles.flatMap((role) => (role.rules ?? []).flatMap(listGrants)))].sort();
}

function environmentValue(objects: KubernetesObject[], name: string): string | undefined {
  return findKubewhyContainer(findDeployment(objects)).env?.find((variable) => variable.name === name)?.value;
}

function assertNoWildcards(roles: RoleObject[]): void {
  for (const role of roles) {
    for (const rule of role.rules ?? []) {
      const words = [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs];
      assert.ok(!words.includes('*'), `${describeObject(role)} has a wildcard: ${JSON.stringify(rule)}`);
      assert.equal(rule.nonResourceURLs, undefined, `${describeObject(role)} grants non-resource URLs`);
    }
  }
}

/** Every binding names a role the chart rendered and only the chart's service account. */
function assertBindingsTargetOnlyTheServiceAccount(objects: KubernetesObject[]): void {
  const roles = findRoles(objects);
  for (const binding of findBindings(objects)) {
    assert.deepEqual(
      binding.subjects,
      [{ kind: 'ServiceAccount', name: 'kubewhy', namespace: 'kubewhy' }],
      `${describeObject(binding)} subjects`,
    );
    const target = roles.find(
      (role) =>
        role.kind === binding.roleRef.kind &&
        role.metadata.name === binding.roleRef.name &&
        (role.kind === 'ClusterRole' || role.metadata.namespace === binding.metadata.namespace),
    );
    assert.ok(
      target,
      `${describeObject(binding)} refers to ${binding.roleRef.kind}/${binding.roleRef.name}, which the chart does not render`,
    );
  }
}

describe('by default', () => {
  test('no Role or ClusterRole grants any verb but get, list and watch', async () => {
    const roles = findRoles(await renderChart());
    assert.ok(roles.length > 0);
    for (const role of roles) {
      for (const rule of role.rules ?? []) {
        const others = rule.verbs.filter((verb) => !READ_VERBS.has(verb));
        assert.deepEqual(others, [], `${describeObject(role)} grants ${others.join(', ')}`);
      }
    }
    assertNoWildcards(roles);
  });

  test('no role grants anything on Secrets', async () => {
    const roles = findRoles(await renderChart());
    for (const role of roles) {
      for (const rule of role.rules ?? []) {
        assert.ok(
          !(rule.resources ?? []).some((resource) => resource.startsWith('secrets')),
          `${describeObject(role)} grants ${JSON.stringify(rule)}`,
        );
      }
    }
  });

  test('the read roles cover exactly what the read tools use, including pods/log', async () => {
    assert.deepEqual(grantsOf(findRoles(await renderChart())), EXPECTED_READ_GRANTS);
  });

  test('every role is a ClusterRole bound cluster-wide to the chart service account only', async () => {
    const objects = await renderChart();
    assert.deepEqual(
      findRoles(objects).map((role) => role.kind),
      findRoles(objects).map(() => 'ClusterRole'),
    );
    assert.ok(findBindings(objects).every((binding) => binding.kind === 'ClusterRoleBinding'));
    assertBindingsTargetOnlyTheServiceAccount(objects);
  });

  test('the service is told ACT is off and Secret keys are off', async () => {
    const objects = await renderChart();
    assert.equal(environmentValue(objects, 'KUBEWHY_ACT_NAMESPACES'), '');
    assert.equal(environmentValue(objects, 'KUBEWHY_SECRET_KEYS'), 'false');
  });
});

describe('with ACT enabled for two namespaces', () => {
  const values = { act: { enabled: true, namespaces: ['staging', 'shop'] } };

  test('write verbs appear only in namespaced Roles of the listed namespaces', async () => {
    const roles = findRoles(await renderChart({ values }));
    for (const role of roles) {
      const writes = (role.rules ?? [])
        .flatMap(listGrants)
        .filter((grant) => !READ_VERBS.has(grant.split(':')[1] ?? ''));
      if (writes.length === 0) continue;
      assert.equal(role.kind, 'Role', `${describeObject(role)} grants ${writes.join(', ')} cluster-wide`);
      assert.ok(
        ['staging', 'shop'].includes(role.metadata.namespace ?? ''),
        `${describeObject(role)} grants writes outside the ACT namespaces`,
      );
    }
    assertNoWildcards(roles);
  });

  test('each listed namespace gets one Role with exactly what the write tools call, bound to the service account', async () => {
    const objects = await renderChart({ values });
    for (const namespace of ['staging', 'shop']) {
      const roles = findRoles(objects).filter((role) => role.kind === 'Role' && role.metadata.namespace === namespace);
      assert.equal(roles.length, 1, `Roles in ${namespace}`);
      assert.deepEqual(grantsOf(roles), EXPECTED_ACT_GRANTS);
      const bindings = findBindings(objects).filter((binding) => binding.metadata.namespace === namespace);
      assert.deepEqual(
        bindings.map((binding) => `${binding.kind}->${binding.roleRef.kind}/${binding.roleRef.name}`),
        [`RoleBinding->Role/${roles[0]?.metadata.name}`],
      );
    }
    assertBindingsTargetOnlyTheServiceAccount(objects);
  });

  test('the ACT Role grants every API call of every write tool, and no verb no write tool sends', async () => {
    const roles = findRoles(await renderChart({ values })).filter(
      (role) => role.kind === 'Role' && role.metadata.namespace === 'staging',
    );
    const granted = new Set(grantsOf(roles));
    for (const [tool, calls] of Object.entries(WRITE_TOOL_API_CALLS)) {
      const missing = calls.map(formatApiCall).filter((call) => !granted.has(call));
      assert.deepEqual(missing, [], `${tool} would be forbidden: the ACT Role lacks ${missing.join(', ')}`);
    }
    const unused = [...granted].filter((grant) => !EXPECTED_ACT_GRANTS.includes(grant));
    assert.deepEqual(unused, [], `the ACT Role grants what no write tool calls: ${unused.join(', ')}`);
  });

  test('the cluster-wide roles stay read-only and the same as without ACT', async () => {
    const clusterRoles = (roles: RoleObject[]): RoleObject[] => roles.filter((role) => role.kind === 'ClusterRole');
    const withAct = clusterRoles(findRoles(await renderChart({ values })));
    const without = clusterRoles(findRoles(await renderChart()));
    assert.deepEqual(grantsOf(withAct), grantsOf(without));
  });

  test('the service is told where ACT is possible', async () => {
    assert.equal(environmentValue(await renderChart({ values }), 'KUBEWHY_ACT_NAMESPACES'), 'staging,shop');
  });

  test('listing namespaces without enabling ACT grants nothing', async () => {
    const objects = await renderChart({ values: { act: { enabled: false, namespaces: ['staging'] } } });
    assert.deepEqual(grantsOf(findRoles(objects)), EXPECTED_READ_GRANTS);
    assert.equal(environmentValue(objects, 'KUBEWHY_ACT_NAMESPACES'), '');
  });
});

describe('with narrowed namespaces', () => {
  test('namespaced read access is bound only in the allowed namespaces', async () => {
    const objects = await renderChart({ values: { config: { allowedNamespaces: ['staging', 'shop'] } } });
    const readBindings = findBindings(objects).filter((binding) => binding.roleRef.name === 'kubewhy-read');
    assert.deepEqual(readBindings.map((binding) => `${binding.kind}/${binding.metadata.namespace}`).sort(), [
      'RoleBinding/shop',
      'RoleBinding/staging',
    ]);
    const clusterWide = findBindings(objects).filter((binding) => binding.kind === 'ClusterRoleBinding');
    assert.deepEqual(
      clusterWide.map((binding) => binding.roleRef.name),
      ['kubewhy-read-cluster'],
    );
    assert.equal(environmentValue(objects, 'KUBEWHY_ALLOWED_NAMESPACES'), 'staging,shop');
    assertBindingsTargetOnlyTheServiceAccount(objects);
  });

  test('the cluster-scoped read role holds only cluster-scoped kinds', async () => {
    const role = findRoles(await renderChart()).find((candidate) => candidate.metadata.name === 'kubewhy-read-cluster');
    assert.ok(role);
    assert.deepEqual(
      grantsOf([role]),
      [
        ...['core/namespaces', 'core/nodes', 'core/persistentvolumes', 'storage.k8s.io/storageclasses'].flatMap(
          (resource) => ['get', 'list', 'watch'].map((verb) => `${resource}:${verb}`),
        ),
        ...['rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings'].flatMap(
          (resource) => ['get', 'list'].map((verb) => `${resource}:${verb}`),
        ),
      ].sort(),
    );
  });
});

describe('with rbac.secretKeys', () => {
  test('Secrets get only get and list, in the namespaces kubewhy reads, and the service is told', async () => {
    const objects = await renderChart({
      values: { rbac: { secretKeys: true }, config: { allowedNamespaces: ['staging'] } },
    });
    const secretRoles = findRoles(objects).filter((role) =>
      (role.rules ?? []).some((rule) => rule.resources?.includes('secrets')),
    );
    assert.deepEqual(grantsOf(secretRoles), ['core/secrets:get', 'core/secrets:list']);
    const bindings = findBindings(objects).filter((binding) =>
      secretRoles.some((role) => role.metadata.name === binding.roleRef.name),
    );
    assert.deepEqual(
      bindings.map((binding) => `${binding.kind}/${binding.metadata.namespace}`),
      ['RoleBinding/staging'],
    );
    assert.equal(environmentValue(objects, 'KUBEWHY_SECRET_KEYS'), 'true');
  });
});

test('rbac.create=false renders no role or binding', async () => {
  const objects = await renderChart({
    values: { rbac: { create: false }, act: { enabled: true, namespaces: ['staging'] } },
  });
  assert.deepEqual(findRoles(objects), []);
  assert.deepEqual(findBindings(objects), []);
});
