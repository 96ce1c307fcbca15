/**
 * Picks the model a run uses from the settings: Claude when an API key is configured,
 * the offline engine otherwise; and the fallback that diagnoses a run whose Claude
 * attempts keep failing.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createAnthropicModel } from './anthropic-model.ts';
import type { Model } from './model.ts';
import { createOfflineModel } from './offline/offline-model.ts';

/** `logger`: where the SDK's warnings go (the service's log); without it, the SDK's defaults. */
export function createModel(settings: Config['model'], options: { logger?: Logger } = {}): Model {
  if (settings.provider === 'offline') return createOfflineModel();
  return createAnthropicModel({
    apiKey: settings.apiKey,
    model: settings.name,
    maxRetries: settings.maxRetries,
    timeoutMs: settings.timeoutMs,
    promptCache: settings.promptCache,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/** The fallback model and the start of a run from which it takes over; none for the offline engine itself. */
export function createFallback(settings: Config['model']): { fallbackModel?: Model; fallbackAfterAttempts?: number } {
  if (settings.provider === 'offline' || settings.fallback === 'none') return {};
  return { fallbackModel: createOfflineModel(), fallbackAfterAttempts: settings.fallbackAfterAttempts };
}
