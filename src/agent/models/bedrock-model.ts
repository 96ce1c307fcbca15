/**
 * Claude on Amazon Bedrock through `@anthropic-ai/bedrock-sdk`: requests go to
 * `POST /model/{modelId}/invoke` in the region's `bedrock-runtime` endpoint, SigV4-signed
 * for the `bedrock` service. Request building, turns and errors are the shared Claude
 * model's (anthropic-model.ts); errors read `Bedrock <status>: ...`.
 *
 * Credentials: the ones given, else the SDK's chain: a Bedrock API key in
 * `AWS_BEARER_TOKEN_BEDROCK`, else `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, else the
 * AWS default provider chain (shared config and SSO, web identity as IRSA/EKS Pod
 * Identity gives it, ECS and EC2 instance metadata). The SDK resolves them per request,
 * so rotated credentials are picked up; a chain that finds none fails the request as a
 * retryable connection error.
 *
 * Prompt caching: the SDK passes `cache_control` through untouched, and Bedrock caches
 * Claude prompts; the 1-hour lifetime is accepted only by the models Bedrock lists for
 * it (Claude Haiku/Sonnet/Opus 4.5 and later), another answers 400 ValidationException.
 */
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { buildClientOptions, createClaudeModel, type ClaudeProviderOptions } from './anthropic-model.ts';
import type { Model } from '../model.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface BedrockModelOptions extends ClaudeProviderOptions {
  /** The AWS region whose Bedrock endpoint serves the model, and the SigV4 credential scope's. */
  region: string;
  /** A Bedrock model id or inference profile: `us.anthropic.claude-sonnet-4-5-20250929-v1:0`. */
  model: string;
  /** Used as given when set; else the SDK's credential chain. */
  credentials?: AwsCredentials;
  /** Instead of `https://bedrock-runtime.<region>.amazonaws.com` (a VPC endpoint, a proxy). */
  baseUrl?: string;
}

export function createBedrockModel(options: BedrockModelOptions): Model {
  return createClaudeModel({ ...options, client: createBedrockClient(options), label: 'Bedrock' });
}

/** The SDK client the Bedrock model uses: region, endpoint and credentials as the options say. */
export function createBedrockClient(options: BedrockModelOptions): AnthropicBedrock {
  const shared = {
    awsRegion: options.region,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...buildClientOptions(options),
  };
  const { credentials } = options;
  if (!credentials) return new AnthropicBedrock(shared);
  return new AnthropicBedrock({
    ...shared,
    awsAccessKey: credentials.accessKeyId,
    awsSecretKey: credentials.secretAccessKey,
    awsSessionToken: credentials.sessionToken ?? null,
    // The SDK would let a Bedrock API key in the environment win over the credentials given.
    apiKey: null,
  });
}
