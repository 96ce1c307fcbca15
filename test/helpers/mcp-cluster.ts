/**
 * The demo scenario (checkout-secret-rotation) on a mock cluster the test owns, with a
 * canary credential in its checkout-db Secret: the MCP tests point kubewhy at it through a
 * kubeconfig and read the mock's state directly to see what changed (or did not).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadScenario, startMockCluster, type MockCluster } from '../../mock-cluster/index.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'kubewhy.js');
export const SCENARIO_DIR = join(ROOT, 'mock-cluster', 'scenarios', 'checkout-secret-rotation');

/** A value that must never leave the cluster, and the base64 form the Secret holds it in. */
export const CANARY = 'CanaryMcpPassw0rd77';
export const CANARY_BASE64 = Buffer.from(CANARY).toString('base64');

export async function startCanaryCluster(): Promise<MockCluster> {
  const scenario = await loadScenario(SCENARIO_DIR);
  const secret = scenario.objects.find((object) => object.kind === 'Secret' && object.metadata?.name === 'checkout-db');
  if (!secret) throw new Error('the scenario has no Secret checkout-db');
  (secret as { data?: Record<string, string> }).data = {
    ...(secret as { data?: Record<string, string> }).data,
    'db-password': CANARY_BASE64,
  };
  return startMockCluster({ scenario });
}

/** The Deployment's revision annotation and image: what a rollout undo changes. */
export function deploymentState(mock: MockCluster, namespace: string, name: string): string {
  const deployment = mock.get('Deployment', namespace, name) as
    | { metadata?: { annotations?: Record<string, string>; generation?: number }; spec?: { template?: unknown } }
    | undefined;
  return JSON.stringify({ annotations: deployment?.metadata?.annotations, template: deployment?.spec?.template });
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
