/**
 * Builds the model the settings choose (model-settings.ts): Claude on Anthropic's API, on
 * Bedrock or on Vertex AI, an OpenAI-compatible server, or the offline engine; and the
 * fallback that diagnoses a run whose model attempts keep failing. Each adapter (and the
 * SDK under it, hundreds of modules) is loaded only when chosen, so an offline run never
 * pays for them. Settings are plain data: worker threads build their own model from them.
 */
import type { Logger } from 'pino';
import type { ModelSettings } from '../model-settings.ts';
import type { Model } from './model.ts';
import { createOfflineModel } from './offline/offline-model.ts';

/** `logger`: where the SDK's warnings go (the service's log); without it, the SDK's defaults. */
export async function createModel(settings: ModelSettings, options: { logger?: Logger } = {}): Promise<Model> {
  const logger = options.logger ? { logger: options.logger } : {};
  switch (settings.provider) {
    case 'offline':
      return createOfflineModel();
    case 'anthropic': {
      const { createAnthropicModel } = await import('./anthropic-model.ts');
      return createAnthropicModel({
        apiKey: settings.apiKey,
        model: settings.name,
        maxRetries: settings.maxRetries,
        timeoutMs: settings.timeoutMs,
        promptCache: settings.promptCache,
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
        ...logger,
      });
    }
    case 'bedrock': {
      const { createBedrockModel } = await import('./bedrock-model.ts');
      return createBedrockModel({
        region: settings.region,
        model: settings.name,
        maxRetries: settings.maxRetries,
        timeoutMs: settings.timeoutMs,
        promptCache: settings.promptCache,
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
        ...logger,
      });
    }
    case 'vertex': {
      const { createVertexModel } = await import('./vertex-model.ts');
      return createVertexModel({
        region: settings.region,
        projectId: settings.projectId,
        model: settings.name,
        maxRetries: settings.maxRetries,
        timeoutMs: settings.timeoutMs,
        promptCache: settings.promptCache,
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
        ...logger,
      });
    }
    case 'openai': {
      const { createOpenAiModel } = await import('./openai-model.ts');
      return createOpenAiModel({
        model: settings.name,
        maxRetries: settings.maxRetries,
        timeoutMs: settings.timeoutMs,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
        ...(settings.azure ? { azure: { ...settings.azure, deployment: settings.name } } : {}),
        ...logger,
      });
    }
  }
}

/** The fallback model and the start of a run from which it takes over; none for the offline engine itself. */
export function createFallback(settings: ModelSettings): { fallbackModel?: Model; fallbackAfterAttempts?: number } {
  if (settings.provider === 'offline' || settings.fallback === 'none') return {};
  return { fallbackModel: createOfflineModel(), fallbackAfterAttempts: settings.fallbackAfterAttempts };
}
