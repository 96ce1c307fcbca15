/**
 * A node in focus: its conditions and the pods it runs.
 */
import type { FocusOf, Gathered } from '../case.ts';
import type { Gathering } from './gathering.ts';
import { missingField } from './missing.ts';

export function gatherForNode(focus: FocusOf<'node'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const { name } = focus;
  const node = query.data('list_nodes', { name })?.nodes[0];
  const pods = query.data('list_pods', { fieldSelector: `spec.nodeName=${name}` });
  query.barrier();
  if (!node)
    return {
      focus,
      notFound: `node ${name}`,
      ...missingField({ kind: 'Node', name }, query.get('list_nodes', { name })),
    };
  return { focus, node, workloadPods: pods?.pods ?? [] };
}
