/**
 * Rule `pod-evicted`: a pod the kubelet evicted for its node's shortage; the node is the
 * culprit, whatever its containers were doing.
 */
import type { Case, Finding } from '../case.ts';
import { nodeFinding } from './node-unhealthy.ts';

export function evictionFinding(gathered: Case): Finding {
  const pod = gathered.pod!;
  const node = gathered.node;
  const evidence = [`pod ${pod.name} was Evicted from node ${pod.node ?? '?'}: ${pod.message ?? 'no message'}`];
  if (node) evidence.push(...nodeFinding(gathered).evidence);
  return {
    category: 'node-failure',
    cause: `node ${pod.node ?? '?'} evicts pods: ${pod.message?.split('.')[0] ?? 'it ran short of a resource'}`,
    evidence,
    confidence: node && !node.healthy ? 'high' : 'medium',
    nodeName: pod.node,
  };
}
