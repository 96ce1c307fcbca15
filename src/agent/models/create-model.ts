/**
 * Builds the model the settings choose (model-settings.ts): Claude on Anthropic's API, on
 * Bedrock or on Vertex AI, an OpenAI-compatible server, or the offline engine; and the
 * fallback that diagnoses a run whose model attempts keep failing. Each adapter (and the
 * SDK under it, hundreds of modules) is loaded only when chosen, so an offline run never
 * pays for them. Settings are plain data: worker threads build their own model from them.
 */
import type { Logger } from 'pino';
import type { ModelSettings } from '../../model-settings.ts';
import type { Model } from '../model.ts';
import { createOfflineModel } from '../offline/offline-model.ts';

/** `logger`: where the SDK's warnings go (the service's log); without it, the SDK's defaults. */
export async function createModel(settings: ModelSettings, options: { logger?: Logger } = {}): Promise<Model> {
  if (settings.provider === 'offline') return createOfflineModel();
  // What every adapter takes the same way.
  const common = {
    model: settings.name,
    maxRetries: settings.maxRetries,
    timeoutMs: settings.timeoutMs,
    ...(options.logger ? { logger: options.logger } : {}),
  };
  const baseUrl = settings.baseUrl ? { baseUrl: settings.baseUrl } : {};
  switch (settings.provider) {
    case 'anthropic': {
      const { createAnthropicModel } = await import('./anthropic-model.ts');
      return createAnthropicModel({
        ...common,
        ...baseUrl,
        apiKey: settings.apiKey,
        promptCache: settings.promptCache,
      });
    }
    case 'bedrock': {
      const { createBedrockModel } = await import('./bedrock-model.ts');
      return createBedrockModel({ ...common, ...baseUrl, region: settings.region, promptCache: settings.promptCache });
    }
    case 'vertex': {
      const { createVertexModel } = await import('./vertex-model.ts');
      return createVertexModel({
        ...common,
        ...baseUrl,
        region: settings.region,
        projectId: settings.projectId,
        promptCache: settings.promptCache,
      });
    }
    case 'openai': {
      const { createOpenAiModel } = await import('./openai-model.ts');
      return createOpenAiModel({
        ...common,
        ...baseUrl,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...(settings.azure ? { azure: { ...settings.azure, deployment: settings.name } } : {}),
      });
    }
  }
}

/** The fallback model and the start of a run from which it takes over; none for the offline engine itself. */
export function createFallback(settings: ModelSettings): { fallbackModel?: Model; fallbackAfterAttempts?: number } {
  if (settings.provider === 'offline' || settings.fallback === 'none') return {};
  return { fallbackModel: createOfflineModel(), fallbackAfterAttempts: settings.fallbackAfterAttempts };
}
