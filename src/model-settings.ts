/**
 * Which model diagnoses, from the environment: Claude through Anthropic's API, on Amazon
 * Bedrock or on Google Vertex AI, any OpenAI-compatible Chat Completions server (OpenAI,
 * Azure OpenAI, Ollama, vLLM, LM Studio, LiteLLM), or the offline engine. Part of the
 * settings config.ts parses; a combination that cannot work (a provider without its model
 * name, region or credentials, two base URLs at once) stops the start with a message that
 * names the settings involved.
 *
 * Credentials come from the environment or from files: `ANTHROPIC_API_KEY` or
 * `KUBEWHY_ANTHROPIC_API_KEY_FILE`, `OPENAI_API_KEY` or `KUBEWHY_OPENAI_API_KEY_FILE`
 * (`AZURE_OPENAI_API_KEY` for Azure); Bedrock takes the AWS SDK's chain (environment,
 * shared files, web identity as IRSA mounts it, instance roles), Vertex Google's
 * Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, workload identity).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The Claude model used when neither KUBEWHY_MODEL_NAME nor KUBEWHY_ANTHROPIC_MODEL is set:
 * the newest Sonnet the SDK knows and does not list as deprecated (claude-sonnet-4-5
 * reached its end of life on 2026-11-30).
 */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';

export const MODEL_PROVIDERS = ['auto', 'anthropic', 'bedrock', 'vertex', 'openai', 'offline'] as const;

/** The Azure OpenAI API version used when OPENAI_API_VERSION is not set (the newest GA one). */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

const positiveInteger = z.coerce.number().int().min(1);
const secretFile = z.string().min(1).optional();

/** The model settings as environment variables; config.ts spreads them into its schema. */
export const modelEnvironmentShape = {
  KUBEWHY_MODEL: z.enum(MODEL_PROVIDERS).default('auto'),
  /** The model for any provider; for Bedrock a model id or inference profile, for Azure the deployment. */
  KUBEWHY_MODEL_NAME: z.string().min(1).optional(),
  KUBEWHY_MODEL_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  KUBEWHY_MODEL_TIMEOUT_SECONDS: positiveInteger.default(120),
  /** What diagnoses a run whose model keeps failing: the offline engine, or nothing (the run fails). */
  KUBEWHY_MODEL_FALLBACK: z.enum(['offline', 'none']).default('offline'),
  /** The start of a run (2 = the second) from which the fallback diagnoses it instead of the model, when earlier starts ended on model failures. */
  KUBEWHY_MODEL_ATTEMPTS: z.coerce.number().int().min(2).max(10).default(3),
  /** Prompt-cache lifetime of the system prompt and tools (Claude): 5m, 1h (writes cost 2× instead of 1.25×), or off. */
  KUBEWHY_PROMPT_CACHE: z.enum(['5m', '1h', 'off']).default('5m'),

  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  KUBEWHY_ANTHROPIC_API_KEY_FILE: secretFile,
  ANTHROPIC_BASE_URL: z.url().optional(),
  /** The Claude model on Anthropic's API (KUBEWHY_MODEL_NAME wins). */
  KUBEWHY_ANTHROPIC_MODEL: z.string().min(1).optional(),

  /** Bedrock's region; AWS_DEFAULT_REGION when unset. */
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  /** Vertex AI's region and project (the names Google's and Anthropic's SDKs use). */
  CLOUD_ML_REGION: z.string().min(1).optional(),
  ANTHROPIC_VERTEX_PROJECT_ID: z.string().min(1).optional(),
  /** Another address for Bedrock's or Vertex's API (a VPC endpoint, a proxy). */
  KUBEWHY_MODEL_BASE_URL: z.url().optional(),

  OPENAI_API_KEY: z.string().min(1).optional(),
  KUBEWHY_OPENAI_API_KEY_FILE: secretFile,
  /** An OpenAI-compatible server: Ollama (http://host:11434/v1), vLLM, LM Studio, LiteLLM... */
  OPENAI_BASE_URL: z.url().optional(),
  AZURE_OPENAI_ENDPOINT: z.url().optional(),
  AZURE_OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_API_VERSION: z.string().min(1).optional(),
};

type ModelEnvironment = z.infer<z.ZodObject<typeof modelEnvironmentShape>>;

interface CommonModelSettings {
  name: string;
  maxRetries: number;
  timeoutMs: number;
  /** fallback diagnoses a run from its `fallbackAfterAttempts`-th start on. */
  fallback: 'offline' | 'none';
  fallbackAfterAttempts: number;
}

export type ModelSettings =
  | { provider: 'offline' }
  | (CommonModelSettings & {
      provider: 'anthropic';
      apiKey: string;
      baseUrl?: string;
      promptCache: '5m' | '1h' | 'off';
    })
  | (CommonModelSettings & { provider: 'bedrock'; region: string; baseUrl?: string; promptCache: '5m' | '1h' | 'off' })
  | (CommonModelSettings & {
      provider: 'vertex';
      region: string;
      projectId: string;
      baseUrl?: string;
      promptCache: '5m' | '1h' | 'off';
    })
  | (CommonModelSettings & {
      provider: 'openai';
      apiKey?: string;
      baseUrl?: string;
      azure?: { endpoint: string; apiVersion: string };
    });

/** A combination of settings that cannot work; config.ts reports it as an invalid setting. */
export class ModelSettingsError extends Error {
  override name = 'ModelSettingsError';
}

/** The model the settings choose; `auto` is Claude when an Anthropic key is set, else the offline engine. */
export function resolveModel(settings: ModelEnvironment): ModelSettings {
  const anthropicKey = secretOf(settings, 'ANTHROPIC_API_KEY', 'KUBEWHY_ANTHROPIC_API_KEY_FILE');
  const provider =
    settings.KUBEWHY_MODEL === 'auto' ? (anthropicKey ? 'anthropic' : 'offline') : settings.KUBEWHY_MODEL;
  if (provider === 'offline') return { provider: 'offline' };
  const common = {
    maxRetries: settings.KUBEWHY_MODEL_MAX_RETRIES,
    timeoutMs: settings.KUBEWHY_MODEL_TIMEOUT_SECONDS * 1000,
    fallback: settings.KUBEWHY_MODEL_FALLBACK,
    fallbackAfterAttempts: settings.KUBEWHY_MODEL_ATTEMPTS,
  };
  const baseUrl = settings.KUBEWHY_MODEL_BASE_URL ? { baseUrl: settings.KUBEWHY_MODEL_BASE_URL } : {};
  switch (provider) {
    case 'anthropic':
      if (!anthropicKey)
        throw new ModelSettingsError(
          'KUBEWHY_MODEL: anthropic needs ANTHROPIC_API_KEY (or KUBEWHY_ANTHROPIC_API_KEY_FILE) to be set',
        );
      return {
        provider,
        ...common,
        name: settings.KUBEWHY_MODEL_NAME ?? settings.KUBEWHY_ANTHROPIC_MODEL ?? DEFAULT_ANTHROPIC_MODEL,
        apiKey: anthropicKey,
        ...(settings.ANTHROPIC_BASE_URL ? { baseUrl: settings.ANTHROPIC_BASE_URL } : {}),
        promptCache: settings.KUBEWHY_PROMPT_CACHE,
      };
    case 'bedrock': {
      const region = settings.AWS_REGION ?? settings.AWS_DEFAULT_REGION;
      if (!region)
        throw new ModelSettingsError(
          'KUBEWHY_MODEL: bedrock needs AWS_REGION (or AWS_DEFAULT_REGION): the region whose Bedrock serves the model',
        );
      return {
        provider,
        ...common,
        name: requireName(
          settings,
          'bedrock',
          'a Bedrock model id or inference profile, e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        ),
        region,
        ...baseUrl,
        promptCache: settings.KUBEWHY_PROMPT_CACHE,
      };
    }
    case 'vertex': {
      const missing = [
        settings.CLOUD_ML_REGION ? undefined : 'CLOUD_ML_REGION',
        settings.ANTHROPIC_VERTEX_PROJECT_ID ? undefined : 'ANTHROPIC_VERTEX_PROJECT_ID',
      ].filter(Boolean);
      if (missing.length > 0)
        throw new ModelSettingsError(
          `KUBEWHY_MODEL: vertex needs ${missing.join(' and ')}: the region and the Google Cloud project that serve Claude`,
        );
      return {
        provider,
        ...common,
        name: requireName(settings, 'vertex', 'a Claude model on Vertex AI, e.g. claude-sonnet-4-5@20250929'),
        region: settings.CLOUD_ML_REGION!,
        projectId: settings.ANTHROPIC_VERTEX_PROJECT_ID!,
        ...baseUrl,
        promptCache: settings.KUBEWHY_PROMPT_CACHE,
      };
    }
    case 'openai':
      return resolveOpenAi(settings, common);
  }
}

function resolveOpenAi(settings: ModelEnvironment, common: Omit<CommonModelSettings, 'name'>): ModelSettings {
  if (settings.AZURE_OPENAI_ENDPOINT && settings.OPENAI_BASE_URL) {
    throw new ModelSettingsError(
      'OPENAI_BASE_URL and AZURE_OPENAI_ENDPOINT are both set: set OPENAI_BASE_URL for an OpenAI-compatible server, or AZURE_OPENAI_ENDPOINT for Azure OpenAI, not both',
    );
  }
  if (settings.AZURE_OPENAI_ENDPOINT) {
    if (!settings.AZURE_OPENAI_API_KEY)
      throw new ModelSettingsError('KUBEWHY_MODEL: openai with AZURE_OPENAI_ENDPOINT needs AZURE_OPENAI_API_KEY');
    return {
      provider: 'openai',
      ...common,
      name: requireName(settings, 'openai', 'the Azure OpenAI deployment name'),
      apiKey: settings.AZURE_OPENAI_API_KEY,
      azure: {
        endpoint: settings.AZURE_OPENAI_ENDPOINT,
        apiVersion: settings.OPENAI_API_VERSION ?? DEFAULT_AZURE_API_VERSION,
      },
    };
  }
  const apiKey = secretOf(settings, 'OPENAI_API_KEY', 'KUBEWHY_OPENAI_API_KEY_FILE');
  // A local server (Ollama, vLLM) needs no key; OpenAI's own API does.
  if (!apiKey && !settings.OPENAI_BASE_URL)
    throw new ModelSettingsError(
      "KUBEWHY_MODEL: openai needs OPENAI_API_KEY (or KUBEWHY_OPENAI_API_KEY_FILE) for OpenAI's API, or OPENAI_BASE_URL for a server of your own (Ollama, vLLM, LiteLLM...)",
    );
  return {
    provider: 'openai',
    ...common,
    name: requireName(settings, 'openai', 'e.g. gpt-4.1, or llama3.1:8b on Ollama'),
    ...(apiKey ? { apiKey } : {}),
    ...(settings.OPENAI_BASE_URL ? { baseUrl: settings.OPENAI_BASE_URL } : {}),
  };
}

function requireName(settings: ModelEnvironment, provider: string, example: string): string {
  if (!settings.KUBEWHY_MODEL_NAME)
    throw new ModelSettingsError(`KUBEWHY_MODEL: ${provider} needs KUBEWHY_MODEL_NAME (${example})`);
  return settings.KUBEWHY_MODEL_NAME;
}

/** A credential from its variable or from the file its `_FILE` variable names; both set is a mistake. */
function secretOf(
  settings: ModelEnvironment,
  variable: 'ANTHROPIC_API_KEY' | 'OPENAI_API_KEY',
  fileVariable: 'KUBEWHY_ANTHROPIC_API_KEY_FILE' | 'KUBEWHY_OPENAI_API_KEY_FILE',
): string | undefined {
  const value = settings[variable];
  const file = settings[fileVariable];
  if (value && file) throw new ModelSettingsError(`${variable} and ${fileVariable} are both set: set one`);
  if (!file) return value;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ModelSettingsError(
      `${fileVariable}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (!text) throw new ModelSettingsError(`${fileVariable}: ${file} is empty`);
  return text;
}
