/**
 * The chart passes `helm lint --strict` (the real helm binary) in the configurations SREs
 * install, and refuses bad values with a message that names the value to change.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lintChart, templateChart, type ChartValues } from './fixtures/helm-support/helm.ts';

const actInTwoNamespaces: ChartValues = { act: { enabled: true, namespaces: ['staging', 'shop'] } };

const everythingOn: ChartValues = {
  act: { enabled: true, namespaces: ['staging', 'shop'] },
  config: { allowedNamespaces: ['staging', 'shop', 'payments'], model: 'anthropic' },
  anthropic: { existingSecret: 'anthropic', existingSecretKey: 'key' },
  rbac: { secretKeys: true },
  persistence: { type: 'emptyDir' },
  serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
  prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
  networkPolicy: { enabled: true, egress: { restrict: true } },
  podDisruptionBudget: { enabled: true },
};

describe('helm lint --strict', () => {
  for (const [name, values] of [
    ['default values', {}],
    ['ACT enabled for two namespaces', actInTwoNamespaces],
    ['every optional object and setting turned on', everythingOn],
  ] as const) {
    test(`passes with ${name}`, async () => {
      const result = await lintChart(values);
      assert.equal(result.code, 0, `helm lint failed:\n${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });
  }
});

describe('bad values are rejected with a message naming the value', () => {
  const cases: { name: string; values: ChartValues; message: RegExp }[] = [
    {
      name: 'ACT enabled without a namespace',
      values: { act: { enabled: true } },
      message: /\/act\/namespaces.*minItems/,
    },
    {
      name: 'an unknown model',
      values: { config: { model: 'gpt' } },
      message: /\/config\/model.*one of 'auto', 'anthropic', 'bedrock', 'vertex', 'openai', 'offline'/,
    },
    {
      name: 'a token shorter than 16 characters',
      values: { auth: { tokens: { ingest: ['short'] } } },
      message: /\/auth\/tokens\/ingest\/0.*minLength/,
    },
    {
      name: 'a misspelt top-level value',
      values: { replicas: 2 },
      message: /additional properties 'replicas' not allowed/,
    },
    {
      name: 'a misspelt nested value',
      values: { act: { enabled: false, namespaces: [], namespace: 'x' } },
      message: /\/act.*additional properties 'namespace' not allowed/,
    },
    {
      name: 'an unknown persistence type',
      values: { persistence: { type: 'hostPath' } },
      message: /\/persistence\/type.*one of/,
    },
    {
      name: 'an invalid namespace name',
      values: { act: { enabled: true, namespaces: ['Bad_Name'] } },
      message: /\/act\/namespaces\/0.*does not match pattern/,
    },
    { name: 'a privileged port', values: { containerPort: 80 }, message: /\/containerPort.*minimum/ },
    {
      name: 'a queue size of the wrong type',
      values: { config: { queueSize: 'many' } },
      message: /\/config\/queueSize.*integer/,
    },
    {
      name: 'the anthropic model without an API key',
      values: { config: { model: 'anthropic' } },
      message: /config\.model is "anthropic" but no API key is configured/,
    },
    {
      name: 'an ACT namespace outside the allowed namespaces',
      values: { act: { enabled: true, namespaces: ['shop'] }, config: { allowedNamespaces: ['staging'] } },
      message: /act\.namespaces contains "shop", which is not in config\.allowedNamespaces/,
    },
    {
      name: 'the API key as a plain extra environment variable',
      values: { extraEnv: [{ name: 'ANTHROPIC_API_KEY', value: 'sk-ant-plain' }] },
      message: /extraEnv sets ANTHROPIC_API_KEY, which the chart sets/,
    },
    {
      name: 'auth turned off through an extra environment variable',
      values: { extraEnv: [{ name: 'KUBEWHY_AUTH', value: 'off' }] },
      message: /extraEnv sets KUBEWHY_AUTH/,
    },
  ];

  for (const { name, values, message } of cases) {
    test(`rejects ${name}`, async () => {
      const result = await templateChart({ values });
      assert.notEqual(result.code, 0, `helm template accepted ${JSON.stringify(values)}`);
      assert.match(result.stderr, message);
    });
  }

  test('helm lint --strict rejects schema violations too', async () => {
    const result = await lintChart({ act: { enabled: true } });
    assert.notEqual(result.code, 0);
    assert.match(`${result.stdout}\n${result.stderr}`, /\/act\/namespaces.*minItems/);
  });
});
