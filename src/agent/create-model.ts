/**
 * Picks the model a run uses from the settings: Claude when an API key is configured,
 * the offline engine otherwise; and the fallback that diagnoses a run whose Claude
 * attempts keep failing.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Model } from './model.ts';
import { createOfflineModel } from './offline/offline-model.ts';

/**
 * `logger`: where the SDK's warnings go (the service's log); without it, the SDK's defaults.
 * The Anthropic adapter (and the SDK under it, hundreds of modules) is loaded only when
 * Claude is configured, so an offline run never pays for it.
 */
export async function createModel(settings: Config['model'], options: { logger?: Logger } = {}): Promise<Model> {
  if (settings.provider === 'offline') return createOfflineModel();
  const { createAnthropicModel } = await import('./anthropic-model.ts');
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
