import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_AZURE_API_VERSION } from './model-settings.ts';

const common = { maxRetries: 3, timeoutMs: 120_000, fallback: 'offline', fallbackAfterAttempts: 3 };

test('auto is Claude with an Anthropic key and the offline engine without one', () => {
  assert.deepEqual(loadConfig({}).model, { provider: 'offline' });
  assert.deepEqual(loadConfig({ ANTHROPIC_API_KEY: 'sk-ant-1' }).model, {
    provider: 'anthropic',
    ...common,
    name: DEFAULT_ANTHROPIC_MODEL,
    apiKey: 'sk-ant-1',
    promptCache: '5m',
  });
  // An OpenAI key alone does not choose OpenAI: what leaves the cluster is chosen by name.
  assert.deepEqual(loadConfig({ OPENAI_API_KEY: 'sk-1' }).model, { provider: 'offline' });
});

test('each provider with what it needs', () => {
  assert.deepEqual(
    loadConfig({
      KUBEWHY_MODEL: 'bedrock',
      AWS_REGION: 'eu-west-1',
      KUBEWHY_MODEL_NAME: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    }).model,
    {
      provider: 'bedrock',
      ...common,
      name: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
      region: 'eu-west-1',
      promptCache: '5m',
    },
  );
  assert.equal(
    loadConfig({ KUBEWHY_MODEL: 'bedrock', AWS_DEFAULT_REGION: 'us-east-1', KUBEWHY_MODEL_NAME: 'm' }).model
      .provider === 'bedrock' && 'us-east-1',
    'us-east-1',
  );
  assert.deepEqual(
    loadConfig({
      KUBEWHY_MODEL: 'vertex',
      CLOUD_ML_REGION: 'europe-west1',
      ANTHROPIC_VERTEX_PROJECT_ID: 'sre-tools',
      KUBEWHY_MODEL_NAME: 'claude-sonnet-4-5@20250929',
      KUBEWHY_MODEL_BASE_URL: 'https://vertex.internal/v1',
    }).model,
    {
      provider: 'vertex',
      ...common,
      name: 'claude-sonnet-4-5@20250929',
      region: 'europe-west1',
      projectId: 'sre-tools',
      baseUrl: 'https://vertex.internal/v1',
      promptCache: '5m',
    },
  );
  assert.deepEqual(
    loadConfig({ KUBEWHY_MODEL: 'openai', OPENAI_API_KEY: 'sk-1', KUBEWHY_MODEL_NAME: 'gpt-4.1' }).model,
    { provider: 'openai', ...common, name: 'gpt-4.1', apiKey: 'sk-1' },
  );
  assert.deepEqual(
    loadConfig({
      KUBEWHY_MODEL: 'openai',
      OPENAI_BASE_URL: 'http://ollama:11434/v1',
      KUBEWHY_MODEL_NAME: 'llama3.1:8b',
    }).model,
    { provider: 'openai', ...common, name: 'llama3.1:8b', baseUrl: 'http://ollama:11434/v1' },
  );
  assert.deepEqual(
    loadConfig({
      KUBEWHY_MODEL: 'openai',
      AZURE_OPENAI_ENDPOINT: 'https://sre.openai.azure.com',
      AZURE_OPENAI_API_KEY: 'az-1',
      KUBEWHY_MODEL_NAME: 'gpt-4o-prod',
    }).model,
    {
      provider: 'openai',
      ...common,
      name: 'gpt-4o-prod',
      apiKey: 'az-1',
      azure: { endpoint: 'https://sre.openai.azure.com', apiVersion: DEFAULT_AZURE_API_VERSION },
    },
  );
});

test('KUBEWHY_MODEL_NAME names the Claude model too, over KUBEWHY_ANTHROPIC_MODEL', () => {
  const model = loadConfig({
    ANTHROPIC_API_KEY: 'k',
    KUBEWHY_ANTHROPIC_MODEL: 'claude-old',
    KUBEWHY_MODEL_NAME: 'claude-new',
  }).model;
  assert.equal(model.provider === 'anthropic' && model.name, 'claude-new');
  const legacy = loadConfig({ ANTHROPIC_API_KEY: 'k', KUBEWHY_ANTHROPIC_MODEL: 'claude-old' }).model;
  assert.equal(legacy.provider === 'anthropic' && legacy.name, 'claude-old');
});

test('keys are read from files', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-model-keys-'));
  try {
    writeFileSync(join(directory, 'anthropic'), 'sk-ant-from-file\n');
    writeFileSync(join(directory, 'openai'), 'sk-openai-from-file\n');
    const claude = loadConfig({ KUBEWHY_ANTHROPIC_API_KEY_FILE: join(directory, 'anthropic') }).model;
    assert.equal(claude.provider === 'anthropic' && claude.apiKey, 'sk-ant-from-file');
    const openai = loadConfig({
      KUBEWHY_MODEL: 'openai',
      KUBEWHY_OPENAI_API_KEY_FILE: join(directory, 'openai'),
      KUBEWHY_MODEL_NAME: 'gpt-4.1',
    }).model;
    assert.equal(openai.provider === 'openai' && openai.apiKey, 'sk-openai-from-file');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

const badCombinations: { name: string; environment: Record<string, string>; message: RegExp }[] = [
  {
    name: 'anthropic without a key',
    environment: { KUBEWHY_MODEL: 'anthropic' },
    message: /anthropic needs ANTHROPIC_API_KEY \(or KUBEWHY_ANTHROPIC_API_KEY_FILE\)/,
  },
  {
    name: 'bedrock without a region',
    environment: { KUBEWHY_MODEL: 'bedrock', KUBEWHY_MODEL_NAME: 'm' },
    message: /bedrock needs AWS_REGION/,
  },
  {
    name: 'bedrock without a model',
    environment: { KUBEWHY_MODEL: 'bedrock', AWS_REGION: 'eu-west-1' },
    message: /bedrock needs KUBEWHY_MODEL_NAME \(a Bedrock model id or inference profile/,
  },
  {
    name: 'vertex without a project',
    environment: { KUBEWHY_MODEL: 'vertex', CLOUD_ML_REGION: 'us-east5', KUBEWHY_MODEL_NAME: 'm' },
    message: /vertex needs ANTHROPIC_VERTEX_PROJECT_ID/,
  },
  {
    name: 'vertex without region and project',
    environment: { KUBEWHY_MODEL: 'vertex', KUBEWHY_MODEL_NAME: 'm' },
    message: /vertex needs CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID/,
  },
  {
    name: "OpenAI's API without a key",
    environment: { KUBEWHY_MODEL: 'openai', KUBEWHY_MODEL_NAME: 'gpt-4.1' },
    message: /openai needs OPENAI_API_KEY .* or OPENAI_BASE_URL for a server of your own/,
  },
  {
    name: 'openai without a model',
    environment: { KUBEWHY_MODEL: 'openai', OPENAI_BASE_URL: 'http://ollama:11434/v1' },
    message: /openai needs KUBEWHY_MODEL_NAME/,
  },
  {
    name: 'two OpenAI addresses',
    environment: {
      KUBEWHY_MODEL: 'openai',
      OPENAI_BASE_URL: 'http://a/v1',
      AZURE_OPENAI_ENDPOINT: 'https://b',
      KUBEWHY_MODEL_NAME: 'm',
    },
    message: /OPENAI_BASE_URL and AZURE_OPENAI_ENDPOINT are both set/,
  },
  {
    name: 'Azure without its key',
    environment: { KUBEWHY_MODEL: 'openai', AZURE_OPENAI_ENDPOINT: 'https://b', KUBEWHY_MODEL_NAME: 'm' },
    message: /needs AZURE_OPENAI_API_KEY/,
  },
  {
    name: 'a key twice',
    environment: { ANTHROPIC_API_KEY: 'a', KUBEWHY_ANTHROPIC_API_KEY_FILE: '/x' },
    message: /ANTHROPIC_API_KEY and KUBEWHY_ANTHROPIC_API_KEY_FILE are both set/,
  },
  {
    name: 'a key file that is not there',
    environment: { KUBEWHY_ANTHROPIC_API_KEY_FILE: '/nonexistent/key' },
    message: /KUBEWHY_ANTHROPIC_API_KEY_FILE: cannot read \/nonexistent\/key: ENOENT/,
  },
  { name: 'an unknown provider', environment: { KUBEWHY_MODEL: 'gemini' }, message: /KUBEWHY_MODEL/ },
];

for (const combination of badCombinations) {
  test(`the start stops on ${combination.name}, naming the settings`, () => {
    assert.throws(
      () => loadConfig(combination.environment),
      (error: unknown) => error instanceof ConfigError && combination.message.test(error.message),
    );
  });
}
