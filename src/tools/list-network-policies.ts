/**
 * `list_network_policies`: a namespace's NetworkPolicies: which pods each selects, the
 * directions it isolates, and the peers and ports it lets in or out.
 */
import { z } from 'zod';
import { namespaceName } from './names.ts';
import type { V1NetworkPolicyPeer, V1NetworkPolicyPort } from '@kubernetes/client-node';
import { BudgetedText } from './format/budget.ts';
import { formatLabelSelector } from './format/selectors.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface NetworkPolicyData {
  name: string;
  /** Pods it applies to (`(all pods)` for an empty selector). */
  podSelector: string;
  policyTypes: string[];
  /** One string per rule: peers and ports; an empty list under a listed type means deny all. */
  ingress: string[];
  egress: string[];
}

export interface NetworkPoliciesData {
  namespace: string;
  policies: NetworkPolicyData[];
}

const input = z.object({ namespace: namespaceName().describe('Namespace') });

function formatPeer(peer: V1NetworkPolicyPeer): string {
  if (peer.ipBlock)
    return `ipBlock ${peer.ipBlock.cidr}${peer.ipBlock.except?.length ? ` except ${peer.ipBlock.except.join(',')}` : ''}`;
  const parts: string[] = [];
  if (peer.namespaceSelector) parts.push(`namespaces{${formatLabelSelector(peer.namespaceSelector) || 'all'}}`);
  if (peer.podSelector) parts.push(`pods{${formatLabelSelector(peer.podSelector) || 'all'}}`);
  return parts.join(' ');
}

function formatRule(peers: V1NetworkPolicyPeer[] | undefined, ports: V1NetworkPolicyPort[] | undefined): string {
  const who = peers?.length ? peers.map(formatPeer).join(' | ') : 'anyone';
  const where = ports?.length
    ? ports
        .map((port) => `${port.protocol ?? 'TCP'}/${port.port ?? '*'}${port.endPort ? `-${port.endPort}` : ''}`)
        .join(',')
    : 'all ports';
  return `${who} on ${where}`;
}

export const listNetworkPoliciesTool: ReadTool<typeof input, NetworkPoliciesData, 'list_network_policies'> = {
  name: 'list_network_policies',
  description:
    "Lists a namespace's NetworkPolicies: which pods each selects, whether it isolates ingress and/or egress, and the peers and ports it allows " +
    '(an Egress policy without a DNS rule blocks name resolution). Use it when an app times out or cannot resolve or reach a dependency.',
  input,
  risk: 'read',
  async run(args, context) {
    const listed = await context.cluster.list('NetworkPolicy', {
      namespace: args.namespace,
      maxItems: 500,
      signal: context.signal,
    });
    if (!listed.ok) return failureFrom(listed.error);
    const policies = listed.value.items.map((policy): NetworkPolicyData => {
      const types = policy.spec?.policyTypes ?? (policy.spec?.egress ? ['Ingress', 'Egress'] : ['Ingress']);
      return {
        name: policy.metadata?.name ?? '',
        podSelector: formatLabelSelector(policy.spec?.podSelector) || '(all pods)',
        policyTypes: types,
        ingress: (policy.spec?.ingress ?? []).map((rule) => formatRule(rule._from, rule.ports)),
        egress: (policy.spec?.egress ?? []).map((rule) => formatRule(rule.to, rule.ports)),
      };
    });
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(
      `${policies.length} NetworkPolicy(ies) in ${args.namespace}${policies.length === 0 ? ': no isolation, all traffic allowed' : ''}.`,
    );
    for (const policy of policies) {
      const lines = [`${policy.name}: applies to ${policy.podSelector}, isolates ${policy.policyTypes.join('+')}`];
      if (policy.policyTypes.includes('Ingress'))
        lines.push(
          `  ingress allowed from: ${policy.ingress.length ? policy.ingress.join('; ') : 'NOTHING (deny all ingress)'}`,
        );
      if (policy.policyTypes.includes('Egress'))
        lines.push(
          `  egress allowed to: ${policy.egress.length ? policy.egress.join('; ') : 'NOTHING (deny all egress, DNS included)'}`,
        );
      if (!text.add(lines.join('\n'))) break;
    }
    return success(
      text.finish('the namespace has many policies; this is a partial list.'),
      { namespace: args.namespace, policies } satisfies NetworkPoliciesData,
      text.truncated,
    );
  },
};
