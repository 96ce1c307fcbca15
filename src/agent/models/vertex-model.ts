/**
 * Claude on Google Vertex AI through `@anthropic-ai/vertex-sdk`: requests go to
 * `POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict`
 * with a Google OAuth bearer token. Request building, turns and errors are the shared
 * Claude model's (anthropic-model.ts); errors read `Vertex AI <status>: ...`.
 *
 * Tokens: from `accessToken` when given (asked before every request, so a source that
 * caches and refreshes is honoured), and then Application Default Credentials are never
 * consulted; else ADC with the cloud-platform scope (GOOGLE_APPLICATION_CREDENTIALS, the
 * gcloud well-known file, the metadata server as GKE Workload Identity serves it),
 * looked up at the first request, and at the next one after a lookup failed.
 *
 * Why not the SDK's own `accessToken` and `googleAuth` options: the SDK keeps
 * `accessToken` but never sends it, and given no `authClient` it starts resolving ADC in
 * its constructor, once: a failure then is an unhandled rejection (which ends a Node
 * process) and breaks every later request. A small auth client avoids both.
 *
 * Prompt caching: the SDK passes `cache_control` through untouched; Vertex AI caches
 * Claude prompts with the 5-minute and the 1-hour lifetimes.
 */
import { AnthropicVertex, type ClientOptions as VertexClientOptions } from '@anthropic-ai/vertex-sdk';
import { GoogleAuth } from 'google-auth-library';
import { buildClientOptions, createClaudeModel, type ClaudeProviderOptions } from './anthropic-model.ts';
import type { Model } from '../model.ts';

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface VertexModelOptions extends ClaudeProviderOptions {
  /** A Vertex AI region (`us-east5`, `europe-west1`) or `global`. */
  region: string;
  projectId: string;
  /** The model as Vertex names it: `claude-sonnet-4-5@20250929`. */
  model: string;
  /** An OAuth access token, asked for before each request; without it, Application Default Credentials. */
  accessToken?: () => Promise<string> | string;
  /** Instead of the region's `https://<region>-aiplatform.googleapis.com/v1` (a Private Service Connect endpoint, a proxy). */
  baseUrl?: string;
}

type AuthClient = NonNullable<VertexClientOptions['authClient']>;

export function createVertexModel(options: VertexModelOptions): Model {
  return createClaudeModel({ ...options, client: createVertexClient(options), label: 'Vertex AI' });
}

/** The SDK client the Vertex model uses: region, project, endpoint and token source as the options say. */
export function createVertexClient(options: VertexModelOptions): AnthropicVertex {
  return new AnthropicVertex({
    region: options.region,
    projectId: options.projectId,
    authClient: options.accessToken
      ? createTokenAuthClient(options.accessToken)
      : createDefaultCredentialsAuthClient(options.projectId),
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...buildClientOptions(options),
  });
}

/**
 * An auth client in the shape the SDK uses (it calls `getRequestHeaders()` before each
 * request and reads `projectId`, nothing else); a full google-auth-library AuthClient
 * would need an HTTP transport this one never uses.
 */
function createHeaderAuthClient(getRequestHeaders: () => Promise<Headers>): AuthClient {
  const client = { projectId: null, getRequestHeaders };
  return client as unknown as AuthClient;
}

function createTokenAuthClient(accessToken: () => Promise<string> | string): AuthClient {
  return createHeaderAuthClient(async () => new Headers({ authorization: `Bearer ${await accessToken()}` }));
}

/**
 * ADC, looked up at the first request; GoogleAuth keeps what it found, and looks again
 * after a failure. Given the project, it never looks for one (which would run the
 * `gcloud` CLI and ask the metadata server).
 */
function createDefaultCredentialsAuthClient(projectId: string): AuthClient {
  const auth = new GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE, projectId });
  return createHeaderAuthClient(() => auth.getRequestHeaders());
}
