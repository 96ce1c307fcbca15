/**
 * `list_secrets`: Secrets by name, type and keys. Values never leave the cluster client:
 * the `Cluster` interface itself hands out names and keys only.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import type { SecretSummary } from '../cluster/cluster.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface SecretsData {
  namespace: string;
  secrets: Array<Omit<SecretSummary, 'creationTimestamp'> & { ageSeconds?: number }>;
}

const input = z.object({
  namespace: namespaceName().describe('Namespace'),
  name: objectName().optional().describe('One Secret by name, to check it exists and which keys it has'),
});

export const listSecretsTool: ReadTool<typeof input, SecretsData, 'list_secrets'> = {
  name: 'list_secrets',
  description:
    'Lists Secrets with their type and key names (never values). Use it to check that a Secret, or a key of it, that a pod references ' +
    '(secretKeyRef, envFrom, volume, imagePullSecrets) exists.',
  input,
  risk: 'read',
  async run(args, context) {
    const listed = await context.cluster.listSecrets({
      namespace: args.namespace,
      ...(args.name ? { name: args.name } : {}),
      signal: context.signal,
    });
    if (!listed.ok) {
      return failureFrom(
        listed.error,
        listed.error.kind === 'not-found'
          ? `Secret "${args.name}" does not exist in namespace "${args.namespace}". Pods that reference it fail with CreateContainerConfigError or FailedMount.`
          : undefined,
      );
    }
    const now = context.cluster.now();
    const secrets = listed.value
      .filter((secret) => secret.type !== 'kubernetes.io/service-account-token' || args.name !== undefined)
      .map(({ creationTimestamp, ...secret }) => ({
        ...secret,
        ...(creationTimestamp
          ? { ageSeconds: Math.round((now.getTime() - new Date(creationTimestamp).getTime()) / 1000) }
          : {}),
      }))
      .sort((left, right) => left.name.localeCompare(right.name));
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(`${secrets.length} Secret(s) in ${args.namespace} (names, types and keys only; values are never shown):`);
    for (const secret of secrets) {
      const age =
        secret.ageSeconds !== undefined ? formatAge(new Date(now.getTime() - secret.ageSeconds * 1000), now) : '?';
      if (!text.add(`${secret.name}: type ${secret.type}, age ${age}, keys ${secret.keys.join(', ') || '(none)'}`))
        break;
    }
    return success(
      text.finish('ask for one Secret by name.'),
      { namespace: args.namespace, secrets } satisfies SecretsData,
      text.truncated,
    );
  },
};
