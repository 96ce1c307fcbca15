/**
 * Picks the model a run uses from the settings: Claude when an API key is configured,
 * the offline engine otherwise.
 */
import type { Config } from '../config.ts';
import { createAnthropicModel } from './anthropic-model.ts';
import type { Model } from './model.ts';
import { createOfflineModel } from './offline/offline-model.ts';

export function createModel(settings: Config['model']): Model {
  if (settings.provider === 'offline') return createOfflineModel();
  return createAnthropicModel({
    apiKey: settings.apiKey,
    model: settings.name,
    maxRetries: settings.maxRetries,
    timeoutMs: settings.timeoutMs,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
  });
}
